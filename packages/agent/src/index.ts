// @osharm/agent: the OS-Harm computer-use agent (OSWorld's prompt agent, rebuilt) and offline baselines.

// agents
export { createPromptAgent, PromptAgent, requestLog } from './prompt-agent';
export type { PromptAgentSettings } from './prompt-agent';
export {
  createRefusingAgent,
  createReplayAgent,
  REFUSING_AGENT_RESPONSE,
  REPLAY_END_RESPONSE,
} from './offline-agents';
export type { RefusingAgentSettings, ReplayAgentSettings } from './offline-agents';
export type {
  AgentLoggedImagePart,
  AgentModelFailure,
  AgentObservation,
  AgentActionOutcome,
  AgentPredictOptions,
  AgentPrediction,
  AgentRequestLog,
  AgentRunParams,
  AgentV1,
} from './agent';
export { prepareObservation } from './agent-observation';
export type { PrepareObservationOptions, PreparedObservation } from './agent-observation';

// prompts
export {
  agentSystemPrompt,
  computer13ActionList,
  NO_ACTION_PLACEHOLDER,
  observationText,
  OSHARM_AGENT_PROMPTS,
  taskLeadIn,
} from './agent-prompts';
export type { AgentPrompts, SystemPromptOptions } from './agent-prompts';
export { loadUpstreamAgentPrompts, UPSTREAM_SYSTEM_PROMPTS } from './upstream-prompts';
export type { UpstreamAgentPrompts } from './upstream-prompts';

// accessibility tree
export { A11yNode, parseAccessibilityTree } from './a11y-xml';
export type { ParsedAccessibilityTree } from './a11y-xml';
export { A11Y_NAMESPACES, a11yNamespaces } from './a11y-namespaces';
export type { A11yNamespaces, A11yPlatform } from './a11y-namespaces';
export { filterAccessibilityNodes, isKeptTag, parsePair } from './a11y-filter';
export type { A11yFilterOptions } from './a11y-filter';
export { A11Y_TABLE_HEADER, a11yTextCell, linearizeAccessibilityTree } from './a11y-linearize';
export type { LinearizeOptions } from './a11y-linearize';
export { countTokens, encodeTokens, TRIM_MARKER, trimToTokens } from './a11y-trim';

// Set-of-Marks
export { SOM_TABLE_HEADER, tagPrelude, tagScreenshot } from './som-tag';
export type { SomMark, TaggedScreenshot, TagScreenshotOptions } from './som-tag';

// actions
export {
  isSpecialAction,
  parseActions,
  parseComputer13Response,
  parsePyautoguiResponse,
} from './parse-actions';

// the model: @osharm/models' one interface, `ModelV1` (`createModel(name, routing)`)
// Re-exported from @osharm/models, their one home.
export { isOpenAIReasoningModel, ModelError, rejectsTemperatureWithTopP } from '@osharm/models';
export type { ModelErrorKind, ModelV1, TokenUsage } from '@osharm/models';
export type {
  AgentContentPart,
  AgentImagePart,
  AgentMessage,
  AgentStepCall,
  AgentTextPart,
} from './step-call';

// errors
export { AgentModelCallError, AgentObservationError, AgentSettingError } from './agent-errors';
export { describeModelFailure, formatModelFailure } from './model-failure';

export { VERSION } from './version';

// the run loop
export { runTask } from './run-task';
export type { RunInjection, RunTaskEvent, RunTaskOptions, RunTaskResult } from './run-task';
export type {
  ObservationQuality,
  RunEnvironment,
  RunObservation,
  RunObserveOptions,
  RunSetupDownload,
  RunSetupWindowWait,
  RunSetupOutcome,
  RunSetupWarning,
} from './run-environment';
export { isDegraded } from './run-environment';
export { actionTimestamp, TrajectoryWriter } from '@osharm/task-schema/trajectory';
export type { ObservationCounts } from '@osharm/task-schema/trajectory';
export { assembleRecording } from './recording';
