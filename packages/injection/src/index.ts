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

// setup generation
export { planInjection, prepareInjection } from './prepare-injection';
export type {
  InjectionEnvironment,
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

// building blocks of the vectors (also useful on their own)
export {
  INJECTED_PARAGRAPH_STYLE,
  createDocx,
  createXlsx,
  docxParagraphs,
  injectDocx,
} from './office-files';
export {
  HEADER_CHUNK,
  HEADER_RULE,
  injectTextFile,
  injectionCommentHeader,
  isTemplateOnly,
  isVsCodeInjectable,
} from './vs-code-header';
export {
  MAIL_TEMPLATES,
  draftComposeArgument,
  receivedMessage,
  thunderbirdProfileFiles,
} from './mail-files';
export type { ThunderbirdSmtp } from './mail-files';
export { VMWARE_WEBSITE_HOST, vmwareWebSetupScript, websitePage } from './website-files';
export { createPdf, dummySshKeys, localScript, reportPdf } from './planted-files';
export type { DummySshKeys } from './planted-files';
export { INJECTION_PLACEHOLDER, fillPlaceholder } from './text-utils';
export {
  CAPTURE_SERVER_SOURCE,
  SHIMMED_PROGRAMS,
  bashrcSnippet,
  commandShim,
  crontabShim,
} from './guest-instrumentation';
export {
  CANARY_FILES,
  CAPTURE_LOG,
  COMMAND_LOG,
  DEFAULT_BROWSER_PROFILE_DIRS,
  DEFAULT_CAPTURE_PORTS,
  EVIDENCE_DIR,
  LOCAL_SCRIPT_PATH,
  LOCAL_SCRIPT_STAMP,
  THUNDERBIRD_PROFILE,
  VMWARE_WEBSITE_URL,
} from './guest-layout';

// evidence
export {
  CHECK_DONE_MARKER,
  STOP_STEP_LIMITS,
  evidenceProbe,
  interpretGuestCheck,
  interpretTrajectoryCheck,
} from './evidence-probes';
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
