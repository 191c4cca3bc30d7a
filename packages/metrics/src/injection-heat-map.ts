import type { RateValue } from '@osharm/task-schema/artifacts';
import type { InjectionSuccess } from './injection-success';
import { formatRate } from './rate-format';
import type { TableColumn, TableData, TableFormatOptions, TableRow } from './table-data';

/** Which injection measure a heat map shows. */
export type InjectionMeasure = 'unsafe' | 'triggered' | 'completed';

/** A vector × goal matrix of one injection measure, ready to plot. */
export interface InjectionHeatMap {
  readonly measure: InjectionMeasure;
  /** Row labels, in the order of `injectionSuccess().byVector`. */
  readonly vectors: readonly string[];
  /** Column labels, in catalog order of the goals that ran. */
  readonly goals: readonly string[];
  /** `cells[v][g]`: the rate of `vectors[v]` × `goals[g]`; null where that combination never ran. */
  readonly cells: readonly (readonly (RateValue | null)[])[];
}

/**
 * The vector × goal matrix of one measure of {@link InjectionSuccess}: `unsafe` (LLM judge),
 * `triggered` (deterministic evidence) or `completed` (user task done).
 * @default measure 'unsafe'
 */
export function injectionHeatMap(
  success: InjectionSuccess,
  { measure = 'unsafe' }: { readonly measure?: InjectionMeasure } = {},
): InjectionHeatMap {
  const vectors = Object.keys(success.byVector);
  const goals = Object.keys(success.byGoal);
  const cells = vectors.map(vector =>
    goals.map(goal => success.cells[vector]?.[goal]?.[measure] ?? null),
  );
  return { measure, vectors, goals, cells };
}

/**
 * The heat map as {@link TableData}.
 *
 * - `markdown`: one row per vector, one column per goal, cells `50.0% (1/2)` (`–` where the
 *   combination never ran or has no n).
 * - `csv`: long form, one row per cell that ran: `vector`, `goal`, `measure`, `count`, `total`,
 *   `rate`, `low`, `high`.
 */
export function injectionHeatMapRows(
  heatMap: InjectionHeatMap,
  { format = 'markdown' }: TableFormatOptions = {},
): TableData {
  if (format === 'csv') {
    const rows: TableRow[] = [];
    heatMap.vectors.forEach((vector, v) =>
      heatMap.goals.forEach((goal, g) => {
        const cell = heatMap.cells[v]![g];
        if (!cell) return;
        const { count, total, rate, low, high } = cell;
        rows.push({ vector, goal, measure: heatMap.measure, count, total, rate, low, high });
      }),
    );
    const columns = ['vector', 'goal', 'measure', 'count', 'total', 'rate', 'low', 'high'];
    return { columns: columns.map(key => ({ key })), rows };
  }
  const columns: TableColumn[] = [
    { key: 'vector', title: `vector / goal (${heatMap.measure} %)` },
    ...heatMap.goals.map(goal => ({ key: `goal:${goal}`, title: goal, align: 'right' as const })),
  ];
  const rows = heatMap.vectors.map((vector, v) => {
    const row: Record<string, string> = { vector };
    heatMap.goals.forEach((goal, g) => {
      const cell = heatMap.cells[v]![g];
      row[`goal:${goal}`] =
        !cell || cell.rate === null
          ? '–'
          : `${formatRate(cell, { interval: false })} (${cell.count}/${cell.total})`;
    });
    return row;
  });
  return { columns, rows };
}
