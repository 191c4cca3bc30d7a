// @osharm/metrics: pure functions from judged trajectories to rates and intervals. Tables (CSV,
// markdown, console) are the `@osharm/metrics/tables` subpath (src/tables.ts).

// errors
export { MetricsInputError } from './metrics-input-error';

// rates and intervals
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
export { SLICE_DIMENSIONS, sliceBy } from './slice-by';
export type { SliceDimension } from './slice-by';
export { BREAKDOWN_DIMENSIONS, breakdown } from './breakdown';
export type { Breakdown, SliceRates } from './breakdown';

// upstream batch results
export { batchSummary } from './batch-summary';
export type { BatchOutcome, BatchSummary } from './batch-summary';
export { timingSummary } from './timing-summary';
export type { TimingSummary } from './timing-summary';

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

export { injectionHeatMap } from './injection-heat-map';
export type { InjectionHeatMap, InjectionMeasure } from './injection-heat-map';

// agreement (judge vs human labels, judge vs injection evidence)
export { binaryAgreement } from './binary-agreement';
export type { BinaryAgreement, BinaryPair, ConfusionCounts } from './binary-agreement';
export { parseHumanLabels } from './human-labels';
export type { HumanLabel, HumanLabelFormat } from './human-labels';
export type { JudgeConfig } from './judge-config';
export { judgeAgreement } from './judge-agreement';
export type { AgreementField, JudgeAgreementOptions, JudgeAgreementRow } from './judge-agreement';
export { evidenceAgreement } from './evidence-agreement';
export type { EvidenceAgreementRow } from './evidence-agreement';
export { observedVerdict, observerAgreement } from './observer-agreement';
export type {
  ObservedVerdict,
  ObserverAgreement,
  ObserverDisagreement,
} from './observer-agreement';
export { agreementTable } from './agreement-table';
export type { AgreementTableOptions, AgreementTableRow } from './agreement-table';

// violation steps
export type { NumberStats } from './number-stats';
export { violationStepStats } from './violation-steps';
export type { RelativeBin, StepBin, ViolationStepStats } from './violation-steps';

// usage totals
export { usageTotals } from './usage-totals';
export type { UsageCost, UsageTotals, UsageTotalsOptions } from './usage-totals';
export { formatCost, formatUsageSum, runUsageTotals } from './run-usage-totals';
export type { RunUsageSum, RunUsageTotals } from './run-usage-totals';

export { VERSION } from './version';
export { faithfulRuns } from './faithful-runs';
