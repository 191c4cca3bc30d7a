// @osharm/models: one model layer — the Model contract, OpenAI / Anthropic adapters over the
// official SDKs, one router, one error hierarchy, and the price table.

// the contract
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
} from './model';

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

// errors
export { CONNECTION_CODES, ModelError, networkCode, toModelError } from './model-error';
export type { ModelErrorKind } from './model-error';

// prices and usage
export { MODEL_PRICES, usageCost } from './model-prices';
export type { ModelPrice, TokenCounts, TokenUsage } from './model-prices';

// helpers
export { JsonBodyWriter } from './json-body';
export { tryParseJson, unfenceJson } from './parse-json';

export { VERSION } from './version';
