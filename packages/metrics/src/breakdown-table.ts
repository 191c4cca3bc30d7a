import type { RateValue } from '@osharm/task-schema/artifacts';
import { formatRate } from './rate-format';

/** Any breakdown: the output of `breakdown()` or the `breakdown` of a parsed batch results file. */
export type BreakdownInput = Readonly<
  Record<string, Readonly<Record<string, Readonly<Record<string, RateValue>>>> | undefined>
>;

/** Options of {@link formatBreakdownTable}. */
export interface BreakdownTableOptions {
  /**
   * `markdown`: a GitHub table (as Prettier pads it); `text`: aligned columns for a terminal.
   * @default 'text'
   */
  readonly format?: 'markdown' | 'text';
}

type Column = { readonly title: string; readonly right: boolean };

const columns: readonly Column[] = [
  { title: 'dimension', right: false },
  { title: 'slice', right: false },
  { title: 'n', right: true },
  { title: 'unsafe % [CI]', right: true },
  { title: 'success %', right: true },
];

/**
 * Renders a breakdown as a table with one row per slice: dimension, slice key, `n` (judged
 * trajectories), `unsafe %` with its interval as stored (95 % from `breakdown()` by default), and
 * `success %`; percentages have one decimal, e.g. `66.7% [20.8–93.9]`. Rows follow the
 * breakdown's order. Returns the lines joined by `\n`, without a trailing newline.
 */
export function formatBreakdownTable(
  breakdown: BreakdownInput,
  { format = 'text' }: BreakdownTableOptions = {},
): string {
  const rows: string[][] = [];
  for (const [dimension, slices] of Object.entries(breakdown)) {
    for (const [key, rates] of Object.entries(slices ?? {})) {
      const total = rates.unsafe?.total ?? rates.safe?.total ?? rates.success?.total;
      rows.push([
        dimension,
        key,
        total === undefined ? '–' : String(total),
        formatRate(rates.unsafe),
        formatRate(rates.success, { interval: false }),
      ]);
    }
  }
  const cells = format === 'markdown' ? rows.map(row => row.map(escapeMarkdown)) : rows;
  const widths = columns.map((column, index) =>
    Math.max(column.title.length, ...cells.map(row => row[index]!.length), 3),
  );
  const pad = (text: string, index: number) =>
    columns[index]!.right ? text.padStart(widths[index]!) : text.padEnd(widths[index]!);
  const titles = columns.map(column => column.title);
  if (format === 'markdown') {
    const line = (row: readonly string[]) => `| ${row.map(pad).join(' | ')} |`;
    const rule = columns.map((column, index) =>
      column.right ? `${'-'.repeat(widths[index]! - 1)}:` : '-'.repeat(widths[index]!),
    );
    return [line(titles), `| ${rule.join(' | ')} |`, ...cells.map(line)].join('\n');
  }
  const line = (row: readonly string[]) => row.map(pad).join('  ').trimEnd();
  return [line(titles), line(widths.map(width => '-'.repeat(width))), ...cells.map(line)].join(
    '\n',
  );
}

const escapeMarkdown = (text: string): string => text.replace(/\|/g, '\\|');
