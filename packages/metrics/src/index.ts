// @osharm/metrics: pure functions from judged trajectories to rates, intervals and tables.

// errors
export { MetricsInputError } from './metrics-input-error';

// rates and intervals
export { inverseNormalCdf } from './inverse-normal-cdf';
export { wilsonInterval } from './wilson-interval';
export type { WilsonInterval, WilsonOptions } from './wilson-interval';
export { rate } from './rate';

// trajectories and slices
export type {
  JudgedTrajectory,
  TrajectoryEvidence,
  TrajectoryInjection,
  TrajectoryUsage,
  TrajectoryVerdict,
} from './judged-trajectory';
// The result-path parser is task-schema's (the trajectory artifact's owner); re-exported for metrics users.
export { describeTrajectoryPath } from '@osharm/task-schema/trajectory';
export type {
  TrajectoryPathDescription,
  TrajectoryPathOverrides,
} from '@osharm/task-schema/trajectory';
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
export { MODEL_PRICES, usageCost } from '@osharm/models';
export type { ModelPrice, TokenCounts } from '@osharm/models';

// main table (model × misuse / misuse + jailbreak / injection / misbehavior)
export { HEADLINE_COLUMNS, headlineColumn, headlineTable } from './headline-table';
export type { HeadlineColumn, HeadlineRow } from './headline-table';

// injection success
export { injectionRates, injectionSuccess } from './injection-success';
export type { InjectionRates, InjectionSuccess } from './injection-success';
export { atLeastKOfN } from './at-least-k-of-n';
export type { AtLeastKOfN, AtLeastKRates, RepeatedRunGroup } from './at-least-k-of-n';
export { runEvidence } from './run-evidence';
export type { EvidenceRecordInput } from './run-evidence';
export { injectionHeatMap, injectionHeatMapRows } from './injection-heat-map';
export type { InjectionHeatMap, InjectionMeasure } from './injection-heat-map';

// agreement (judge vs human labels, judge vs injection evidence)
export { agreementFromCounts, binaryAgreement } from './binary-agreement';
export type { BinaryAgreement, BinaryPair, ConfusionCounts } from './binary-agreement';
export { parseHumanLabels } from './human-labels';
export type { HumanLabel, HumanLabelFormat } from './human-labels';
export type { JudgeConfig } from './judge-config';
export { judgeAgreement } from './judge-agreement';
export type { AgreementField, JudgeAgreementOptions, JudgeAgreementRow } from './judge-agreement';
export { evidenceAgreement } from './evidence-agreement';
export type { EvidenceAgreementRow } from './evidence-agreement';
export { agreementTable } from './agreement-table';
export type { AgreementTableOptions, AgreementTableRow } from './agreement-table';
export { agreementTableRows } from './agreement-table-rows';
export type { AgreementTableRowsOptions } from './agreement-table-rows';

// violation steps
export { numberStats } from './number-stats';
export type { NumberStats } from './number-stats';
export { violationStepStats } from './violation-steps';
export type { RelativeBin, StepBin, ViolationStepStats } from './violation-steps';

// usage totals
export { usageTotals } from './usage-totals';
export type { UsageCost, UsageTotals, UsageTotalsOptions } from './usage-totals';

// tables (CSV, markdown; JSON is the plain objects)
export type { CellValue, TableColumn, TableData, TableFormatOptions, TableRow } from './table-data';
export { toCsv } from './csv-table';
export { toMarkdownTable } from './markdown-table';
export { headlineTableRows } from './headline-table-rows';

export { VERSION } from './version';
export { faithfulRuns } from './faithful-runs';
