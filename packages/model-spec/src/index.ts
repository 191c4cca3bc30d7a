// @osharm/model-spec: the part of osharm's model layer that needs no vendor SDK — the Model
// contract, token usage, the error hierarchy, the price table. The adapters live in @osharm/models.

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

// errors
export { CONNECTION_CODES, ModelError, networkCode, toModelError } from './model-error';
export type { ModelErrorKind } from './model-error';

// prices and usage
export {
  addUsage,
  MODEL_PRICES,
  modelPrice,
  tokensOf,
  usageCost,
  usageRecord,
} from './model-prices';
export type { ModelPrice, TokenCounts, TokenUsage, UsageRecord } from './model-prices';

// the capability table and retirements
export {
  MODEL_FAMILIES,
  modelCapabilities,
  modelFamilyOf,
  undatedModelId,
} from './model-capabilities';
export { acceptedSampling, computerToolFor, samplingRefusal } from './model-capability-checks';
export type {
  ModelCapabilities,
  ModelFamily,
  ModelImageLimits,
  ModelVendor,
  SamplingSupport,
  StructuredOutputMethod,
  ThinkingDefault,
} from './model-capabilities';
export {
  describeLifecycle,
  MODEL_RETIREMENTS,
  modelLifecycle,
  RETIREMENT_WARNING_DAYS,
} from './model-retirements';
export type { ModelLifecycle, ModelRetirement } from './model-retirements';

// helpers
export { tryParseJson, unfenceJson } from './parse-json';

export { VERSION } from './version';
