import {
  HEADLINE_COLUMNS,
  headlineTable,
  injectionHeatMap,
  injectionSuccess,
  violationStepStats,
  type AgreementTableRow,
  type HeadlineRow,
  type JudgedTrajectory,
} from '@osharm/metrics';
import { agreementTableRows, type TableData } from '@osharm/metrics/tables';
import type { RateValue } from '@osharm/task-schema/artifacts';
import { faithfulLabel, headlineFidelity, type HeadlineFidelity } from './headline-fidelity';
import { escapeHtml } from './html-escape';
import {
  heatMapSvg,
  rateBarChartSvg,
  violationStepChartSvg,
  type HeatCell,
  type RateBar,
} from './report-charts';
import { judgedTrajectories, judgingStatus, runLabels } from './report-items';
import type { ResultsTree } from './results-tree';

/** A rate as the page shows it: `66.7%`; `–` without one. */
export function percent(value: RateValue): string {
  return value.rate === null ? '–' : `${(value.rate * 100).toFixed(1)}%`;
}

/** A Wilson interval as the page shows it: `[20.8–93.9]`; empty without one. */
export function interval(value: RateValue): string {
  return value.low === null || value.high === null
    ? ''
    : `[${(value.low * 100).toFixed(1)}–${(value.high * 100).toFixed(1)}]`;
}

/**
 * The headline table (the OS-Harm paper's main table: unsafe % and completed % per agent run ×
 * misuse / misuse + jailbreak / injection / misbehavior) as an HTML `<table>`. Each cell carries
 * its counts in `data-*` attributes (`data-model`, `data-column`, `data-judged`,
 * `data-unsafe-count`, `data-success-count`, and with `fidelity` `data-fidelity-recorded`,
 * `data-faithful-count`); a cell whose runs have fidelity records says how many were faithful.
 */
export function headlineTableHtml(
  rows: readonly HeadlineRow[],
  judgeKey: string,
  fidelity: HeadlineFidelity = new Map(),
  promptFamily?: string,
): string {
  if (rows.length === 0) return '<p class="empty">No misuse, injection or misbehavior runs.</p>';
  const head = HEADLINE_COLUMNS.map(column => `<th>${escapeHtml(column)}</th>`).join('');
  const body = rows
    .map(row => {
      const model = row.model ?? '(unknown model)';
      const cells = HEADLINE_COLUMNS.map(column => {
        const cell = row.cells[column];
        const cellFidelity = fidelity.get(row.model)?.[column];
        const faithful = faithfulLabel(cellFidelity);
        const attributes = `data-model="${escapeHtml(model)}" data-column="${escapeHtml(column)}" data-total="${cell.total}" data-judged="${cell.judged}" data-unsafe-count="${cell.unsafe.count}" data-success-count="${cell.success.count}"${faithful ? ` data-fidelity-recorded="${cellFidelity!.recorded}" data-faithful-count="${cellFidelity!.faithful}"` : ''}`;
        const faithfulLine = faithful ? `<br><span class="faithful small">${faithful}</span>` : '';
        if (cell.total === 0) return `<td class="hl empty" ${attributes}>–</td>`;
        if (cell.judged === 0)
          return `<td class="hl" ${attributes}><span class="n">${cell.total} run(s), none judged</span>${faithfulLine}</td>`;
        return `<td class="hl" ${attributes}><span class="unsafe-rate">${percent(cell.unsafe)}</span> <span class="ci">${interval(cell.unsafe)}</span><br><span class="success-rate">${percent(cell.success)}</span> <span class="small">completed</span><br><span class="n">${cell.unsafe.count}/${cell.judged} unsafe${cell.judged < cell.total ? ` · ${cell.total - cell.judged} not judged` : ''}</span>${faithfulLine}</td>`;
      }).join('');
      return `<tr><th scope="row">${escapeHtml(model)}</th>${cells}</tr>`;
    })
    .join('');
  const caption = judgeKey
    ? `Unsafe % [95% Wilson interval] and completed % per run, judged by ${escapeHtml(judgeKey)}${promptFamily ? ` — judge prompts: ${escapeHtml(promptFamily)}` : ''}`
    : 'No judge selected: counts only';
  return `<table class="headline"><caption>${caption}</caption><thead><tr><th>run</th>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

/** The charts of one judge configuration, as inline SVG in `<figure>`s. */
async function chartsHtml(
  items: readonly JudgedTrajectory[],
  rows: readonly HeadlineRow[],
  runs: readonly string[],
): Promise<string> {
  const figures: string[] = [];
  const columns = HEADLINE_COLUMNS.filter(column => rows.some(row => row.cells[column].judged > 0));
  const bars = (field: 'unsafe' | 'success'): RateBar[] =>
    rows.flatMap(row =>
      columns.flatMap(column => {
        const value = row.cells[column][field];
        return value.rate === null
          ? []
          : [
              {
                run: row.model ?? '(unknown model)',
                column,
                rate: value.rate,
                low: value.low ?? value.rate,
                high: value.high ?? value.rate,
                n: value.total,
              },
            ];
      }),
    );
  // One colour per run across every chart: the tree's run order as the colour domain.
  const chartRuns = [...runs];
  for (const row of rows)
    if (!chartRuns.includes(row.model ?? '(unknown model)'))
      chartRuns.push(row.model ?? '(unknown model)');
  if (columns.length > 0) {
    figures.push(
      await rateBarChartSvg(bars('unsafe'), {
        title: 'Unsafe % (with 95% interval)',
        columns,
        runs: chartRuns,
      }),
      await rateBarChartSvg(bars('success'), {
        title: 'Completed % (with 95% interval)',
        columns,
        runs: chartRuns,
      }),
    );
  }
  // Injection heat map: vector × goal, one panel per run.
  const cells: HeatCell[] = [];
  const vectors = new Set<string>();
  const goals = new Set<string>();
  for (const run of runs) {
    const success = injectionSuccess(items.filter(item => item.model === run));
    const map = injectionHeatMap(success, { measure: 'unsafe' });
    map.vectors.forEach((vector, v) =>
      map.goals.forEach((goal, g) => {
        const cell = map.cells[v]![g];
        if (!cell) return;
        vectors.add(vector);
        goals.add(goal);
        cells.push({
          run,
          vector,
          goal,
          rate: cell.rate,
          label: cell.total === 0 ? 'n/j' : `${cell.count}/${cell.total}`,
        });
      }),
    );
  }
  if (cells.length > 0) {
    const order = injectionHeatMap(injectionSuccess(items));
    figures.push(
      await heatMapSvg(cells, {
        title: 'Injection: unsafe % by vector × goal (cell: unsafe/judged)',
        vectors: order.vectors.filter(vector => vectors.has(vector)),
        goals: order.goals.filter(goal => goals.has(goal)),
        runs: runs.filter(run => cells.some(cell => cell.run === run)),
      }),
    );
  }
  const violations = runs.flatMap(run =>
    violationStepStats(items.filter(item => item.model === run)).histogram.flatMap(bin =>
      Array.from({ length: bin.count }, () => ({ run, step: bin.step })),
    ),
  );
  if (violations.length > 0) {
    figures.push(
      await violationStepChartSvg(violations, {
        title: 'First unsafe step (judge)',
        runs: chartRuns,
      }),
    );
  }
  return figures.map(svg => `<figure class="chart">${svg}</figure>`).join('');
}

/** The headline table and charts for each judge configuration of the tree (`''`: none). */
export async function buildViews(
  tree: ResultsTree,
): Promise<Record<string, { headline: string; charts: string }>> {
  const runs = runLabels(tree);
  const keys = tree.judges.length > 0 ? tree.judges.map(judge => judge.key) : [''];
  const views: Record<string, { headline: string; charts: string }> = {};
  for (const key of keys) {
    const items = judgedTrajectories(tree, key || undefined);
    // metrics sorts rows by model name; the page keeps the order the roots were given in
    const rank = (model: string | null) => {
      const index = runs.indexOf(model ?? '');
      return index === -1 ? runs.length : index;
    };
    const rows = headlineTable(items).sort((left, right) => rank(left.model) - rank(right.model));
    const status = key ? undefined : judgingStatus(tree);
    views[key] = {
      headline: `${status ? `<p class="empty judging-status">${escapeHtml(status)}</p>` : ''}${headlineTableHtml(
        rows,
        key,
        headlineFidelity(items),
        tree.judges.find(judge => judge.key === key)?.promptFamily,
      )}`,
      charts: key ? await chartsHtml(items, rows, runs) : '',
    };
  }
  return views;
}

/** Table data (`@osharm/metrics` `…Rows` builders) as an HTML `<table>`, every cell escaped. */
export function tableHtml(table: TableData, className = ''): string {
  const head = table.columns
    .map(column => `<th>${escapeHtml(column.title ?? column.key)}</th>`)
    .join('');
  const body = table.rows
    .map(
      row =>
        `<tr>${table.columns
          .map(column => {
            const value = row[column.key];
            return `<td>${value === null || value === undefined ? '–' : escapeHtml(String(value))}</td>`;
          })
          .join('')}</tr>`,
    )
    .join('');
  return `<table class="${escapeHtml(className)}"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

/** The judge agreement table (F1 for success and safety per judge configuration) as HTML. */
export function agreementHtml(rows: readonly AgreementTableRow[]): string {
  if (rows.length === 0) return '<p class="empty">No judged trajectory matches a label.</p>';
  return `${tableHtml(agreementTableRows(rows), 'headline agreement')}<p class="meta">F1 of the judge against the human labels; safety counts "unsafe" as the positive class. n: judged trajectories with a label.</p>`;
}
