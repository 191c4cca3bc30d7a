import {
  HEADLINE_COLUMNS,
  headlineColumn,
  type HeadlineColumn,
  type HeadlineRow,
  type JudgedTrajectory,
} from '@osharm/metrics';

/** How many runs of one headline cell have a fidelity record, and how many of those are faithful. */
export interface CellFidelity {
  /** Runs whose run dir holds a readable `fidelity.json`. */
  readonly recorded: number;
  /** Of those, the runs whose environment matched upstream's VM. */
  readonly faithful: number;
}

/** Per agent model (`null`: unknown) and headline column: the cell's fidelity counts. */
export type HeadlineFidelity = ReadonlyMap<
  string | null,
  Readonly<Record<HeadlineColumn, CellFidelity>>
>;

/**
 * Counts faithful runs per headline cell (the cells of `@osharm/metrics` `headlineTable`: model ×
 * column). A run without a fidelity record (an older run dir, or one whose `fidelity.json` is
 * unreadable) counts in neither number.
 */
export function headlineFidelity(items: readonly JudgedTrajectory[]): HeadlineFidelity {
  const counts = new Map<
    string | null,
    Record<HeadlineColumn, { recorded: number; faithful: number }>
  >();
  for (const item of items) {
    const column = headlineColumn(item);
    if (column === undefined || item.faithful === undefined) continue;
    const model = item.model ?? null;
    let row = counts.get(model);
    if (!row) {
      row = Object.fromEntries(
        HEADLINE_COLUMNS.map(name => [name, { recorded: 0, faithful: 0 }]),
      ) as Record<HeadlineColumn, { recorded: number; faithful: number }>;
      counts.set(model, row);
    }
    row[column].recorded += 1;
    if (item.faithful) row[column].faithful += 1;
  }
  return counts;
}

/** `12 of 15 faithful`, or '' when no run of the cell has a fidelity record. */
export function faithfulLabel(cell: CellFidelity | undefined): string {
  return cell && cell.recorded > 0 ? `${cell.faithful} of ${cell.recorded} faithful` : '';
}

/**
 * The Markdown report's lines under the headline table: per row (in the table's order), each
 * column's faithful count; none when no run has a fidelity record.
 */
export function headlineFidelityLines(
  rows: readonly HeadlineRow[],
  fidelity: HeadlineFidelity,
): string[] {
  const lines: string[] = [];
  for (const row of rows) {
    const cells = HEADLINE_COLUMNS.flatMap(column => {
      const label = faithfulLabel(fidelity.get(row.model)?.[column]);
      return label ? [`${column} ${label}`] : [];
    });
    if (cells.length > 0) lines.push(`- ${row.model ?? '(unknown model)'}: ${cells.join(' · ')}`);
  }
  return lines.length > 0
    ? ["Runs whose environment matched upstream's VM (`fidelity.json`), per cell:", '', ...lines]
    : [];
}
