import { tokensOf } from '@osharm/models';
import {
  createAnthropicMessagesModel,
  JsonBodyWriter,
  type AnthropicMessagesModel,
  type AnthropicMessagesModelSettings,
} from '@osharm/models';
import type { AgentModelCallOptions, AgentModelResult, AgentModelV1 } from './agent-model';
import { agentCallOptions, agentModelError } from './openai-agent-model';

/** Settings of {@link createAnthropicAgentModel}: those of @osharm/models' Anthropic adapter. */
export type AnthropicAgentModelSettings = AnthropicMessagesModelSettings;

export class AnthropicAgentModel implements AgentModelV1 {
  readonly specificationVersion = 'agent-model-v1' as const;
  readonly provider = 'anthropic';
  /** The @osharm/models adapter that makes the calls. */
  readonly model: AnthropicMessagesModel;

  constructor(
    readonly modelId: string,
    settings: AnthropicAgentModelSettings = {},
  ) {
    this.model = createAnthropicMessagesModel(modelId, settings);
  }

  /**
   * The Messages API body of a call. The system prompt goes in its own `system` field (upstream
   * merged it into the first user message); images are base64 `image` blocks; consecutive turns of
   * one role are merged, since the API wants roles to alternate.
   */
  buildRequestBody(
    options: Omit<AgentModelCallOptions, 'abortSignal'>,
    imageText?: (prefix: string, base64: string) => string,
  ): Record<string, unknown> {
    return this.model.buildRequestBody(
      agentCallOptions(options, parts => parts),
      imageText,
    );
  }

  /** The JSON bytes of a call's body (images spliced in without a JSON scan; see JsonBodyWriter). */
  encodeRequestBody(options: Omit<AgentModelCallOptions, 'abortSignal'>): Buffer {
    const writer = new JsonBodyWriter();
    return writer.serialize(
      this.buildRequestBody(options, (prefix, base64) => writer.blob(prefix, base64)),
    );
  }

  async generate(options: AgentModelCallOptions): Promise<AgentModelResult> {
    try {
      const result = await this.model.generate({
        ...agentCallOptions(options, parts => parts),
        signal: options.abortSignal,
      });
      return {
        text: result.text,
        usage: tokensOf(result.usage),
        finishReason: result.finishReason,
      };
    } catch (error) {
      throw agentModelError(error);
    }
  }
}

/** An agent model served by Anthropic, called through @osharm/models. */
export function createAnthropicAgentModel(
  modelId: string,
  settings: AnthropicAgentModelSettings = {},
): AnthropicAgentModel {
  return new AnthropicAgentModel(modelId, settings);
}
