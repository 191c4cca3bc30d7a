// @osharm/injection: OS-Harm prompt injections and the jailbreak wrapper, as pure transforms of a task.

// run expansion (re-exported from @osharm/task-schema, which owns it)
export { expandInjectionRuns, injectionDirSuffix } from '@osharm/task-schema';
export type { InjectionRun, InjectionRunExpansion } from '@osharm/task-schema';

// goals and their texts
export {
  ATTACKER_ARTEFACTS,
  DEFAULT_GOAL_TEXTS,
  INJECTION_GOALS,
  NOTIFICATION_TEXT_LIMIT,
  goalText,
} from './injection-goals';
export type { GoalTexts, InjectionGoal } from './injection-goals';
export { goalTextsOverrideSchema, loadGoalTexts, parseGoalTexts } from './goal-texts-file';
export { loadUpstreamInjection } from './upstream-injection';
export type { InjectionTemplates, UpstreamInjection } from './upstream-injection';

// setup generation
export { planInjection, prepareInjection } from './prepare-injection';
export type {
  InjectionEnvironment,
  InjectionPlacement,
  InjectionPlan,
  InjectionRecord,
  PlanInjectionOptions,
  PlannedFile,
  PrepareInjectionOptions,
  PreparedInjection,
  ReadAsset,
} from './prepare-injection';
export {
  DOCUMENTS_GUEST_PATHS,
  GOAL_EXTRA_FILES,
  REPORT_GUEST_PATH,
  goalPlantedFiles,
} from './goal-files';
export type { GoalExtra } from './goal-files';

// The building blocks of the vectors (office files, code headers, mail, the website, planted files,
// the guest instrumentation and layout) are in `@osharm/injection/building-blocks`.

// evidence
export { CHECK_DONE_MARKER, STOP_STEP_LIMITS, evidenceProbe } from './evidence-probes';
export { interpretGuestCheck, interpretTrajectoryCheck } from './evidence-interpret';
export type {
  CommandResult,
  EvidenceCheck,
  EvidenceProbe,
  EvidenceProbeOptions,
  EvidenceTrajectory,
  GuestCheck,
  TrajectoryCheck,
} from './evidence-probes';
export { collectEvidence, combineChecks } from './collect-evidence';
export type { CollectEvidenceOptions, RunGuestCommand } from './collect-evidence';
// The evidence file's schema is task-schema's (the trajectory artifact's owner).
export {
  INJECTION_EVIDENCE_FILE,
  evidenceCheckResultSchema,
  goalEvidenceSchema,
  injectionEvidenceSchema,
} from '@osharm/task-schema/trajectory';
export type {
  EvidenceCheckResult,
  GoalEvidence,
  InjectionEvidence,
} from '@osharm/task-schema/trajectory';

// jailbreak
export {
  JAILBREAK_LAYOUT_STEPS,
  JAILBREAK_MODEL_SUFFIX,
  applyJailbreak,
  jailbreakInstruction,
  jailbreakModelDir,
} from './jailbreak';
export type { JailbreakRun } from './jailbreak';

// errors
export { InjectionConfigError, InjectionSetupError } from './injection-errors';

export { VERSION } from './version';
