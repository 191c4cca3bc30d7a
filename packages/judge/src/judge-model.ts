import type { JudgePrompt } from './judge-message';
import type { ImageOptions } from './judge-images';

import type { ModelBatchRequest, ModelBatchStatus, TokenUsage } from '@osharm/models';

export type { TokenUsage };

/** A structured output request: a JSON Schema object the answer must follow. */
export interface StructuredOutput {
  /** Tool / schema name (`judge_agent_actions` for judgments, as upstream). */
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the object; strict-mode compatible (all keys required, no extra keys). */
  readonly schema: Record<string, unknown>;
}

/** Options of one model call. */
export interface JudgeModelCallOptions {
  readonly prompt: JudgePrompt;
  /** Ask for a structured object instead of text. */
  readonly output?: StructuredOutput;
  /** @default 2048 for structured output (upstream), 1024 for text (captions) */
  readonly maxOutputTokens?: number;
  /** How images are encoded (resize / recompress). @default sent as stored, detail `high` */
  readonly images?: ImageOptions;
  /**
   * OpenAI: the field the output limit goes in (`max_completion_tokens`, as upstream's captioner).
   * @default `max_tokens`; reasoning models always get `max_completion_tokens`
   */
  readonly maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  readonly abortSignal?: AbortSignal;
}

/** What a model call returned. */
export interface JudgeModelResult {
  /** The answer text (for text calls; for structured calls the raw JSON text when the vendor gives one). */
  readonly text?: string;
  /** The structured object, parsed but not yet validated against the caller's schema. */
  readonly object?: unknown;
  readonly usage: TokenUsage;
  /** True when the answer was cut by the output token limit (OpenAI `length`, Anthropic `max_tokens`). */
  readonly truncated?: boolean;
  /** The vendor's response body, for logging (never contains credentials). */
  readonly response: unknown;
}

/** One request of a provider batch (the model layer's, under the judge's name). */
export type BatchRequest = ModelBatchRequest;

/** State of a provider batch (the model layer's, under the judge's name). */
export type BatchStatus = ModelBatchStatus;

/** One result of a provider batch. */
export type BatchResult =
  | { readonly customId: string; readonly ok: true; readonly result: JudgeModelResult }
  | { readonly customId: string; readonly ok: false; readonly error: string };

/**
 * Provider batch APIs (OpenAI Batch API, Anthropic Message Batches): half price, results within
 * 24 h. Optional capability of a model.
 */
export interface JudgeBatchApi {
  submit(options: {
    requests: readonly BatchRequest[];
    abortSignal?: AbortSignal;
  }): Promise<string>;
  retrieve(options: { batchId: string; abortSignal?: AbortSignal }): Promise<BatchStatus>;
  results(options: {
    batchId: string;
    output?: StructuredOutput;
    abortSignal?: AbortSignal;
  }): AsyncIterable<BatchResult>;
}

/**
 * A model the judge (and the captioner) can call. Implemented by `createOpenAIJudgeModel` and
 * `createAnthropicJudgeModel`; a third party may implement it for any other backend.
 */
export interface JudgeModelV1 {
  readonly specificationVersion: 'judge-model-v1';
  /** `openai` (also any OpenAI-compatible server) or `anthropic`. */
  readonly provider: string;
  /** The model id sent to the provider (also the judgment directory name). */
  readonly modelId: string;
  /**
   * Where the model is served: the endpoint's origin (`https://api.openai.com`,
   * `http://127.0.0.1:8000`), recorded in provenance and used to share one connection limiter per
   * endpoint. Never a path or key. Set by `withEndpoint` / `createEndpointModel`.
   */
  readonly endpoint?: string;
  /** Calls the model once. HTTP retries (429, 5xx, timeouts) are the SDK's. */
  generate(options: JudgeModelCallOptions): PromiseLike<JudgeModelResult>;
  /** The vendor request body for a call (what a batch line carries). Reads images. */
  buildRequestBody(
    options: Omit<JudgeModelCallOptions, 'abortSignal'>,
  ): Promise<Record<string, unknown>>;
  /** Parses a vendor response body (from a batch) the way `generate` parses a live answer. */
  parseResponseBody(body: unknown, output?: StructuredOutput): JudgeModelResult;
  /** Provider batch API, when the provider has one. */
  readonly batch?: JudgeBatchApi;
}
