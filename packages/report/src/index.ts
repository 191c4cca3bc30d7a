// @osharm/report: OS-Harm results as a self-contained HTML report, a live viewer, and tables.

// loading
export { loadResultsTree } from './load-results-tree';
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
export { allJudgments, judgedTrajectories } from './report-items';

// reports
export { buildReport } from './build-report';
export type { BuildReportOptions, ReportFormat } from './build-report';
export type { HtmlReportOptions } from './report-html';
export { ThumbnailCache } from './report-thumbnails';
export type { Thumbnail, ThumbnailOptions } from './report-thumbnails';

// viewer
export { createViewServer } from './view-server';
export type { ViewServer, ViewServerOptions } from './view-server';

export { VERSION } from './version';
