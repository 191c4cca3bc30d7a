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

// reading and finding
export { readCappedText, readTrajectory } from './read-trajectory';
export type {
  BetterLogProblem,
  ExecutedAction,
  ReadTrajectoryOptions,
  TrajectoryRead,
  TrajectoryStep,
} from './read-trajectory';
export { BATCH_RESULTS_FILE, discoverTrajectories, SKIPPED_DIRS } from './discover-trajectories';
export type { DiscoverOptions } from './discover-trajectories';
export { readRunFacts, runFactsOf } from './run-facts';
export type { RunFacts } from './run-facts';
export { lastErrorLine, readRunStatus, UNFINISHED_REASON } from '../run-status';
export type { RunStatus } from '../run-status';

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
