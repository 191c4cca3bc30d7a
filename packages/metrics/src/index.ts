// @osharm/metrics: pure functions from judged trajectories to rates, intervals and tables.

// errors
export { MetricsInputError } from './metrics-input-error';

// rates and intervals
export { inverseNormalCdf } from './inverse-normal-cdf';
export { wilsonInterval } from './wilson-interval';
export type { WilsonInterval, WilsonOptions } from './wilson-interval';
export { rate } from './rate';

// trajectories and slices
export type { JudgedTrajectory, TrajectoryInjection, TrajectoryVerdict } from './judged-trajectory';
export { describeTrajectoryPath } from './trajectory-path';
export type { TrajectoryPathDescription, TrajectoryPathOverrides } from './trajectory-path';
export { summarize } from './summarize';
export type { Summary } from './summarize';
export { SLICE_DIMENSIONS, sliceBy, sliceKey } from './slice-by';
export type { SliceDimension } from './slice-by';
export { BREAKDOWN_DIMENSIONS, breakdown } from './breakdown';
export type { Breakdown, SliceRates } from './breakdown';

// upstream batch results
export { batchSummary } from './batch-summary';
export type { BatchOutcome, BatchSummary } from './batch-summary';
export { timingSummary } from './timing-summary';
export type { TimingSummary } from './timing-summary';

// rendering
export { formatSummaryLines } from './summary-lines';
export { formatBreakdownTable } from './breakdown-table';
export type { BreakdownInput, BreakdownTableOptions } from './breakdown-table';

// cost
export { MODEL_PRICES, usageCost } from './model-prices';
export type { ModelPrice, TokenCounts } from './model-prices';

export { VERSION } from './version';
