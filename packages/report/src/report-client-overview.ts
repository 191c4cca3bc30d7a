/// <reference lib="dom" />
import type { PageData, TrajectorySummary } from './report-page-data';
import type { ClientBase } from './report-client-base';

// Shipped as source (`toString()`, composed by `reportClientSource` in report-client.ts): this
// function must stay self-contained — no imports at run time, no module-level values.

/** The overview section of the report page: filters, headline view, charts and the trajectory grid. */
export function reportClientOverview(base: ClientBase) {
  const { live, byId, h, state, verdictOf, verdictClass } = base;
  // ---- overview ----
  const categoryOrder = ['misuse', 'injection', 'misbehavior', 'osworld', 'other'];
  const fillSelect = (
    id: string,
    options: readonly (readonly [string, string])[],
    value: string,
  ): void => {
    const select = byId(id) as HTMLSelectElement | null;
    if (!select) return;
    select.replaceChildren(
      ...options.map(([optionValue, label]) => h('option', { value: optionValue }, label)),
    );
    select.value = options.some(([optionValue]) => optionValue === value) ? value : '';
  };
  const unique = (values: readonly (string | null)[]) =>
    [...new Set(values.filter((value): value is string => value !== null))].sort();

  const matches = (summary: TrajectorySummary): boolean => {
    if (state.category && summary.category !== state.category) return false;
    if (state.domain && summary.domain !== state.domain) return false;
    if (state.verdict && verdictClass(verdictOf(summary)) !== state.verdict) return false;
    if (state.search) {
      const haystack = `${summary.taskDir} ${summary.domain ?? ''} ${summary.relativeDir}`;
      if (!haystack.toLowerCase().includes(state.search.toLowerCase())) return false;
    }
    return true;
  };

  const renderControls = (data: PageData) => {
    fillSelect(
      'f-judge',
      data.judges.length === 0
        ? [['', 'no judgments found']]
        : data.judges.map(judge => [
            judge.key,
            `${judge.judgeModel} · ${judge.judgeType} · ${judge.promptVersion} (${judge.count})`,
          ]),
      state.judge,
    );
    fillSelect(
      'f-column',
      [['', 'all runs'], ...data.columns.map(column => [column, column] as const)],
      state.column,
    );
    const categories = unique(data.trajectories.map(summary => summary.category)).sort(
      (left, right) => categoryOrder.indexOf(left) - categoryOrder.indexOf(right),
    );
    fillSelect(
      'f-category',
      [['', 'all categories'], ...categories.map(category => [category, category] as const)],
      state.category,
    );
    const domains = unique(data.trajectories.map(summary => summary.domain));
    fillSelect(
      'f-domain',
      [['', 'all domains'], ...domains.map(domain => [domain, domain] as const)],
      state.domain,
    );
    fillSelect(
      'f-verdict',
      [
        ['', 'safe and unsafe'],
        ['unsafe', 'unsafe only'],
        ['safe', 'safe only'],
        ['unjudged', 'not judged'],
      ],
      state.verdict,
    );
  };

  const renderView = (data: PageData) => {
    const view = data.views[state.judge] ?? data.views[''];
    const headline = byId('headline');
    const charts = byId('charts');
    // Server-built fragments: every value in them was escaped when the page was made.
    if (headline) headline.innerHTML = view?.headline ?? '';
    if (charts) charts.innerHTML = view?.charts ?? '';
    const agreement = byId('agreement');
    const agreementSection = byId('agreement-section');
    if (agreement && agreementSection) {
      agreement.innerHTML = data.agreement ?? '';
      agreementSection.hidden = data.agreement === null;
    }
    const usage = byId('usage');
    const usageSection = byId('usage-section');
    if (usage && usageSection) {
      usage.innerHTML = data.usage ?? '';
      usageSection.hidden = data.usage === null;
    }
  };

  const renderGrid = (data: PageData) => {
    const grid = byId('grid');
    if (!grid) return;
    const columns = state.column ? [state.column] : [...data.columns];
    interface Row {
      domain: string | null;
      taskDir: string;
      category: string;
      cells: Map<string, TrajectorySummary>;
    }
    const rows = new Map<string, Row>();
    for (const summary of data.trajectories) {
      const key = `${summary.domain ?? ''}/${summary.taskDir}`;
      let row = rows.get(key);
      if (!row) {
        row = {
          domain: summary.domain,
          taskDir: summary.taskDir,
          category: summary.category,
          cells: new Map(),
        };
        rows.set(key, row);
      }
      row.cells.set(summary.column, summary);
    }
    const sorted = [...rows.values()].sort(
      (left, right) =>
        categoryOrder.indexOf(left.category) - categoryOrder.indexOf(right.category) ||
        (left.domain ?? '').localeCompare(right.domain ?? '') ||
        left.taskDir.localeCompare(right.taskDir),
    );
    let shown = 0;
    const counts = { unsafe: 0, safe: 0, unjudged: 0 };
    const body = h('tbody');
    for (const row of sorted) {
      const visible = columns.map(column => row.cells.get(column)).filter(Boolean);
      if (!visible.some(summary => summary && matches(summary))) continue;
      const tr = h(
        'tr',
        {},
        h('td', { class: 'domain' }, row.domain ?? '–'),
        h('td', { class: 'task', title: row.taskDir }, row.taskDir),
        h('td', { class: `category ${row.category}` }, row.category),
      );
      for (const column of columns) {
        const summary = row.cells.get(column);
        if (!summary) {
          tr.append(h('td', { class: 'cell none' }, ''));
          continue;
        }
        const verdict = verdictOf(summary);
        const kind = verdictClass(verdict);
        const match = matches(summary);
        if (match) {
          shown += 1;
          counts[kind] += 1;
        }
        const marks = [
          verdict?.[1] ? '✓' : '',
          summary.score === null ? '' : `score ${summary.score}`,
          summary.destroyedByAgent !== null
            ? `destroyed by the agent (step ${summary.destroyedByAgent})`
            : '',
          summary.errored !== null ? 'errored' : summary.finished ? '' : 'running',
        ].filter(Boolean);
        tr.append(
          h(
            'td',
            { class: `cell ${kind}${match ? '' : ' dim'}` },
            h(
              'a',
              {
                href: `#t=${summary.id}`,
                class: 'cell-link',
                'data-id': summary.id,
                'data-verdict': kind,
                title: `${summary.relativeDir}\n${summary.steps} step(s)${summary.notes ? `, ${summary.notes} note(s)` : ''}${summary.errors ? `, ${summary.errors} error(s)` : ''}`,
              },
              h('span', { class: 'verdict' }, kind === 'unjudged' ? '–' : kind),
              marks.length > 0 ? h('span', { class: 'marks' }, marks.join(' · ')) : null,
            ),
          ),
        );
      }
      body.append(tr);
    }
    const head = h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', {}, 'domain'),
        h('th', {}, 'task'),
        h('th', {}, 'category'),
        ...columns.map(column => h('th', { class: 'run' }, column)),
      ),
    );
    grid.replaceChildren(h('table', { class: 'grid' }, head, body));
    const summaryLine = byId('grid-summary');
    if (summaryLine)
      summaryLine.textContent = `${shown} of ${data.trajectories.length} trajectories shown: ${counts.unsafe} unsafe, ${counts.safe} safe, ${counts.unjudged} not judged`;
  };

  const renderOverview = () => {
    const data = state.data;
    if (!data) return;
    const title = byId('title');
    if (title) title.textContent = data.title;
    document.title = data.title;
    const meta = byId('meta');
    if (meta)
      meta.textContent = `${data.trajectories.length} trajectories from ${data.roots.join(', ')} · ${live ? 'live' : 'generated'} ${new Date(data.generatedAt).toLocaleString()}`;
    renderControls(data);
    renderView(data);
    renderGrid(data);
  };

  return { renderOverview, renderView, renderGrid };
}
