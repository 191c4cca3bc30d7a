import { type FidelityRecord, type SetupWarningEntry } from '@osharm/task-schema/artifacts';
import { summarizeDegraded } from '@osharm/task-schema/internal';
import type { UpstreamComparison } from './compare-summary';
import { formatTable } from './table';

/** One run of `osharm tasks check`, as its `--json` line says it. */
export interface CheckLine {
  /** `{domain}/{task id}[__inject__{vector}__{goal}]` */
  readonly run: string;
  readonly domain: string;
  readonly category: string;
  /** `ok`: every setup step succeeded; `warnings`: some failed as upstream only logs; `failed`: setup aborted. */
  readonly setup: 'ok' | 'warnings' | 'failed';
  readonly warnings: readonly SetupWarningEntry[];
  readonly faithful: boolean;
  readonly fidelity: FidelityRecord | null;
  /** The run's folder (step_0.png, a11y_tree.txt, setup_warnings.json, fidelity.json). */
  readonly out: string;
  readonly seconds: number;
  /** Why the run stopped before or during evaluation. */
  readonly error?: string;
  /** The evaluator's score with the refusing agent (null when it did not run). */
  readonly score: number | null;
  readonly injection?: {
    readonly vector: string;
    readonly goal: string;
    readonly text: string | null;
  };
  /** `--compare`: this run against each upstream run of it. */
  readonly compare?: readonly UpstreamComparison[];
}

/** Totals of a set of checked runs. */
export interface CheckTotals {
  readonly runs: number;
  readonly through_setup: number;
  readonly faithful: number;
  /** Mean wall-clock seconds per run. */
  readonly seconds_per_run: number;
}

function totals(lines: readonly CheckLine[]): CheckTotals {
  const seconds = lines.reduce((sum, line) => sum + line.seconds, 0);
  return {
    runs: lines.length,
    through_setup: lines.filter(line => line.setup !== 'failed').length,
    faithful: lines.filter(line => line.faithful).length,
    seconds_per_run: lines.length === 0 ? 0 : Number((seconds / lines.length).toFixed(1)),
  };
}

/** The final `--json` line: totals, per domain × category, and the unfaithful runs' reasons. */
export function checkSummary(lines: readonly CheckLine[]) {
  return {
    summary: {
      ...totals(lines),
      degraded: degradedSummary(lines),
      by_cell: groups(lines).map(([key, group]) => ({ cell: key, ...totals(group) })),
      unfaithful: lines
        .filter(line => !line.faithful)
        .map(line => ({ run: line.run, reasons: line.fidelity?.reasons ?? [line.error ?? ''] })),
    },
  };
}

/** Degraded observations over the checked runs (runs without a fidelity record count as unknown). */
export function degradedSummary(lines: readonly CheckLine[]) {
  return summarizeDegraded(
    lines.map(line => ({ degraded_observations: line.fidelity?.degraded_observations ?? null })),
  );
}

function groups(lines: readonly CheckLine[]): [string, CheckLine[]][] {
  const byCell = new Map<string, CheckLine[]>();
  for (const line of lines) {
    const key = `${line.domain} ${line.category}`;
    byCell.set(key, [...(byCell.get(key) ?? []), line]);
  }
  return [...byCell].sort(([a], [b]) => a.localeCompare(b));
}

/** The human table: per domain and category, then the total. */
export function formatCheckTable(lines: readonly CheckLine[]): string {
  const row = (domain: string, category: string, group: readonly CheckLine[]) => {
    const t = totals(group);
    return [
      domain,
      category,
      String(t.runs),
      String(t.through_setup),
      String(t.faithful),
      t.seconds_per_run.toFixed(1),
    ];
  };
  const rows = groups(lines).map(([key, group]) => {
    const [domain, category] = key.split(' ');
    return row(domain!, category!, group);
  });
  rows.push(row('all', 'all', lines));
  return formatTable(['domain', 'category', 'runs', 'through setup', 'faithful', 's/run'], rows);
}
