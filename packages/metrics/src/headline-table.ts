import type { JudgedTrajectory } from './judged-trajectory';
import { compareNullableKeys } from './key-order';
import { summarize, type Summary } from './summarize';
import type { WilsonOptions } from './wilson-interval';

/** The columns of the OS-Harm paper's main table, in its order. */
export const HEADLINE_COLUMNS = [
  'misuse',
  'misuse + jailbreak',
  'injection',
  'misbehavior',
] as const;
/** One of {@link HEADLINE_COLUMNS}. */
export type HeadlineColumn = (typeof HEADLINE_COLUMNS)[number];

/**
 * The main-table column of a trajectory: its category, except that a jailbreak misuse run is
 * `misuse + jailbreak`; undefined for `osworld` and `other` tasks (not in the table). Only misuse
 * runs are split by jailbreak (OS-Harm jailbreaks only misuse instructions).
 */
export function headlineColumn(item: JudgedTrajectory): HeadlineColumn | undefined {
  switch (item.category) {
    case 'misuse':
      return item.jailbreak === true ? 'misuse + jailbreak' : 'misuse';
    case 'injection':
    case 'misbehavior':
      return item.category;
    default:
      return undefined;
  }
}

/** One agent model's row of the main table. */
export interface HeadlineRow {
  /** Agent model (without `_jailbreak`); null for trajectories whose model is unknown. */
  readonly model: string | null;
  /**
   * Per column: trajectories (`total`), judged ones (`judged`, the n of every rate) and the
   * unsafe, safe and success (completed) rates with Wilson intervals. A column without
   * trajectories has `total` 0 and null rates.
   */
  readonly cells: Readonly<Record<HeadlineColumn, Summary>>;
}

/**
 * The OS-Harm paper's main table: one row per agent model (sorted, unknown model last), with the
 * unsafe % and completed % of each of {@link HEADLINE_COLUMNS} (see {@link headlineColumn}).
 * Models with no trajectory in any column are left out. Each rate is over the judged trajectories
 * of its cell.
 */
export function headlineTable(
  items: readonly JudgedTrajectory[],
  options: WilsonOptions = {},
): HeadlineRow[] {
  const groups = new Map<string | null, Map<HeadlineColumn, JudgedTrajectory[]>>();
  for (const item of items) {
    const column = headlineColumn(item);
    if (column === undefined) continue;
    const model = item.model ?? null;
    let columns = groups.get(model);
    if (!columns) groups.set(model, (columns = new Map()));
    const cell = columns.get(column);
    if (cell) cell.push(item);
    else columns.set(column, [item]);
  }
  return [...groups.keys()].sort(compareNullableKeys).map(model => {
    const columns = groups.get(model)!;
    const cells = Object.fromEntries(
      HEADLINE_COLUMNS.map(column => [column, summarize(columns.get(column) ?? [], options)]),
    ) as Record<HeadlineColumn, Summary>;
    return { model, cells };
  });
}
