/// <reference lib="dom" />
import type {
  CompactVerdict,
  ImageRef,
  PageData,
  StepDetail,
  TrajectoryDetail,
  TrajectorySummary,
} from './report-page-data';

/**
 * The report page's script. It is shipped as source (`reportClient.toString()`, inlined in the
 * page), so it must stay self-contained: no imports at run time, no module-level values.
 *
 * Data comes from `<script type="application/json">` elements in the static report (the overview
 * from `#osharm-data`, each trajectory from `#tr-{id}`, parsed only when opened; thumbnails from
 * `#th-{hash}`) or from the viewer's `/api/*` endpoints (with server-sent events for live
 * updates). Every value from a trajectory is written with `textContent` — never as HTML; only the
 * server-built table and chart fragments are inserted as markup.
 */
export function reportClient(): void {
  const live = document.body.dataset.mode === 'live';
  const byId = (id: string) => document.getElementById(id);

  type Child = Node | string | number | null | undefined | false;
  const h = (
    tag: string,
    attributes: Record<string, string | number | boolean | null | undefined> = {},
    ...children: Child[]
  ): HTMLElement => {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) {
      if (value === null || value === undefined || value === false) continue;
      if (name === 'class') element.className = String(value);
      else element.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      element.append(typeof child === 'object' ? child : document.createTextNode(String(child)));
    }
    return element;
  };
  const clear = (element: Element | null) => {
    if (element) element.replaceChildren();
  };

  const state = {
    data: null as PageData | null,
    judge: '',
    column: '',
    category: '',
    domain: '',
    verdict: '',
    search: '',
    detail: null as TrajectoryDetail | null,
    detailJudge: '',
  };

  // ---- data sources ----
  const readJson = <T>(id: string): T | null => {
    const element = byId(id);
    return element?.textContent ? (JSON.parse(element.textContent) as T) : null;
  };
  const loadData = async (): Promise<PageData> => {
    if (!live) return readJson<PageData>('osharm-data')!;
    const response = await fetch('api/data', { cache: 'no-store' });
    return (await response.json()) as PageData;
  };
  const loadDetail = async (id: string): Promise<TrajectoryDetail | null> => {
    if (!live) return readJson<TrajectoryDetail>(`tr-${id}`);
    const response = await fetch(`api/trajectory/${encodeURIComponent(id)}`, {
      cache: 'no-store',
    });
    return response.ok ? ((await response.json()) as TrajectoryDetail) : null;
  };
  const thumbSource = (image: ImageRef): string | undefined => {
    if (image.thumbUrl) return image.thumbUrl;
    if (image.thumbId) return byId(`th-${image.thumbId}`)?.textContent ?? undefined;
    return undefined;
  };
  // `#im-…`: a full-size image embedded in the page (`--embed-images`).
  const fullSource = (full: string): string =>
    full.startsWith('#im-') ? (byId(full.slice(1))?.textContent ?? '') : full;

  // ---- verdicts ----
  // An errored run has no verdict, even if a judgment file is lying around.
  const verdictOf = (summary: TrajectorySummary): CompactVerdict | undefined =>
    state.judge && summary.errored === null ? summary.verdicts[state.judge] : undefined;
  const verdictClass = (verdict: CompactVerdict | undefined) =>
    verdict ? (verdict[0] ? 'safe' : 'unsafe') : 'unjudged';

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

  // ---- detail ----
  const lightbox = (src: string, caption: string) => {
    const box = byId('lightbox');
    if (!box) return;
    box.replaceChildren(
      h('img', { src, alt: caption }),
      h('div', { class: 'caption' }, caption, ' — click or press Esc to close'),
    );
    box.hidden = false;
  };
  const imageBlock = (image: ImageRef | undefined, caption: string, note?: string) => {
    if (!image) return h('div', { class: 'shot missing' }, note ?? 'no screenshot');
    const full = fullSource(image.full);
    const link = h(
      'a',
      { href: full, target: '_blank', rel: 'noopener', class: 'shot' },
      h('img', {
        src: thumbSource(image) ?? full,
        loading: 'lazy',
        decoding: 'async',
        alt: caption,
      }),
    );
    link.addEventListener('click', event => {
      event.preventDefault();
      lightbox(full, caption);
    });
    return link;
  };
  const fullLink = (full: string, caption: string, text: string) => {
    const source = fullSource(full);
    const link = h('a', { href: source, target: '_blank', rel: 'noopener' }, text);
    link.addEventListener('click', event => {
      event.preventDefault();
      lightbox(source, caption);
    });
    return link;
  };
  const pre = (text: string, className = '') => h('pre', { class: className }, text);

  const renderStep = (step: StepDetail, violation: number | null | undefined) => {
    const isViolation = violation === step.index;
    const after = violation !== null && violation !== undefined && step.index > violation;
    return h(
      'section',
      {
        class: `step${isViolation ? ' violation' : ''}${after ? ' after-violation' : ''}`,
        id: `step-${step.index}`,
        'data-step': step.index,
      },
      h(
        'header',
        {},
        h('h3', {}, `Step ${step.index}`),
        isViolation ? h('span', { class: 'badge unsafe' }, 'violation step (judge)') : null,
        h('span', { class: 'file' }, step.screenshotName),
      ),
      h(
        'div',
        { class: 'step-body' },
        h(
          'div',
          { class: 'step-shot' },
          imageBlock(step.image, `step ${step.index}: ${step.screenshotName}`, step.note),
          step.note ? h('div', { class: 'note' }, step.note) : null,
        ),
        h(
          'div',
          { class: 'step-text' },
          h('h4', {}, 'Response (reasoning and code)'),
          pre(step.response, 'response'),
          h('h4', {}, `Actions (${step.actions.length})`),
          step.actions.length > 0
            ? h('div', {}, ...step.actions.map(action => pre(action, 'action')))
            : h('div', { class: 'note' }, 'no action parsed from the response'),
          step.executed.length > 0
            ? h(
                'div',
                { class: 'executed' },
                h('h4', {}, 'Executed'),
                h(
                  'ul',
                  {},
                  ...step.executed.map(executed =>
                    h(
                      'li',
                      {},
                      h('code', {}, executed.timestamp),
                      ' ',
                      executed.action.split('\n').at(-1) ?? '',
                      ' ',
                      executed.full
                        ? fullLink(executed.full, executed.name, 'screenshot after')
                        : h('span', { class: 'note' }, `(${executed.name} missing)`),
                    ),
                  ),
                ),
              )
            : null,
        ),
      ),
    );
  };

  const renderDetail = (detail: TrajectoryDetail, scrollTo?: number) => {
    const panel = byId('detail');
    if (!panel) return;
    const judgments = detail.judgments;
    if (!judgments.some(record => record.key === state.detailJudge)) {
      state.detailJudge = judgments.some(record => record.key === state.judge && record.judgment)
        ? state.judge
        : (judgments.find(record => record.judgment)?.key ?? '');
    }
    const selected = judgments.find(record => record.key === state.detailJudge)?.judgment ?? null;
    const violation = selected && !selected.safety ? selected.violation_step : null;
    const marks = h(
      'div',
      { class: 'marks-row' },
      h('span', { class: `badge cat-${detail.category}` }, detail.category),
      detail.jailbreak ? h('span', { class: 'badge jailbreak' }, 'jailbreak') : null,
      detail.injection
        ? h(
            'span',
            { class: 'badge injection' },
            `injection: ${detail.injection.vector} × ${detail.injection.goal}`,
          )
        : null,
      detail.errored !== null
        ? h('span', { class: 'badge errored', title: detail.errored }, `errored: ${detail.errored}`)
        : detail.finished
          ? detail.score === null
            ? h('span', { class: 'badge unscored' }, 'ended, no result.txt (not scored)')
            : null
          : h('span', { class: 'badge running' }, 'running (no result.txt, no final action yet)'),
    );
    const verdictBox = selected
      ? h(
          'div',
          { class: `verdict-box ${selected.safety ? 'safe' : 'unsafe'}`, id: 'verdict' },
          h(
            'div',
            { class: 'verdict-line' },
            h(
              'strong',
              { 'data-verdict': selected.safety ? 'safe' : 'unsafe' },
              selected.safety ? 'SAFE' : 'UNSAFE',
            ),
            ' · ',
            selected.success ? 'task completed' : 'task not completed',
            violation !== null && violation !== undefined
              ? h(
                  'span',
                  {},
                  ' · first unsafe step: ',
                  h('a', { href: `#t=${detail.id}&step=${violation}` }, `step ${violation}`),
                  violation >= detail.steps.length ? ' (beyond the logged steps)' : '',
                )
              : null,
          ),
          h('div', { class: 'judge-name' }, `judge ${state.detailJudge}`),
          pre(selected.reasoning, 'reasoning'),
        )
      : h('div', { class: 'verdict-box unjudged' }, 'Not judged (no readable judgment.json).');
    const judgmentTable =
      judgments.length > 0
        ? h(
            'table',
            { class: 'judgments' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', {}, 'judge (model / type / version)'),
                h('th', {}, 'safety'),
                h('th', {}, 'success'),
                h('th', {}, 'violation step'),
              ),
            ),
            h(
              'tbody',
              {},
              ...judgments.map(record => {
                const row = h(
                  'tr',
                  { class: record.key === state.detailJudge ? 'selected' : '', tabindex: 0 },
                  h('td', {}, record.key),
                  h(
                    'td',
                    { class: record.judgment ? (record.judgment.safety ? 'safe' : 'unsafe') : '' },
                    record.judgment
                      ? record.judgment.safety
                        ? 'safe'
                        : 'unsafe'
                      : (record.error ?? 'unreadable'),
                  ),
                  h('td', {}, record.judgment ? String(record.judgment.success) : ''),
                  h('td', {}, record.judgment ? String(record.judgment.violation_step ?? '–') : ''),
                );
                row.addEventListener('click', () => {
                  state.detailJudge = record.key;
                  renderDetail(detail);
                });
                return row;
              }),
            ),
          )
        : null;
    const evidence = detail.evidence
      ? h(
          'section',
          { class: 'evidence' },
          h('h3', {}, 'Injection evidence (deterministic checks)'),
          ...detail.evidence.goals.map(goal =>
            h(
              'div',
              {},
              h(
                'p',
                {},
                `${goal.vector} × ${goal.goal}: `,
                h(
                  'strong',
                  {},
                  goal.triggered === null
                    ? `unknown${goal.reason ? ` (${goal.reason})` : ''}`
                    : goal.triggered
                      ? 'triggered'
                      : 'not triggered',
                ),
              ),
              h(
                'table',
                { class: 'checks' },
                h(
                  'tbody',
                  {},
                  ...goal.checks.map(check =>
                    h(
                      'tr',
                      {},
                      h('td', {}, check.name),
                      h(
                        'td',
                        { class: check.triggered ? 'unsafe' : '' },
                        check.triggered === null ? 'n/a' : String(check.triggered),
                      ),
                      h('td', {}, check.description),
                      h('td', {}, pre(check.detail)),
                    ),
                  ),
                ),
              ),
            ),
          ),
        )
      : null;
    const fidelity = detail.fidelity
      ? h(
          'section',
          { class: 'fidelity' },
          h(
            'h3',
            {},
            detail.fidelity.faithful ? 'Faithful to upstream' : 'Not faithful to upstream',
          ),
          detail.fidelity.reasons.length === 0
            ? null
            : h('ul', {}, ...detail.fidelity.reasons.map(reason => h('li', {}, reason))),
        )
      : null;
    const warnings = detail.setupWarnings
      ? h(
          'section',
          { class: 'setup-warnings' },
          h('h3', {}, `Setup warnings (${detail.setupWarnings.length})`),
          detail.setupWarnings.length === 0
            ? h('p', {}, 'Every setup step succeeded.')
            : h(
                'ul',
                {},
                ...detail.setupWarnings.map(warning =>
                  h(
                    'li',
                    {},
                    `${warning.source} ${warning.phase} step ${warning.step_index + 1} (${warning.step_type}): ${warning.message}`,
                  ),
                ),
              ),
          detail.setupWarnings.length === 0
            ? null
            : h(
                'p',
                { class: 'note' },
                'Upstream only logs these failures and runs on; the run may differ from one where the step succeeded.',
              ),
          detail.setupDownloads && detail.setupDownloads.length > 0
            ? h(
                'p',
                { class: 'downloads' },
                `Downloads: ${detail.setupDownloads
                  .map(
                    ({ origin, count }) =>
                      `${count} from ${origin === 'asset-map' ? 'asset-map files' : origin === 'mirror' ? 'a mirror' : `the ${origin}`}`,
                  )
                  .join(', ')}.`,
              )
            : null,
        )
      : null;
    const parts: (HTMLElement | null)[] = [
      h('p', {}, h('a', { href: '#', class: 'back' }, '← all trajectories')),
      h('h2', {}, `${detail.domain ? `${detail.domain}/` : ''}${detail.taskId}`),
      h('div', { class: 'sub' }, `${detail.run} · ${detail.relativeDir}`),
      marks,
      h('h3', {}, 'Instruction'),
      detail.instruction.trim() === ''
        ? h('div', { class: 'note' }, '(empty instruction)')
        : pre(detail.instruction, 'instruction'),
      detail.injectionContent
        ? h('div', {}, h('h3', {}, 'Injected text'), pre(detail.injectionContent, 'injected'))
        : null,
      h('h3', {}, 'Judge'),
      verdictBox,
      judgmentTable,
      h(
        'p',
        { class: 'score' },
        'Evaluator score (result.txt): ',
        h('strong', { id: 'score' }, detail.score === null ? '–' : String(detail.score)),
      ),
      evidence,
      fidelity,
      warnings,
      detail.recording
        ? h(
            'section',
            {},
            h('h3', {}, 'Recording'),
            h('video', { src: detail.recording, controls: true, preload: 'none', class: 'video' }),
          )
        : null,
      detail.notes.length + detail.errors.length > 0
        ? h(
            'section',
            { class: 'notes' },
            h('h3', {}, 'Notes'),
            h(
              'ul',
              {},
              ...detail.errors.map(error => h('li', { class: 'error' }, `Error: ${error}`)),
              ...detail.notes.map(note => h('li', {}, note)),
            ),
          )
        : null,
      h(
        'details',
        { class: 'params' },
        h('summary', {}, 'Run settings (better_log.json params)'),
        h(
          'table',
          {},
          h(
            'tbody',
            {},
            ...detail.params.map(([key, value]) =>
              h('tr', {}, h('td', {}, key), h('td', {}, value)),
            ),
          ),
        ),
      ),
      h('h3', {}, `Steps (${detail.steps.length})`),
      ...detail.steps.map(step => renderStep(step, violation)),
      detail.final
        ? h(
            'section',
            { class: 'step final' },
            h(
              'header',
              {},
              h('h3', {}, 'Final state'),
              h('span', { class: 'file' }, detail.final.name),
            ),
            imageBlock(detail.final, `final: ${detail.final.name}`),
          )
        : null,
    ];
    panel.replaceChildren(...parts.filter((part): part is HTMLElement => part !== null));
    if (scrollTo !== undefined) byId(`step-${scrollTo}`)?.scrollIntoView({ block: 'start' });
  };

  // ---- routing ----
  const route = () => {
    const params = new URLSearchParams(location.hash.slice(1));
    return { id: params.get('t'), step: params.get('step') };
  };
  const show = async (keepScroll = false) => {
    const { id, step } = route();
    const overview = byId('overview');
    const panel = byId('detail');
    if (!id) {
      state.detail = null;
      if (overview) overview.hidden = false;
      if (panel) {
        panel.hidden = true;
        clear(panel);
      }
      return;
    }
    const y = window.scrollY;
    const detail = await loadDetail(id);
    if (overview) overview.hidden = true;
    if (panel) panel.hidden = false;
    if (!detail) {
      panel?.replaceChildren(
        h('p', {}, h('a', { href: '#', class: 'back' }, '← all trajectories')),
        h('p', {}, 'This trajectory is not in the results (any more).'),
      );
      return;
    }
    if (state.detail?.id !== detail.id) state.detailJudge = '';
    state.detail = detail;
    renderDetail(detail, step === null ? undefined : Number(step));
    if (keepScroll) window.scrollTo(0, y);
    else if (step === null) window.scrollTo(0, 0);
  };

  // ---- wiring ----
  const bind = (id: string, key: 'judge' | 'column' | 'category' | 'domain' | 'verdict') => {
    byId(id)?.addEventListener('change', event => {
      state[key] = (event.target as HTMLSelectElement).value;
      if (key === 'judge') renderView(state.data!);
      renderGrid(state.data!);
    });
  };
  bind('f-judge', 'judge');
  bind('f-column', 'column');
  bind('f-category', 'category');
  bind('f-domain', 'domain');
  bind('f-verdict', 'verdict');
  byId('f-search')?.addEventListener('input', event => {
    state.search = (event.target as HTMLInputElement).value;
    renderGrid(state.data!);
  });
  window.addEventListener('hashchange', () => void show());
  const box = byId('lightbox');
  box?.addEventListener('click', () => {
    box.hidden = true;
    clear(box);
  });
  document.addEventListener('keydown', event => {
    if (event.key === 'Escape' && box && !box.hidden) {
      box.hidden = true;
      clear(box);
    }
  });

  const start = async () => {
    state.data = await loadData();
    state.judge = state.data.defaultJudge ?? '';
    renderOverview();
    await show();
    document.body.dataset.ready = '1';
    (window as unknown as { osharmReadyMs: number }).osharmReadyMs = performance.now();
    if (!live) return;
    const status = byId('live-status');
    const refresh = async () => {
      const previous = state.data;
      state.data = await loadData();
      if (!state.data.judges.some(judge => judge.key === state.judge))
        state.judge = state.data.defaultJudge ?? '';
      renderOverview();
      const open = state.detail;
      if (open) {
        const now = state.data.trajectories.find(summary => summary.id === open.id);
        const before = previous?.trajectories.find(summary => summary.id === open.id);
        if (!now || !before || now.updatedMs !== before.updatedMs) await show(true);
      }
      if (status) status.textContent = `live · updated ${new Date().toLocaleTimeString()}`;
      document.body.dataset.version = String(Number(document.body.dataset.version ?? '0') + 1);
    };
    const events = new EventSource('api/events');
    events.addEventListener('change', () => void refresh());
    events.addEventListener('open', () => {
      if (status) status.textContent = 'live · connected';
    });
    events.addEventListener('error', () => {
      if (status) status.textContent = 'live · reconnecting…';
    });
  };
  void start();
}
