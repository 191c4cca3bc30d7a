// @osharm/task-schema: the spec every osharm package imports.

// errors
export { OsharmError } from './osharm-error';
export { TaskValidationError } from './task-validation-error';
export { formatIssue, toJsonPath } from './validation-issue';
export type { ValidationIssue } from './validation-issue';
export { describeValue, fromZodIssues } from './zod-issues';

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
  VS_CODE_INJECTION_EXTENSIONS,
  injectionParamsSchema,
  injectionVectorSchema,
} from './injection-schema';
export type { InjectionGoalId, InjectionVector, InjectionVectorId } from './injection-schema';
export { expandInjectionRuns, injectionDirSuffix, parseRunDirName } from './injection-runs';
export type { InjectionRun, InjectionRunExpansion, ParsedRunDirName } from './injection-runs';

// categories, index files, datasets
export { TASK_CATEGORIES, isParaphrase, taskCategory } from './task-category';
export type { TaskCategory } from './task-category';
export { KNOWN_DOMAINS, OSHARM_INDEX_FILES, taskIndexSchema } from './task-index';
export type { TaskIndex } from './task-index';
export { defaultIndexPaths, loadDataset, loadTaskIndex, validateDataset } from './dataset-loader';
export type { DatasetOptions, DatasetReport, DatasetTask } from './dataset-loader';
export { summarizeDataset } from './dataset-summary';
export type { DatasetSummary } from './dataset-summary';
export { resolveTaskAsset, taskAssetRoots } from './task-assets';
export type { TaskAssetResolution } from './task-assets';
export { parseJsonText, readJsonFile } from './json-file';
export type { JsonFileResult } from './json-file';

// run options
export {
  ACTION_SPACES,
  CAPTIONED_JUDGE_TYPES,
  DEFAULT_ACTION_SPACE,
  PUBLISHED_RUNS_OBSERVATION_TYPE,
  DEFAULT_JUDGE_TYPE,
  DEFAULT_OBSERVATION_TYPE,
  DEFAULT_PROMPT_VERSION,
  JUDGE_TYPES,
  judgeTypeNeedsCaptions,
  OBSERVATION_TYPES,
  PROMPT_VERSIONS,
  SPECIAL_ACTIONS,
} from './run-options';
export type {
  ActionSpace,
  JudgeType,
  ObservationType,
  PromptVersion,
  SpecialAction,
} from './run-options';

// trajectory artifacts
export {
  actionSchema,
  betterLogSchema,
  betterLogStepSchema,
  formatResultTxt,
  isTrajErrorLine,
  parseResultTxt,
  parseTrajJsonl,
  runParamsSchema,
  trajErrorLineSchema,
  trajLineSchema,
  trajStepLineSchema,
} from './trajectory-schema';
export type {
  Action,
  BetterLog,
  BetterLogStep,
  RunParams,
  TrajErrorLine,
  TrajLine,
  TrajStepLine,
} from './trajectory-schema';
export {
  batchResultsFileName,
  batchResultsSchema,
  judgmentRelativePath,
  judgmentSchema,
  judgmentTypeDir,
  rateSchema,
} from './judgment-schema';
export type { BatchResults, Judgment, RateValue } from './judgment-schema';
export { lastErrorLine, readRunStatus, UNFINISHED_REASON } from './run-status';
export type { RunStatus } from './run-status';
export {
  SETUP_WARNINGS_FILE,
  setupDownloadSchema,
  setupWarningSchema,
  setupWarningsSchema,
} from './setup-warnings-schema';
export type { SetupDownloadEntry, SetupWarningEntry, SetupWarnings } from './setup-warnings-schema';
export {
  judgmentProvenanceSchema,
  PROVENANCE_KEY,
  readJudgmentLeniently,
} from './judgment-provenance';
export type { JudgmentProvenance, LenientJudgment } from './judgment-provenance';
export { toPythonJson } from './python-json';
export { writeFileAtomic } from './atomic-write';
export { ensureDirInside, writeArtifact } from './artifact-write';
export {
  DEFAULT_FILE_LIMITS,
  UnsafeFileError,
  checkTrajectoryFile,
  formatBytes,
  isImageBytes,
  openTrajectoryFile,
  readTrajectoryFile,
  readTrajectoryText,
  screenshotChecker,
} from './trajectory-file';
export type {
  OpenedTrajectoryFile,
  ScreenshotChecker,
  TrajectoryFileCheck,
  TrajectoryFileLimits,
  TrajectoryFileOptions,
  UnsafeFileReason,
} from './trajectory-file';

// printing and secrets
export { REDACTED, redactSecrets, registerSecret } from './secrets';
export { escapeControlChars } from './control-chars';
export { generateJsonSchemas } from './json-schema';
export { VERSION } from './version';
export { FIDELITY_FILE, fidelityRecordSchema, VSCODE_KINDS } from './fidelity-schema';
export type { FidelityRecord, FidelityWarning } from './fidelity-schema';
export { fidelityRecord, liveWebUrls, requiredApps } from './fidelity';
export type { FidelityInput } from './fidelity';
