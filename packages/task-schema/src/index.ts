// @osharm/task-schema: the spec every osharm package imports — task configs and datasets (schemas,
// parse/load/validate, categories, index files, injection run expansion), the errors, the defaults.
// What a run writes lives behind subpaths: `@osharm/task-schema/trajectory` (the trajectory artifact:
// traj.jsonl, result.txt, better_log.json, the run dir and its safe reader) and
// `@osharm/task-schema/artifacts` (judgments, batch results, fidelity and setup-warning records, the
// file writers, secrets and printing, JSON Schema export).

// errors
export { OsharmError } from './osharm-error';
export { TaskValidationError } from './task-validation-error';
export { formatIssue } from './validation-issue';
export type { ValidationIssue } from './validation-issue';

// task configs
export { taskConfigSchema, parseTaskConfig } from './task-config-schema';
export type { TaskConfig, ParsedTaskConfig } from './task-config-schema';
export {
  SETUP_STEP_TYPES,
  commandSchema,
  isKnownSetupStep,
  isKnownSetupStepType,
  knownSetupStepSchema,
  setupStepSchema,
  unknownSetupStepSchema,
} from './setup-step-schema';
export type {
  KnownSetupStep,
  SetupStep,
  SetupStepOf,
  SetupStepType,
  UnknownSetupStep,
} from './setup-step-schema';
export { KNOWN_GETTER_TYPES, evaluatorSchema, getterConfigSchema } from './evaluator-schema';
export type { Evaluator, GetterConfig } from './evaluator-schema';

// injections
export {
  FILE_INJECTION_VECTORS,
  INJECTION_GOAL_IDS,
  INJECTION_VECTOR_IDS,
  injectionParamsSchema,
  injectionVectorSchema,
} from './injection-schema';
export type { InjectionGoalId, InjectionVector, InjectionVectorId } from './injection-schema';
export { expandInjectionRuns, injectionDirSuffix } from './injection-runs';
export type { InjectionRun, InjectionRunExpansion } from './injection-runs';

// categories, index files, datasets
export { TASK_CATEGORIES, isParaphrase, taskCategory } from './task-category';
export type { TaskCategory } from './task-category';
export { KNOWN_DOMAINS, OSHARM_INDEX_FILES, taskIndexSchema } from './task-index';
export type { TaskIndex } from './task-index';
export { defaultIndexPaths, loadDataset, loadTaskIndex, validateDataset } from './dataset-loader';
export type { DatasetOptions, DatasetReport, DatasetTask } from './dataset-loader';
export { summarizeDataset } from './dataset-summary';
export type { DatasetSummary } from './dataset-summary';

// run options
export {
  ACTION_SPACES,
  CAPTIONED_JUDGE_TYPES,
  DEFAULT_ACTION_SPACE,
  PUBLISHED_RUNS_OBSERVATION_TYPE,
  DEFAULT_JUDGE_MODEL,
  DEFAULT_JUDGE_TYPE,
  DEFAULT_OBSERVATION_TYPE,
  DEFAULT_PROMPT_VERSION,
  JUDGE_TYPES,
  judgeTypeNeedsCaptions,
  judgeTypeUsesObservationType,
  JUDGE_TYPE_TRAITS,
  OBSERVATION_TYPES,
  PROMPT_VERSIONS,
  SPECIAL_ACTIONS,
} from './run-options';
export type {
  ActionSpace,
  JudgeType,
  JudgeTypeTraits,
  ObservationType,
  PromptVersion,
  SpecialAction,
} from './run-options';

// prompt provenance (whose wording a result was made with)
export { PROMPT_FAMILIES, promptProvenanceSchema, upstreamSourceSchema } from './prompt-provenance';
export type { PromptFamily, PromptProvenance, UpstreamSource } from './prompt-provenance';

// version
export { VERSION } from './version';
