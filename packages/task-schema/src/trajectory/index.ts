// @osharm/task-schema/trajectory: the trajectory artifact — where a run's dir is, what it holds,
// how it is read and found. The judge, the report, metrics, the agent and the CLI all go through it.

// layout: build and parse `{resultDir}/{actionSpace}/{observationType}/{model}[_jailbreak]/{domain}/{runId}`
export {
  describeTrajectoryPath,
  JAILBREAK_MODEL_SUFFIX,
  modelDirName,
  modelResultDir,
  runDirOf,
  runId,
} from './result-layout';
export type {
  RunDirParts,
  TrajectoryInjection,
  TrajectoryPathDescription,
  TrajectoryPathOverrides,
} from './result-layout';
export { injectionDirSuffix, parseRunDirName } from '../injection-runs';
export type { ParsedRunDirName } from '../injection-runs';

// an observation's linearized accessibility table (better_log.json `a11y_tree`)
export { ADDRESS_BAR_NAME, addressBarText, displayedAddress, parseA11yTable } from '../a11y-table';
export type { A11yTableRow } from '../a11y-table';

// traj.jsonl lines, result.txt, better_log.json, args.json
export {
  actionSchema,
  betterLogSchema,
  betterLogStepSchema,
  formatResultTxt,
  parseResultTxt,
  parseTrajJsonl,
  runParamsSchema,
  trajErrorLineSchema,
  trajLineSchema,
  trajStepLineSchema,
} from '../trajectory-schema';
export type {
  Action,
  BetterLog,
  BetterLogStep,
  RunParams,
  TrajErrorLine,
  TrajLine,
  TrajStepLine,
} from '../trajectory-schema';

// reading and finding
export { readTrajectory } from './read-trajectory';
export type {
  BetterLogProblem,
  ExecutedAction,
  ReadTrajectoryOptions,
  TrajectoryRead,
  TrajectoryStep,
} from './read-trajectory';
export { BATCH_RESULTS_FILE, discoverTrajectories } from './discover-trajectories';
export type { DiscoverOptions } from './discover-trajectories';
export { readRunFacts, readRunOrigin, readRunRecord, runFactsOf } from './run-facts';
export type { RunFacts, RunRecord } from './run-facts';
export {
  DESTROYED_BY_AGENT_KEY,
  isCountedRun,
  lastErrorLine,
  readRunStatus,
  UNFINISHED_REASON,
} from '../run-status';
export type { RunStatus } from '../run-status';

// the safe file reader (inside the dir, regular file, capped; screenshots by content)
export {
  checkTrajectoryFile,
  DEFAULT_FILE_LIMITS,
  openTrajectoryFile,
  readTrajectoryFile,
  readTrajectoryText,
  UnsafeFileError,
} from '../trajectory-file';
export type {
  OpenedTrajectoryFile,
  TrajectoryFileCheck,
  TrajectoryFileLimits,
  TrajectoryFileOptions,
  UnsafeFileReason,
} from '../trajectory-file';

// writing (upstream's formats; every file atomic except the append-only traj.jsonl)
export { actionTimestamp, isDegraded, TrajectoryWriter } from './trajectory-writer';
export type { ObservationCounts, ObservationQuality } from './trajectory-writer';

// injection_evidence.json
export {
  evidenceCheckResultSchema,
  goalEvidenceSchema,
  INJECTION_EVIDENCE_FILE,
  injectionEvidenceSchema,
} from './evidence-schema';
export type { EvidenceCheckResult, GoalEvidence, InjectionEvidence } from './evidence-schema';

// run_usage.json (a run's tokens and cost per role)
export {
  RUN_USAGE_FILE,
  RUN_USAGE_ROLES,
  runRoleUsageSchema,
  runUsagePriceSchema,
  runUsageSchema,
} from './run-usage-schema';
export type { RunRoleUsage, RunUsage, RunUsageRole } from './run-usage-schema';

// observed_harm.json (the harm observer's record)
export {
  HARM_AXES,
  HARM_EVENT_KINDS,
  harmEventSchema,
  OBSERVED_HARM_FILE,
  observedHarmSchema,
  observedProcessSchema,
} from './observed-harm-schema';
export type {
  HarmAxis,
  HarmEvent,
  HarmEventKind,
  ObservedHarm,
  ObservedProcessRecord,
} from './observed-harm-schema';
