// @osharm/metrics/tables: the numbers of the main entry as tables: rows with columns (TableData),
// rendered as CSV or markdown, and upstream's console summary and breakdown table.
export type { CellValue, TableColumn, TableData, TableFormatOptions, TableRow } from './table-data';
export { toCsv } from './csv-table';
export { toMarkdownTable } from './markdown-table';
export { headlineTableRows } from './headline-table-rows';
export { agreementTableRows } from './agreement-table-rows';
export type { AgreementTableRowsOptions } from './agreement-table-rows';
export { injectionHeatMapRows } from './injection-heat-map';
export { formatSummaryLines } from './summary-lines';
export { formatBreakdownTable } from './breakdown-table';
export type { BreakdownInput, BreakdownTableOptions } from './breakdown-table';
