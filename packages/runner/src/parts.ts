// @osharm/runner/parts: the pieces runBenchmark is made of, for front ends that run tasks their own
// way (`osharm tasks check` runs every task once with no agent and no judge).
export { createAgent } from './agent-choice';
export { runOne } from './run-one';
export { planRuns } from './run-plan';
export { checkLocalDesktop, checkRunFlags, runEndpoints } from './run-prechecks';
export type { RunEndpoints } from './run-prechecks';
export { firstA11yTree, injectedText, writeRunFidelity } from './run-fidelity';
export { RunBreaker } from './run-breaker';
export { priceRole, runUsage, writeRunUsage } from './run-usage';
export type { RoleCalls } from './run-usage';
export { checkPromptFamily } from './run-family';
export { compareFirstObservations, isShellRow, POSITION_TOLERANCE_PX } from './observation-compare';
export type { ObservationComparison, RowTally } from './observation-compare';
export { matchUpstreamRun, readUpstreamRuns } from './upstream-runs';
export type { UpstreamRun } from './upstream-runs';
