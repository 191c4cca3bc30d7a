// @osharm/report: OS-Harm results as a self-contained HTML report, a live viewer, and tables.

// loading
export { discoverTrajectoryDirs, loadResultsTree, trajectoryId } from './load-results-tree';
export type { LoadResultsTreeOptions } from './load-results-tree';
export type {
  ExecutedAction,
  JudgeConfig,
  JudgmentRecord,
  ResultsTree,
  StepRecord,
  TrajectoryRecord,
} from './results-tree';

// from records to metrics
export {
  allJudgments,
  defaultJudgeKey,
  judgedTrajectories,
  judgmentOf,
  runLabels,
  toJudgedTrajectory,
} from './report-items';
export { unmatchedLabels } from './label-matching';
export { formatObserverAgreement } from './observer-agreement-text';

// reports
export { buildReport, REPORT_FORMATS } from './build-report';
export type { BuildReportOptions, ReportFormat } from './build-report';
export type { HtmlReportOptions } from './report-html';
export { ThumbnailCache } from './report-thumbnails';
export type { Thumbnail, ThumbnailOptions } from './report-thumbnails';
export {
  heatMapSvg,
  rateBarChartSvg,
  renderVegaLiteSvg,
  violationStepChartSvg,
} from './report-charts';
export type { HeatCell, RateBar } from './report-charts';
export type {
  CompactVerdict,
  ImageRef,
  PageData,
  PageJudge,
  PageView,
  StepDetail,
  TrajectoryDetail,
  TrajectorySummary,
} from './report-page-data';

// viewer
export { createViewServer } from './view-server';
export type { ViewServer, ViewServerOptions } from './view-server';

export { VERSION } from './version';
