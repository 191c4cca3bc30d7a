import { tokensOf } from '@osharm/models';
import {
  createAnthropicMessagesModel,
  type AnthropicMessagesModel,
  type AnthropicMessagesModelSettings,
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

/** Settings of {@link createAnthropicJudgeModel}: those of @osharm/models' Anthropic adapter (`timeout` defaults to 120000 ms here). */
export type AnthropicJudgeModelSettings = Omit<AnthropicMessagesModelSettings, 'sendTopP'>;

export class AnthropicJudgeModel implements JudgeModelV1 {
  readonly specificationVersion = 'judge-model-v1' as const;
  readonly provider = 'anthropic';
  readonly batch: JudgeBatchApi;
  /** The @osharm/models adapter that makes the calls. */
  readonly model: AnthropicMessagesModel;

  constructor(
    readonly modelId: string,
    settings: AnthropicJudgeModelSettings = {},
  ) {
    this.model = createAnthropicMessagesModel(modelId, {
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
    const format = responseFormat(options.output);
    // Anthropic images are base64 blocks (upstream sent OpenAI image_url parts here, which fail);
    // a structured judgment is a forced tool, text calls go at temperature 0.
    return {
      ...(await toModelPrompt(options.prompt, options.images)),
      maxOutputTokens: options.maxOutputTokens ?? (format ? 2048 : 1024),
      ...(format ? { responseFormat: format } : { temperature: 0 }),
    };
  }

  parseResponseBody(body: unknown, output?: StructuredOutput): JudgeModelResult {
    const parsed = this.model.parseResponseBody(body, { responseFormat: responseFormat(output) });
    const usage = tokensOf(parsed.usage);
    if (!output)
      return {
        text: parsed.text,
        usage,
        ...(parsed.finishReason === 'max_tokens' && { truncated: true }),
        response: body,
      };
    const tool = parsed.toolCalls.find(call => call.name === output.name);
    if (tool) return { object: tool.input, usage, response: body };
    if (parsed.text.trim() !== '')
      return {
        text: parsed.text,
        object: parseJsonOutput(parsed.text, this.modelId),
        usage,
        response: body,
      };
    throw new JudgeOutputError({
      message: `${this.modelId}: no "${output.name}" tool call in the answer (stop_reason ${parsed.finishReason ?? 'unknown'})`,
    });
  }

  async generate(options: JudgeModelCallOptions): Promise<JudgeModelResult> {
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

/** A judge model served by Anthropic, called through @osharm/models. */
export function createAnthropicJudgeModel(
  modelId: string,
  settings: AnthropicJudgeModelSettings = {},
): AnthropicJudgeModel {
  return new AnthropicJudgeModel(modelId, settings);
}
