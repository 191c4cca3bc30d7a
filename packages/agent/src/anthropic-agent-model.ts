import Anthropic from '@anthropic-ai/sdk';
import { AgentSettingError } from './agent-errors';
import { JsonBodyWriter } from './json-body';
import type {
  AgentContentPart,
  AgentModelCallOptions,
  AgentModelResult,
  AgentModelV1,
} from './agent-model';

/** Settings of {@link createAnthropicAgentModel}. */
export interface AnthropicAgentModelSettings {
  /** API key. @default env `ANTHROPIC_API_KEY` */
  readonly apiKey?: string;
  /** Base URL (a proxy or a compatible server). @default env `ANTHROPIC_BASE_URL`, else Anthropic */
  readonly baseURL?: string;
  /**
   * HTTP retries of the SDK on 408/409/429/5xx and timeouts, honouring retry-after (upstream
   * retried up to 10 times, 30 s apart). @default 2
   */
  readonly maxRetries?: number;
  /** Per-request timeout in ms. @default 600000 */
  readonly timeout?: number;
  /**
   * Send `top_p` along with `temperature`. Upstream sent both; Claude models from the 4.1 / 4.5
   * generation on reject the pair. @default false for those models, true for older ones
   */
  readonly sendTopP?: boolean;
  /** Environment to read defaults from. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** A ready client (tests, custom fetch). Overrides apiKey / baseURL / retries / timeout. */
  readonly client?: Anthropic;
}

/** Claude models that answer 400 to `temperature` and `top_p` together. */
export const rejectsTemperatureWithTopP = (modelId: string): boolean =>
  /^claude-(?:(?:opus|sonnet|haiku)-(?:4-[1-9]|[5-9])|[5-9])(?!\d)/.test(modelId);

type AnthropicBlock = Record<string, unknown>;

function toAnthropicBlocks(
  content: readonly AgentContentPart[],
  imageText: (text: string) => string,
): AnthropicBlock[] {
  return content.map(part =>
    part.type === 'text'
      ? { type: 'text', text: part.text }
      : {
          type: 'image',
          source: {
            type: 'base64',
            media_type: part.mediaType ?? 'image/png',
            data: imageText(part.data),
          },
        },
  );
}

export class AnthropicAgentModel implements AgentModelV1 {
  readonly specificationVersion = 'agent-model-v1' as const;
  readonly provider = 'anthropic';
  private clientInstance: Anthropic | undefined;

  constructor(
    readonly modelId: string,
    private readonly settings: AnthropicAgentModelSettings = {},
  ) {
    this.clientInstance = settings.client;
  }

  /** The SDK client, created on first use. */
  get client(): Anthropic {
    if (!this.clientInstance) {
      const env = this.settings.env ?? process.env;
      const apiKey = this.settings.apiKey ?? env.ANTHROPIC_API_KEY;
      if (!apiKey) {
        throw new AgentSettingError({
          message: `no Anthropic API key for model "${this.modelId}": set ANTHROPIC_API_KEY`,
        });
      }
      this.clientInstance = new Anthropic({
        apiKey,
        baseURL: this.settings.baseURL ?? env.ANTHROPIC_BASE_URL,
        maxRetries: this.settings.maxRetries ?? 2,
        timeout: this.settings.timeout ?? 600_000,
      });
    }
    return this.clientInstance;
  }

  /**
   * The Messages API body of a call. The system prompt goes in its own `system` field (upstream
   * merged it into the first user message); images are base64 `image` blocks; consecutive turns of
   * one role are merged, since the API wants roles to alternate.
   */
  buildRequestBody(
    options: Omit<AgentModelCallOptions, 'abortSignal'>,
    imageText: (text: string) => string = text => text,
  ): Record<string, unknown> {
    const messages: { role: 'user' | 'assistant'; content: AnthropicBlock[] }[] = [];
    for (const message of options.messages) {
      const blocks = toAnthropicBlocks(message.content, imageText);
      const last = messages.at(-1);
      if (last && last.role === message.role) last.content.push(...blocks);
      else messages.push({ role: message.role, content: blocks });
    }
    const body: Record<string, unknown> = {
      model: this.modelId,
      max_tokens: options.maxTokens,
      system: options.system,
      messages,
    };
    if (options.temperature !== undefined) body.temperature = options.temperature;
    const sendTopP =
      this.settings.sendTopP ??
      !(options.temperature !== undefined && rejectsTemperatureWithTopP(this.modelId));
    if (options.topP !== undefined && sendTopP) body.top_p = options.topP;
    if (options.stop && options.stop.length > 0) body.stop_sequences = [...options.stop];
    return body;
  }

  /** The JSON bytes of a call's body (images spliced in without a JSON scan; see JsonBodyWriter). */
  encodeRequestBody(options: Omit<AgentModelCallOptions, 'abortSignal'>): Buffer {
    const writer = new JsonBodyWriter();
    return writer.serialize(this.buildRequestBody(options, text => writer.blob(text)));
  }

  async generate(options: AgentModelCallOptions): Promise<AgentModelResult> {
    // Sent as JSON bytes through the SDK, as the OpenAI adapter does (screenshots are megabytes).
    const response = await this.client.post<Anthropic.Message>('/v1/messages', {
      body: this.encodeRequestBody(options),
      headers: { 'content-type': 'application/json' },
      signal: options.abortSignal,
    });
    const text = (response.content ?? [])
      .filter((block): block is Anthropic.TextBlock => block.type === 'text')
      .map(block => block.text)
      .join('');
    return {
      text,
      usage: {
        inputTokens: response.usage?.input_tokens ?? 0,
        outputTokens: response.usage?.output_tokens ?? 0,
      },
      finishReason: response.stop_reason ?? null,
    };
  }
}

/** An agent model served by Anthropic, called through the official `@anthropic-ai/sdk`. */
export function createAnthropicAgentModel(
  modelId: string,
  settings: AnthropicAgentModelSettings = {},
): AnthropicAgentModel {
  return new AnthropicAgentModel(modelId, settings);
}
