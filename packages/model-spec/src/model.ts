import type { TokenUsage } from './model-prices';

/** A text part of a message. */
export interface ModelTextPart {
  readonly type: 'text';
  readonly text: string;
}

/** An image part of a message: base64 bytes, sent inline. */
export interface ModelImagePart {
  readonly type: 'image';
  /** Base64 of the image bytes (no `data:` prefix). */
  readonly data: string;
  /** @default 'image/png' */
  readonly mediaType?: 'image/png' | 'image/jpeg' | 'image/webp';
  /**
   * OpenAI's image detail level; Anthropic has none. `null` names no level (the part has no
   * `detail` key: the API's default, `auto`). @default 'high' (upstream's agent and judge level)
   */
  readonly detail?: 'high' | 'low' | 'auto' | null;
}

/** A tool call the model made earlier, replayed in an assistant turn. */
export interface ModelToolCallPart {
  readonly type: 'tool-call';
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

/** The result of a tool call, sent back in a user turn. */
export interface ModelToolResultPart {
  readonly type: 'tool-result';
  readonly toolCallId: string;
  readonly content: string | readonly (ModelTextPart | ModelImagePart)[];
  readonly isError?: boolean;
}

export type ModelContentPart =
  ModelTextPart | ModelImagePart | ModelToolCallPart | ModelToolResultPart;

/**
 * One turn of the conversation. A string is sent as is; a part list as the vendor's part list
 * (OpenAI: a text-only list stays a list; callers that want the string form join it themselves).
 */
export interface ModelMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string | readonly ModelContentPart[];
}

/** A function tool the model may call. */
export interface ModelTool {
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of the arguments object. */
  readonly parameters: Record<string, unknown>;
  /** OpenAI strict mode (all keys required, no extra keys). @default false */
  readonly strict?: boolean;
}

/** Which tools the model may or must call. */
export type ModelToolChoice = 'auto' | 'none' | 'required' | { readonly name: string };

/**
 * Ask for a structured object following a JSON Schema. OpenAI: a strict `json_schema` response
 * format (or, per the adapter's `structuredOutput` setting, a forced tool or a legacy forced
 * function); Anthropic: a forced tool.
 */
export interface ModelResponseFormat {
  readonly type: 'json';
  /** Schema / tool name. */
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of the object; strict-mode compatible (all keys required, no extra keys). */
  readonly schema: Record<string, unknown>;
}

/** Options of one model call. */
export interface ModelCallOptions {
  /**
   * The system prompt (OpenAI: a first `system` message; Anthropic: the `system` field). A string
   * is sent as a string; text parts as the vendor's part list (OpenAI: `[{type: 'text', …}]`,
   * Anthropic: text blocks) — the form a caller reproducing another tool's wire picks.
   */
  readonly system?: string | readonly ModelTextPart[];
  /** The turns, oldest first; the last is normally `user`. */
  readonly messages: readonly ModelMessage[];
  /** Output token limit (`max_completion_tokens` for OpenAI reasoning models). @default 1024 */
  readonly maxOutputTokens?: number;
  /**
   * OpenAI Chat Completions: the field the output limit goes in. `max_completion_tokens` is taken
   * by every OpenAI model; `max_tokens` (deprecated) is refused by reasoning models, which get
   * `max_completion_tokens` whatever is asked. Other vendors have one field and ignore this.
   * @default 'max_completion_tokens' for reasoning models, else 'max_tokens'
   */
  readonly maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Not sent to OpenAI reasoning models (o-series, gpt-5). */
  readonly temperature?: number;
  /** Not sent to OpenAI reasoning models, nor to Claude models that refuse it with a temperature. */
  readonly topP?: number;
  /** Stop sequences (OpenAI `stop`, not sent to reasoning models; Anthropic `stop_sequences`). */
  readonly stop?: readonly string[];
  /** OpenAI `seed` (not sent to reasoning models); Anthropic has none. */
  readonly seed?: number;
  readonly tools?: readonly ModelTool[];
  readonly toolChoice?: ModelToolChoice;
  readonly responseFormat?: ModelResponseFormat;
  readonly signal?: AbortSignal;
  /** This request's timeout in ms (the SDK's `timeout`). @default the adapter's */
  readonly timeout?: number;
  /** This request's HTTP retries (the SDK's `maxRetries`). @default the adapter's */
  readonly maxRetries?: number;
}

/** A tool call in an answer. */
export interface ModelToolCall {
  readonly id: string;
  readonly name: string;
  /** The arguments, parsed (undefined when the model's JSON does not parse; see `inputText`). */
  readonly input: unknown;
  /** The arguments as the model wrote them (OpenAI gives text; Anthropic an object, re-serialized). */
  readonly inputText: string;
}

/** Token usage of a call and the model that actually served it (the response's `model`). */
export interface ModelUsage extends TokenUsage {
  readonly modelId: string;
}

/** What a model call returned. */
export interface ModelResult {
  /** The answer text (empty when the model gave none). */
  readonly text: string;
  readonly toolCalls: readonly ModelToolCall[];
  /**
   * With `responseFormat`: the structured object, parsed (a Markdown fence around JSON text is
   * tolerated) but not validated; undefined when the answer has none or it does not parse.
   */
  readonly object?: unknown;
  /** With `responseFormat`: the JSON text the object came from (tool arguments or content). */
  readonly objectText?: string;
  /** The model's refusal text (OpenAI `message.refusal`), when it refused. */
  readonly refusal?: string;
  /** The vendor's finish reason (`stop`, `length`, `tool_calls`, `end_turn`, `max_tokens`, …). */
  readonly finishReason: string | null;
  /** True when the answer was cut by the output token limit. */
  readonly truncated: boolean;
  readonly usage: ModelUsage;
  /** The model that served the call (the response's `model`, else the id asked for). */
  readonly modelId: string;
  /** The vendor's response body (never holds credentials). */
  readonly raw: unknown;
}

/** One request of a provider batch: a vendor body from `buildRequestBody`. */
export interface ModelBatchRequest {
  readonly customId: string;
  readonly body: Record<string, unknown>;
}

/** State of a provider batch. */
export interface ModelBatchStatus {
  readonly id: string;
  /** True once the provider will do no more work on it (completed, failed, expired, cancelled). */
  readonly done: boolean;
  /** Provider status text (`in_progress`, `completed`, `ended`, …). */
  readonly status: string;
  readonly total: number;
  readonly completed: number;
  readonly failed: number;
}

/** One raw result of a provider batch: the vendor response body, or why it failed. */
export type ModelBatchEntry =
  | { readonly customId: string; readonly ok: true; readonly body: unknown }
  | { readonly customId: string; readonly ok: false; readonly error: string };

/** Provider batch APIs (OpenAI Batch API, Anthropic Message Batches): half price, within 24 h. */
export interface ModelBatchApi {
  submit(options: {
    requests: readonly ModelBatchRequest[];
    signal?: AbortSignal;
  }): Promise<string>;
  retrieve(options: { batchId: string; signal?: AbortSignal }): Promise<ModelBatchStatus>;
  results(options: { batchId: string; signal?: AbortSignal }): AsyncIterable<ModelBatchEntry>;
}

/** Which wire format an adapter speaks. */
export type ModelProvider = 'openai' | 'anthropic' | 'openai-compatible' | 'google';

/**
 * A model behind one vendor API. Implemented by `OpenAIChatModel` (also any OpenAI-compatible
 * server) and `AnthropicMessagesModel`; a third party may implement it for any other backend.
 */
export interface ModelV1 {
  readonly specificationVersion: 'model-v1';
  /** `openai`, `openai-compatible`, `anthropic`, or a third party's name. */
  readonly provider: string;
  /** The model id sent to the provider. */
  readonly modelId: string;
  /**
   * Where the model is served: the endpoint's origin (`https://api.openai.com`,
   * `http://127.0.0.1:8000`), never a path or key; set by whoever places the model (@osharm/models'
   * `withEndpoint`), recorded in provenance and keying connection limits. Undefined: not said.
   */
  readonly endpoint?: string;
  /**
   * Calls the model once. HTTP retries (408, 409, 429, 5xx, dropped connections, timeouts) are
   * the SDK's, honouring `retry-after`.
   * @throws {ModelError} for every failure (kinds: connection, refused, dns, timeout, rate-limit,
   * server, auth, bad-request, not-found, setting, aborted, other).
   */
  generate(options: ModelCallOptions): Promise<ModelResult>;
  /**
   * The vendor request body of a call (what a batch line carries). `imageText` turns an image's
   * `data:` URL prefix and base64 into the string placed in the body (see `JsonBodyWriter`).
   */
  buildRequestBody(
    options: Omit<ModelCallOptions, 'signal' | 'timeout' | 'maxRetries'>,
    imageText?: (prefix: string, base64: string) => string,
  ): Record<string, unknown>;
  /** Parses a vendor response body (a batch result) the way `generate` parses a live answer. */
  parseResponseBody(body: unknown, options?: Pick<ModelCallOptions, 'responseFormat'>): ModelResult;
  /** Provider batch API, when the provider has one. */
  readonly batch?: ModelBatchApi;
}
