import type { CellValue, TableColumn, TableRow } from './table-data';

/**
 * Renders rows as a GitHub markdown table, padded as Prettier pads it (every column at least 3
 * wide, right-aligned columns ruled `---:`). Null and undefined cells show as `–`; `|` is escaped
 * and line breaks become `<br>`. Lines are joined by `\n`, without a trailing newline.
 */
export function toMarkdownTable(
  rows: readonly TableRow[],
  columns: readonly TableColumn[],
): string {
  const cells = rows.map(row => columns.map(column => markdownCell(row[column.key])));
  const titles = columns.map(column => markdownCell(column.title ?? column.key));
  const right = columns.map(
    column => (column.align ?? defaultAlign(rows.map(row => row[column.key]))) === 'right',
  );
  const widths = columns.map((_, index) =>
    Math.max(3, titles[index]!.length, ...cells.map(row => row[index]!.length)),
  );
  const pad = (text: string, index: number) =>
    right[index] ? text.padStart(widths[index]!) : text.padEnd(widths[index]!);
  const line = (row: readonly string[]) => `| ${row.map(pad).join(' | ')} |`;
  const rule = widths.map((width, index) =>
    right[index] ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width),
  );
  return [line(titles), `| ${rule.join(' | ')} |`, ...cells.map(line)].join('\n');
}

function markdownCell(value: CellValue): string {
  if (value === null || value === undefined) return '–';
  return String(value)
    .replace(/\|/g, '\\|')
    .replace(/\r\n|\r|\n/g, '<br>');
}

/** Right when every non-empty cell is a number (and there is at least one). */
function defaultAlign(values: readonly CellValue[]): 'left' | 'right' {
  const present = values.filter(value => value !== null && value !== undefined);
  return present.length > 0 && present.every(value => typeof value === 'number') ? 'right' : 'left';
}
