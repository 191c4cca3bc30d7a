/** One cell of a table: rendered as text; null and undefined are empty cells. */
export type CellValue = string | number | boolean | null | undefined;

/** One row of a table: column key → cell. Keys no column names are not rendered. */
export type TableRow = Readonly<Record<string, CellValue>>;

/** One column of a table. */
export interface TableColumn {
  /** Key of the cell in each row. */
  readonly key: string;
  /** Header text. @default key */
  readonly title?: string;
  /**
   * Alignment in markdown (`---:` for right). CSV ignores it.
   * @default 'right' when every non-empty cell of the column is a number, else 'left'
   */
  readonly align?: 'left' | 'right';
}

/**
 * Columns and rows, ready for {@link toCsv} or {@link toMarkdownTable}; what the table builders
 * (`headlineTableRows`, `injectionHeatMapRows`, `agreementTableRows`) return.
 */
export interface TableData {
  readonly columns: readonly TableColumn[];
  readonly rows: readonly TableRow[];
}

/** Format of a table builder's cells. */
export interface TableFormatOptions {
  /**
   * `markdown`: display strings (`66.7% [20.8–93.9]`, `0.73`), one row per model / judge / vector;
   * `csv`: raw numbers (fractions, counts, interval bounds) for analysis, often in long form.
   * @default 'markdown'
   */
  readonly format?: 'markdown' | 'csv';
}
