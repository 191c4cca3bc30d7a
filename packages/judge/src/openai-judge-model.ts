import { tokensOf } from '@osharm/models';
import {
  createOpenAIChatModel,
  type OpenAIChatModel,
  type OpenAIChatModelSettings,
} from '@osharm/models';
import { JudgeOutputError } from './judge-errors';
import type {
  JudgeBatchApi,
  JudgeModelCallOptions,
  JudgeModelResult,
  JudgeModelV1,
  StructuredOutput,
} from './judge-model';
import {
  judgeBatchApi,
  judgeModelError,
  responseFormat,
  toModelPrompt,
} from './judge-model-adapter';
import { parseJsonOutput } from './parse-json-output';

/**
 * Settings of {@link createOpenAIJudgeModel}: those of @osharm/models' OpenAI adapter. Its
 * `structuredOutput` picks how the judgment is requested: `json_schema` (strict response format,
 * default), `tool` (a forced function tool), or `function` (legacy forced `function_call`, as
 * upstream). `timeout` defaults to 120000 ms here.
 */
export type OpenAIJudgeModelSettings = Omit<OpenAIChatModelSettings, 'reasoningModel'>;

export class OpenAIJudgeModel implements JudgeModelV1 {
  readonly specificationVersion = 'judge-model-v1' as const;
  readonly provider = 'openai';
  readonly batch: JudgeBatchApi;
  /** The @osharm/models adapter that makes the calls. */
  readonly model: OpenAIChatModel;

  constructor(
    readonly modelId: string,
    settings: OpenAIJudgeModelSettings = {},
  ) {
    this.model = createOpenAIChatModel(modelId, {
      ...settings,
      timeout: settings.timeout ?? 120_000,
    });
    this.batch = judgeBatchApi(this.model.batch, (body, output) =>
      this.parseResponseBody(body, output),
    );
  }

  async buildRequestBody(
    options: Omit<JudgeModelCallOptions, 'abortSignal'>,
  ): Promise<Record<string, unknown>> {
    return this.model.buildRequestBody(await this.callOptions(options));
  }

  private async callOptions(options: Omit<JudgeModelCallOptions, 'abortSignal'>) {
    const structured = options.output !== undefined;
    const format = responseFormat(options.output);
    // Temperature 0 (and seed 0 for text), as upstream; reasoning models get neither.
    return {
      ...(await toModelPrompt(options.prompt, options.images)),
      maxOutputTokens: options.maxOutputTokens ?? (structured ? 2048 : 1024),
      ...(options.maxTokensField && { maxTokensField: options.maxTokensField }),
      temperature: 0,
      ...(structured ? {} : { seed: 0 }),
      ...(format ? { responseFormat: format } : {}),
    };
  }

  parseResponseBody(body: unknown, output?: StructuredOutput): JudgeModelResult {
    const parsed = this.model.parseResponseBody(body, { responseFormat: responseFormat(output) });
    const usage = tokensOf(parsed.usage);
    const message = (body as { choices?: { message?: unknown }[] } | null)?.choices?.[0]?.message;
    if (!message)
      throw new JudgeOutputError({ message: `${this.modelId}: the response has no message` });
    if (parsed.refusal) {
      throw new JudgeOutputError({
        message: `${this.modelId} refused: ${parsed.refusal}`,
        output: parsed.refusal,
      });
    }
    if (!output)
      return {
        text: parsed.text,
        usage,
        ...(parsed.finishReason === 'length' && { truncated: true }),
        response: body,
      };
    const text = parsed.objectText;
    return { text, object: parseJsonOutput(text, this.modelId), usage, response: body };
  }

  async generate(options: JudgeModelCallOptions): Promise<JudgeModelResult> {
    // Sent as JSON bytes through the SDK by @osharm/models: with screenshots a body is megabytes
    // of base64, and a body object handed to `chat.completions.create` keeps those strings and
    // their JSON text on the V8 heap until the answer comes (bench/judge-bench.ts (c)).
    let raw: unknown;
    try {
      raw = (
        await this.model.generate({
          ...(await this.callOptions(options)),
          signal: options.abortSignal,
        })
      ).raw;
    } catch (error) {
      throw judgeModelError(error);
    }
    return this.parseResponseBody(raw, options.output);
  }
}

/**
 * A judge model served by OpenAI or any OpenAI-compatible server (vLLM, Ollama, …), called through
 * @osharm/models. No I/O happens until the first call.
 */
export function createOpenAIJudgeModel(
  modelId: string,
  settings: OpenAIJudgeModelSettings = {},
): OpenAIJudgeModel {
  return new OpenAIJudgeModel(modelId, settings);
}
