import type Anthropic from '@anthropic-ai/sdk';
import { anthropicClient, type LazyClient } from './vendor-clients';
import { anthropicUsage } from './usage';
import { createAnthropicBatchApi } from './anthropic-batch';
import { preserializedJsonRequest, type ImageText } from './json-body';
import {
  type ModelBatchApi,
  type ModelCallOptions,
  type ModelContentPart,
  type ModelResult,
  type ModelToolCall,
  type ModelV1,
  acceptedSampling,
  modelCapabilities,
  toModelError,
  tryParseJson,
} from '@osharm/model-spec';

/** Settings of {@link createAnthropicMessagesModel}. */
export interface AnthropicMessagesModelSettings {
  /** API key. @default env `ANTHROPIC_API_KEY` */
  readonly apiKey?: string;
  /** Base URL (a proxy or a compatible server). @default env `ANTHROPIC_BASE_URL`, else Anthropic */
  readonly baseURL?: string;
  /** HTTP retries of the SDK on 408/409/429/5xx, dropped connections and timeouts. @default 2 */
  readonly maxRetries?: number;
  /** Per-request timeout in ms. @default 600000 */
  readonly timeout?: number;
  /**
   * Send `top_p` along with `temperature` whatever the capability table says (upstream sent both;
   * the table's Claude families refuse the pair or any sampling value). @default false
   */
  readonly sendTopP?: boolean;
  /** Environment to read defaults from. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** A ready client (tests, custom fetch). Overrides apiKey / baseURL / retries / timeout. */
  readonly client?: Anthropic;
}

/** Claude models that answer 400 to `temperature` and `top_p` together (per the capability table). */
export const rejectsTemperatureWithTopP = (modelId: string): boolean =>
  modelCapabilities(modelId, 'anthropic').sampling !== 'any';

type Block = Record<string, unknown>;

function toBlocks(content: string | readonly ModelContentPart[], imageText: ImageText): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part): Block => {
    switch (part.type) {
      case 'text':
        return { type: 'text', text: part.text };
      case 'image':
        return {
          type: 'image',
          source: {
            type: 'base64',
            media_type: part.mediaType ?? 'image/png',
            data: imageText('', part.data),
          },
        };
      case 'tool-call':
        return { type: 'tool_use', id: part.id, name: part.name, input: part.input ?? {} };
      case 'tool-result':
        return {
          type: 'tool_result',
          tool_use_id: part.toolCallId,
          content:
            typeof part.content === 'string' ? part.content : toBlocks(part.content, imageText),
          ...(part.isError ? { is_error: true } : {}),
        };
    }
  });
}

interface MessageBody {
  model?: string;
  content?: (
    | { type: 'text'; text: string }
    | { type: 'tool_use'; id?: string; name: string; input: unknown }
    | { type: string }
  )[];
  usage?: unknown;
  stop_reason?: string | null;
}

export class AnthropicMessagesModel implements ModelV1 {
  readonly specificationVersion = 'model-v1' as const;
  readonly provider = 'anthropic';
  readonly batch: ModelBatchApi;
  private clientInstance: LazyClient<Anthropic> | undefined;

  constructor(
    readonly modelId: string,
    private readonly settings: AnthropicMessagesModelSettings = {},
  ) {
    const ready = settings.client;
    this.clientInstance = ready && (async () => ready);
    this.batch = createAnthropicBatchApi(() => this.client(), this.provider);
  }

  /** The SDK client, created on first use. */
  client(): Promise<Anthropic> {
    this.clientInstance ??= anthropicClient(this.modelId, this.settings);
    return this.clientInstance();
  }

  /**
   * The Messages API body of a call. The system prompt goes in its own `system` field; images are
   * base64 `image` blocks; consecutive turns of one role are merged (the API wants roles to
   * alternate); `responseFormat` is a forced tool.
   */
  buildRequestBody(
    options: Omit<ModelCallOptions, 'signal' | 'timeout' | 'maxRetries'>,
    imageText: ImageText = (prefix, base64) => prefix + base64,
  ): Record<string, unknown> {
    const messages: { role: 'user' | 'assistant'; content: Block[] }[] = [];
    for (const message of options.messages) {
      const blocks = toBlocks(message.content, imageText);
      const last = messages.at(-1);
      if (last && last.role === message.role) last.content.push(...blocks);
      else messages.push({ role: message.role, content: blocks });
    }
    const body: Record<string, unknown> = {
      model: this.modelId,
      max_tokens: options.maxOutputTokens ?? 1024,
      messages,
    };
    if (options.system !== undefined)
      body.system =
        typeof options.system === 'string'
          ? options.system
          : options.system.map(part => ({ type: 'text', text: part.text }));
    // Sampling and structured output as the capability table says the model takes them: no
    // `temperature` for Opus 4.7+ / Fable / Mythos, never with `top_p` from 4.5 on; an object by
    // `output_config.format` where the model has it (a forced tool fails where thinking is on).
    const capabilities = modelCapabilities(this.modelId, 'anthropic');
    const sampling = this.settings.sendTopP
      ? { temperature: options.temperature, topP: options.topP }
      : acceptedSampling(capabilities, options);
    if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
    if (sampling.topP !== undefined) body.top_p = sampling.topP;
    if (options.stop && options.stop.length > 0) body.stop_sequences = [...options.stop];
    const tools: Block[] = (options.tools ?? []).map(tool => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.parameters,
    }));
    if (options.responseFormat && capabilities.structuredOutput === 'output_config.format') {
      body.output_config = {
        format: { type: 'json_schema', schema: options.responseFormat.schema },
      };
      if (tools.length > 0) body.tools = tools;
    } else if (options.responseFormat) {
      const { name, description, schema } = options.responseFormat;
      tools.push({ name, description, input_schema: schema });
      body.tools = tools;
      body.tool_choice = { type: 'tool', name };
    } else {
      if (tools.length > 0) body.tools = tools;
      const choice = options.toolChoice;
      if (choice !== undefined)
        body.tool_choice =
          choice === 'required'
            ? { type: 'any' }
            : typeof choice === 'string'
              ? { type: choice }
              : { type: 'tool', name: choice.name };
    }
    return body;
  }

  parseResponseBody(
    body: unknown,
    options: Pick<ModelCallOptions, 'responseFormat'> = {},
  ): ModelResult {
    const response = (body ?? {}) as MessageBody;
    const blocks = response.content ?? [];
    const text = blocks
      .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
      .map(block => block.text)
      .join('');
    const toolCalls: ModelToolCall[] = blocks
      .filter(
        (block): block is { type: 'tool_use'; id?: string; name: string; input: unknown } =>
          block.type === 'tool_use',
      )
      .map((block, index) => ({
        id: block.id ?? `toolu_${index}`,
        name: block.name,
        input: block.input,
        inputText: JSON.stringify(block.input ?? null),
      }));
    const modelId = response.model ?? this.modelId;
    let object: unknown;
    let objectText: string | undefined;
    if (options.responseFormat) {
      const tool = toolCalls.find(call => call.name === options.responseFormat!.name);
      if (tool) {
        object = tool.input;
        objectText = tool.inputText;
      } else if (text.trim() !== '') {
        objectText = text;
        object = tryParseJson(text);
      }
    }
    return {
      text,
      toolCalls,
      ...(objectText === undefined ? {} : { objectText }),
      ...(object === undefined ? {} : { object }),
      finishReason: response.stop_reason ?? null,
      truncated: response.stop_reason === 'max_tokens',
      usage: { ...anthropicUsage(response.usage), modelId },
      modelId,
      raw: body,
    };
  }

  async generate(options: ModelCallOptions): Promise<ModelResult> {
    const request = preserializedJsonRequest(
      imageText => this.buildRequestBody(options, imageText),
      options,
    );
    let response: Anthropic.Message;
    try {
      response = await (await this.client()).post<Anthropic.Message>('/v1/messages', request);
    } catch (error) {
      throw toModelError(error, this.provider);
    }
    return this.parseResponseBody(response, options);
  }
}

/** A model served by Anthropic's Messages API, called through the official `@anthropic-ai/sdk`. */
export function createAnthropicMessagesModel(
  modelId: string,
  settings: AnthropicMessagesModelSettings = {},
): AnthropicMessagesModel {
  return new AnthropicMessagesModel(modelId, settings);
}
