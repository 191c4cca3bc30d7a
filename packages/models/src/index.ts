// @osharm/models: one model layer — the Model contract, OpenAI / Anthropic adapters over the
// official SDKs, one router, one error hierarchy, and the price table. The contract, errors,
// prices and JSON helpers live in @osharm/model-spec (no vendor SDK) and are re-exported here.

// the contract (from @osharm/model-spec)
export type {
  ModelBatchApi,
  ModelBatchEntry,
  ModelBatchRequest,
  ModelBatchStatus,
  ModelCallOptions,
  ModelContentPart,
  ModelImagePart,
  ModelMessage,
  ModelProvider,
  ModelResponseFormat,
  ModelResult,
  ModelTextPart,
  ModelTool,
  ModelToolCall,
  ModelToolCallPart,
  ModelToolChoice,
  ModelToolResultPart,
  ModelUsage,
  ModelV1,
} from '@osharm/model-spec';

// routing and endpoints
export { createModel, routeModel } from './router';
export type { ModelRoute, ModelRouting } from './router';
export {
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_SECONDS,
  describeEndpoint,
  endpointRouting,
  missingCredentials,
  resolveEndpoint,
  ROLE_BASE_URL_ENV,
} from './endpoint';
export type { ModelEndpoint, ModelRole } from './endpoint';
export {
  connectionFailure,
  MAX_CONSECUTIVE_CONNECTION_FAILURES,
  redactor,
  unreachableMessage,
} from './endpoint-failures';

// the capability table, retirements and the start check
export {
  acceptedSampling,
  computerToolFor,
  describeLifecycle,
  MODEL_FAMILIES,
  MODEL_RETIREMENTS,
  modelCapabilities,
  modelLifecycle,
  RETIREMENT_WARNING_DAYS,
  samplingRefusal,
} from '@osharm/model-spec';
export type {
  ModelCapabilities,
  ModelFamily,
  ModelLifecycle,
  ModelRetirement,
  SamplingSupport,
  StructuredOutputMethod,
  ThinkingDefault,
} from '@osharm/model-spec';
export { checkModelAtStart, lifecycleRecord, startCheckDay } from './model-start';
export type { ModelLifecycleRecord, ModelStartCheck } from './model-start';

// adapters
export {
  createOpenAIChatModel,
  isOpenAIReasoningModel,
  OpenAIChatModel,
} from './openai-chat-model';
export type { OpenAIChatModelSettings } from './openai-chat-model';
export {
  AnthropicMessagesModel,
  createAnthropicMessagesModel,
  rejectsTemperatureWithTopP,
} from './anthropic-messages-model';
export type { AnthropicMessagesModelSettings } from './anthropic-messages-model';

// native computer use (Anthropic computer tool, OpenAI Responses computer tool, Gemini computer use)
export {
  ANTHROPIC_TOOL_VERSIONS,
  GEMINI_SAFETY_POLICIES,
  GEMINI_TOOL_VERSIONS,
  geminiSafetyRecord,
  OPENAI_TOOL_VERSIONS,
  SAFETY_CHECK_POLICIES,
  checkToolVersion,
  computerUseVendor,
  createComputerUseSession,
  defaultToolVersion,
  geminiEnvironment,
} from './computer-use/index';
export type {
  CallOutcome,
  ComputerUseCall,
  ComputerUseSession,
  ComputerUseSettings,
  ComputerUseTurn,
  ComputerUseVendor,
  GeminiEnvironment,
  GeminiSafetyPolicy,
  GeminiSafetySettings,
  SafetyCheck,
  SafetyCheckPolicy,
  Screenshot,
} from './computer-use/index';

// errors
export { ModelError, toModelError } from '@osharm/model-spec';
export type { ModelErrorKind } from '@osharm/model-spec';

// prices and usage
export {
  addUsage,
  MODEL_PRICES,
  modelPrice,
  tokensOf,
  usageCost,
  usageRecord,
} from '@osharm/model-spec';
export { anthropicUsage, geminiUsage, openAIChatUsage, openAIResponsesUsage } from './usage';
export type { ModelPrice, TokenCounts, TokenUsage, UsageRecord } from '@osharm/model-spec';

// helpers
export { JsonBodyWriter } from './json-body';

export { VERSION } from './version';
