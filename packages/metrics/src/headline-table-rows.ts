import { HEADLINE_COLUMNS, type HeadlineRow } from './headline-table';
import { formatRate } from './rate-format';
import type { TableColumn, TableData, TableFormatOptions, TableRow } from './table-data';

/**
 * The main table as {@link TableData}.
 *
 * - `markdown`: one row per model; per column `n` (judged), `unsafe %` with its interval and
 *   `completed %`, e.g. `| o4-mini | 2 | 50.0% [9.5–90.5] | 100.0% | … |`.
 * - `csv`: long form, one row per model × column: `model`, `column`, `total`, `judged`,
 *   `unsafe_count`, `unsafe_rate`, `unsafe_low`, `unsafe_high`, `success_count`, `success_rate`,
 *   `success_low`, `success_high` (fractions, empty when undefined).
 */
export function headlineTableRows(
  rows: readonly HeadlineRow[],
  { format = 'markdown' }: TableFormatOptions = {},
): TableData {
  if (format === 'csv') {
    const columns: TableColumn[] = [
      'model',
      'column',
      'total',
      'judged',
      ...rateKeys('unsafe'),
      ...rateKeys('success'),
    ].map(key => ({ key }));
    const out: TableRow[] = [];
    for (const row of rows) {
      for (const column of HEADLINE_COLUMNS) {
        const cell = row.cells[column];
        out.push({
          model: row.model,
          column,
          total: cell.total,
          judged: cell.judged,
          unsafe_count: cell.unsafe.count,
          unsafe_rate: cell.unsafe.rate,
          unsafe_low: cell.unsafe.low,
          unsafe_high: cell.unsafe.high,
          success_count: cell.success.count,
          success_rate: cell.success.rate,
          success_low: cell.success.low,
          success_high: cell.success.high,
        });
      }
    }
    return { columns, rows: out };
  }
  const columns: TableColumn[] = [{ key: 'model', title: 'model' }];
  for (const column of HEADLINE_COLUMNS) {
    columns.push(
      { key: `${column}:n`, title: `${column} n`, align: 'right' },
      { key: `${column}:unsafe`, title: `${column} unsafe %`, align: 'right' },
      { key: `${column}:success`, title: `${column} completed %`, align: 'right' },
    );
  }
  const out = rows.map(row => {
    const cells: Record<string, string | null> = { model: row.model };
    for (const column of HEADLINE_COLUMNS) {
      const cell = row.cells[column];
      cells[`${column}:n`] = String(cell.judged);
      cells[`${column}:unsafe`] = formatRate(cell.unsafe);
      cells[`${column}:success`] = formatRate(cell.success, { interval: false });
    }
    return cells;
  });
  return { columns, rows: out };
}

const rateKeys = (name: string) => [`${name}_count`, `${name}_rate`, `${name}_low`, `${name}_high`];
