import {
  ModelError,
  type ModelBatchApi,
  type ModelCallOptions,
  type ModelContentPart,
  type ModelMessage,
  type ModelResponseFormat,
} from '@osharm/models';
import { JudgeSettingError } from './judge-errors';
import { encodeImage, type ImageOptions } from './judge-images';
import type { JudgeContentPart, JudgePrompt } from './judge-message';
import type { BatchResult, JudgeBatchApi, JudgeModelResult, StructuredOutput } from './judge-model';

/** A judge prompt as @osharm/models messages: images read (and, if asked, resized) from their paths. */
export async function toModelPrompt(
  prompt: JudgePrompt,
  images: ImageOptions | undefined,
): Promise<{ system?: ModelCallOptions['system']; messages: ModelMessage[] }> {
  const messages: ModelMessage[] = [];
  for (const message of prompt.messages) {
    messages.push({
      role: message.role,
      content:
        typeof message.content === 'string'
          ? message.content
          : await toModelParts(message.content, images),
    });
  }
  // The system prompt goes in the form the prompt has (a string, or a part list as upstream's).
  const system = prompt.system;
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
  };
}

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

/** The model-layer response format of a judge's structured output. */
export function responseFormat(
  output: StructuredOutput | undefined,
): ModelResponseFormat | undefined {
  return output && { type: 'json', ...output };
}

/** A missing key becomes the judge's setting error; every other failure stays a `ModelError`. */
export function judgeModelError(error: unknown): unknown {
  return ModelError.isInstance(error) && error.kind === 'setting'
    ? new JudgeSettingError({ message: error.message })
    : error;
}

/** The judge's batch API over a model's: results parsed as the judge parses a live answer. */
export function judgeBatchApi(
  batch: ModelBatchApi,
  parse: (body: unknown, output?: StructuredOutput) => JudgeModelResult,
): JudgeBatchApi {
  const guard = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw judgeModelError(error);
    }
  };
  return {
    submit: ({ requests, abortSignal }) =>
      guard(() => batch.submit({ requests, signal: abortSignal })),
    retrieve: ({ batchId, abortSignal }) =>
      guard(() => batch.retrieve({ batchId, signal: abortSignal })),
    async *results({ batchId, output, abortSignal }): AsyncIterable<BatchResult> {
      for await (const entry of batch.results({ batchId, signal: abortSignal })) {
        if (!entry.ok) {
          yield entry;
          continue;
        }
        try {
          yield { customId: entry.customId, ok: true, result: parse(entry.body, output) };
        } catch (error) {
          yield { customId: entry.customId, ok: false, error: (error as Error).message };
        }
      }
    },
  };
}
