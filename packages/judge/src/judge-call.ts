import {
  ModelError,
  tokensOf,
  type ModelBatchApi,
  type ModelCallOptions,
  type ModelContentPart,
  type ModelMessage,
  type ModelResponseFormat,
  type ModelResult,
  type ModelV1,
  type TokenUsage,
} from '@osharm/models';
import { JudgeOutputError, JudgeSettingError } from './judge-errors';
import { encodeImage, type ImageOptions } from './judge-images';
import type { JudgeContentPart, JudgePrompt } from './judge-message';
import { parseJsonOutput } from './parse-json-output';

/** A structured output request: a JSON Schema object the answer must follow. */
export interface StructuredOutput {
  /** Tool / schema name (`judge_agent_actions` for judgments, as upstream). */
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the object; strict-mode compatible (all keys required, no extra keys). */
  readonly schema: Record<string, unknown>;
}

/** One call of the judge or the captioner. */
export interface JudgeCall {
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

/** What a judge or captioner call returned. */
export interface JudgeAnswer {
  /** The answer text (text calls; structured calls: the JSON text the object came from). */
  readonly text?: string;
  /** The structured object, parsed but not yet validated against the caller's schema. */
  readonly object?: unknown;
  readonly usage: TokenUsage;
  /** True when the answer was cut by the output token limit (OpenAI `length`, Anthropic `max_tokens`). */
  readonly truncated?: boolean;
  /** The vendor's response body, for logging (never contains credentials). */
  readonly response: unknown;
}

/** One result of a provider batch, parsed as a live answer. */
export type JudgeBatchResult =
  | { readonly customId: string; readonly ok: true; readonly result: JudgeAnswer }
  | { readonly customId: string; readonly ok: false; readonly error: string };

const responseFormat = (output: StructuredOutput | undefined): ModelResponseFormat | undefined =>
  output && { type: 'json', ...output };

async function toModelParts(
  parts: readonly JudgeContentPart[],
  images: ImageOptions | undefined,
): Promise<ModelContentPart[]> {
  const out: ModelContentPart[] = [];
  for (const part of parts) {
    if (part.type === 'text') out.push({ type: 'text', text: part.text });
    else {
      const image = await encodeImage(part.path, images);
      out.push({
        type: 'image',
        data: image.base64,
        mediaType: image.mediaType,
        // `null`: no detail named (upstream's captioner); an explicit encoding detail wins.
        detail: images?.detail ?? (part.detail === undefined ? 'high' : part.detail),
      });
    }
  }
  return out;
}

/**
 * The model-layer options of a judge call: images read (and, if asked, resized) from their paths;
 * temperature 0 (and seed 0 for text, as upstream), which the adapter drops where the capability
 * table says the model refuses it. A structured judgment from Anthropic goes without a temperature
 * (a forced tool or `output_config.format`), as the judge always sent it.
 */
export async function judgeCallOptions(
  model: Pick<ModelV1, 'provider'>,
  call: Omit<JudgeCall, 'abortSignal'>,
): Promise<ModelCallOptions> {
  const messages: ModelMessage[] = [];
  for (const message of call.prompt.messages)
    messages.push({
      role: message.role,
      content:
        typeof message.content === 'string'
          ? message.content
          : await toModelParts(message.content, call.images),
    });
  // The system prompt goes in the form the prompt has (a string, or a part list as upstream's).
  const system = call.prompt.system;
  const format = responseFormat(call.output);
  const temperature = !(format && model.provider === 'anthropic');
  return {
    ...(system === undefined
      ? {}
      : {
          system:
            typeof system === 'string'
              ? system
              : system.map(part => ({ type: 'text' as const, text: part.text })),
        }),
    messages,
    maxOutputTokens: call.maxOutputTokens ?? (format ? 2048 : 1024),
    ...(call.maxTokensField && { maxTokensField: call.maxTokensField }),
    ...(temperature && { temperature: 0 }),
    ...(format ? { responseFormat: format } : { seed: 0 }),
  };
}

/** A missing key becomes the judge's setting error; every other failure stays a `ModelError`. */
export function judgeModelError(error: unknown): unknown {
  return ModelError.isInstance(error) && error.kind === 'setting'
    ? new JudgeSettingError({ message: error.message })
    : error;
}

/** Runs a model-layer call (a batch submission or poll) with the judge's setting error. */
export async function judgeGuard<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw judgeModelError(error);
  }
}

/**
 * A model's answer as the judge reads it: a refusal or an answer without a message is a
 * `JudgeOutputError` (retried by the judge); a structured answer's JSON is parsed, tolerating a
 * Markdown fence.
 * @throws {JudgeOutputError}
 */
function judgeAnswer(
  modelId: string,
  result: ModelResult,
  output: StructuredOutput | undefined,
): JudgeAnswer {
  if (result.refusal)
    throw new JudgeOutputError({
      message: `${modelId} refused: ${result.refusal}`,
      output: result.refusal,
    });
  const usage = tokensOf(result.usage);
  const empty =
    result.finishReason === null &&
    result.text === '' &&
    result.toolCalls.length === 0 &&
    result.objectText === undefined;
  if (empty) throw new JudgeOutputError({ message: `${modelId}: the response has no message` });
  if (!output)
    return {
      text: result.text,
      usage,
      ...(result.truncated && { truncated: true }),
      response: result.raw,
    };
  const text = result.objectText;
  return { text, object: parseJsonOutput(text, modelId), usage, response: result.raw };
}

/** Calls a judge or captioner model once. HTTP retries (429, 5xx, timeouts) are the SDK's. */
export async function callJudgeModel(model: ModelV1, call: JudgeCall): Promise<JudgeAnswer> {
  const options = await judgeCallOptions(model, call);
  let result: ModelResult;
  try {
    result = await model.generate({
      ...options,
      ...(call.abortSignal === undefined ? {} : { signal: call.abortSignal }),
    });
  } catch (error) {
    throw judgeModelError(error);
  }
  return judgeAnswer(model.modelId, result, call.output);
}

/** The vendor request body of a judge call (what a batch line carries). Reads images. */
export async function judgeRequestBody(
  model: ModelV1,
  call: Omit<JudgeCall, 'abortSignal'>,
): Promise<Record<string, unknown>> {
  return model.buildRequestBody(await judgeCallOptions(model, call));
}

/** A provider batch's results, each parsed as the judge parses a live answer. */
export async function* judgeBatchResults(
  model: ModelV1,
  batch: ModelBatchApi,
  options: { batchId: string; output?: StructuredOutput; abortSignal?: AbortSignal },
): AsyncIterable<JudgeBatchResult> {
  const format = responseFormat(options.output);
  const entries = batch.results({
    batchId: options.batchId,
    ...(options.abortSignal === undefined ? {} : { signal: options.abortSignal }),
  });
  for await (const entry of entries) {
    if (!entry.ok) {
      yield entry;
      continue;
    }
    try {
      const parsed = model.parseResponseBody(entry.body, format ? { responseFormat: format } : {});
      yield {
        customId: entry.customId,
        ok: true,
        result: judgeAnswer(model.modelId, parsed, options.output),
      };
    } catch (error) {
      yield { customId: entry.customId, ok: false, error: (error as Error).message };
    }
  }
}
