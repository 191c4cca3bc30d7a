import type { CellValue, TableColumn, TableRow } from './table-data';

/**
 * Renders rows as CSV (RFC 4180): a header of column titles, then one record per row in column
 * order. Null and undefined are empty fields, numbers use JavaScript's shortest round-trip form
 * (`0.6666666666666666`), booleans `true` / `false`. A field containing a comma, a double quote,
 * a CR or an LF is quoted, with inner quotes doubled. Records are joined by `\n`, without a
 * trailing newline.
 */
export function toCsv(rows: readonly TableRow[], columns: readonly TableColumn[]): string {
  const header = columns.map(column => csvField(column.title ?? column.key));
  const records = rows.map(row => columns.map(column => csvField(row[column.key])).join(','));
  return [header.join(','), ...records].join('\n');
}

function csvField(value: CellValue): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
