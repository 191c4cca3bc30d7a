// @osharm/model-stand-in: a loopback OpenAI / Anthropic API for tests that use the official SDKs.

export { DEFAULT_BATCH_COMPLETE_AFTER_MS, startModelStandIn } from './model-stand-in';
export type { ModelStandIn, ModelStandInOptions } from './model-stand-in';
export type {
  CallRoute,
  ModelCall,
  ModelVendor,
  RecordedModelCall,
  StructuredOutputMode,
  StructuredOutputRequest,
} from './model-call';
export { checkScriptedReply } from './scripted-reply';
export type {
  ComputerCallsReply,
  HangReply,
  MalformedReply,
  ObjectReply,
  ScriptedReply,
  StatusReply,
  TextReply,
  TokenUsage,
} from './scripted-reply';
export {
  DEFAULT_FAULT_TIMEOUT_MS,
  DEFAULT_RETRY_AFTER_SECONDS,
  createFaultSequence,
  createSeededRandom,
} from './faults';
export type { FaultOptions, ModelFault } from './faults';
