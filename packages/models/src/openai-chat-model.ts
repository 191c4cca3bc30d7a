import type OpenAI from 'openai';
import { openaiClient, type LazyClient } from './vendor-clients';
import { openAIChatUsage } from './usage';
import { preserializedJsonRequest, type ImageText } from './json-body';
import {
  type ModelBatchApi,
  type ModelCallOptions,
  type ModelContentPart,
  type ModelMessage,
  type ModelResult,
  type ModelToolCall,
  type ModelV1,
  acceptedSampling,
  modelCapabilities,
  toModelError,
  tryParseJson,
} from '@osharm/model-spec';
import { createOpenAIBatchApi } from './openai-batch';

/** Settings of {@link createOpenAIChatModel}. */
export interface OpenAIChatModelSettings {
  /** API key. @default env `OPENAI_API_KEY` (a placeholder when a base URL is set, for local servers) */
  readonly apiKey?: string;
  /** Base URL of any OpenAI-compatible server (vLLM, Ollama, a proxy). @default env `OPENAI_BASE_URL`, else OpenAI */
  readonly baseURL?: string;
  /** HTTP retries of the SDK on 408/409/429/5xx, dropped connections and timeouts. @default 2 */
  readonly maxRetries?: number;
  /** Per-request timeout in ms. @default 600000 (the SDK's; reasoning models can be slow) */
  readonly timeout?: number;
  /**
   * How `responseFormat` is requested: `json_schema` (strict response format), `tool` (a forced
   * function tool) or `function` (legacy forced `function_call`, as upstream's judge).
   * @default 'json_schema'
   */
  readonly structuredOutput?: 'json_schema' | 'tool' | 'function';
  /**
   * A reasoning model: `max_completion_tokens` instead of `max_tokens`, and no `temperature`,
   * `top_p`, `stop` or `seed`. @default true for names starting with `o<digit>` or `gpt-5`
   */
  readonly reasoningModel?: boolean;
  /** Environment to read defaults from. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** A ready client (tests, custom fetch). Overrides apiKey / baseURL / retries / timeout. */
  readonly client?: OpenAI;
}

/**
 * Reasoning models take `max_completion_tokens` and no sampling parameters: the capability table's
 * `reasoning` families (gpt-5.x, gpt-6.x, o-series); for a model not in the table, the table's
 * assumption for unknown OpenAI-wire names.
 */
export const isOpenAIReasoningModel = (modelId: string): boolean =>
  modelCapabilities(modelId, 'openai').thinking === 'reasoning';

type Json = Record<string, unknown>;

function userParts(parts: readonly ModelContentPart[], imageText: ImageText): Json[] {
  const out: Json[] = [];
  for (const part of parts) {
    if (part.type === 'text') out.push({ type: 'text', text: part.text });
    else if (part.type === 'image')
      out.push({
        type: 'image_url',
        image_url: {
          url: imageText(`data:${part.mediaType ?? 'image/png'};base64,`, part.data),
          ...(part.detail === null ? {} : { detail: part.detail ?? 'high' }),
        },
      });
  }
  return out;
}

/** The chat messages of one turn: tool results become `tool` messages before the rest. */
function toOpenAIMessages(message: ModelMessage, imageText: ImageText): Json[] {
  if (typeof message.content === 'string')
    return [{ role: message.role, content: message.content }];
  const out: Json[] = [];
  for (const part of message.content) {
    if (part.type !== 'tool-result') continue;
    out.push({
      role: 'tool',
      tool_call_id: part.toolCallId,
      content: typeof part.content === 'string' ? part.content : userParts(part.content, imageText),
    });
  }
  const calls = message.content.filter(part => part.type === 'tool-call');
  const rest = message.content.filter(part => part.type === 'text' || part.type === 'image');
  if (calls.length > 0) {
    const text = rest.map(part => (part.type === 'text' ? part.text : '')).join('');
    out.push({
      role: 'assistant',
      content: text === '' ? null : text,
      tool_calls: calls.map(call => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) },
      })),
    });
  } else if (rest.length > 0 || out.length === 0) {
    out.push({ role: message.role, content: userParts(rest, imageText) });
  }
  return out;
}

interface ChatCompletionBody {
  model?: string;
  choices?: {
    finish_reason?: string | null;
    message?: {
      content?: string | null;
      refusal?: string | null;
      tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[];
      function_call?: { name?: string; arguments?: string };
    };
  }[];
  usage?: unknown;
}

export class OpenAIChatModel implements ModelV1 {
  readonly specificationVersion = 'model-v1' as const;
  readonly batch: ModelBatchApi;
  private clientInstance: LazyClient<OpenAI> | undefined;

  constructor(
    readonly modelId: string,
    private readonly settings: OpenAIChatModelSettings = {},
    /** `openai`, or `openai-compatible` for a named compatible server. */
    readonly provider: 'openai' | 'openai-compatible' = 'openai',
  ) {
    const ready = settings.client;
    this.clientInstance = ready && (async () => ready);
    this.batch = createOpenAIBatchApi(() => this.client(), provider);
  }

  /** The SDK client, created on first use (no I/O, no SDK import and no key check at construction). */
  client(): Promise<OpenAI> {
    this.clientInstance ??= openaiClient(this.modelId, this.settings, {
      provider: this.provider,
      keylessWithBaseUrl: true,
    });
    return this.clientInstance();
  }

  /** The chat-completions body of a call: the system message first, then the turns. */
  buildRequestBody(
    options: Omit<ModelCallOptions, 'signal' | 'timeout' | 'maxRetries'>,
    imageText: ImageText = (prefix, base64) => prefix + base64,
  ): Record<string, unknown> {
    const messages: Json[] = [];
    if (options.system !== undefined)
      messages.push({
        role: 'system',
        content:
          typeof options.system === 'string'
            ? options.system
            : options.system.map(part => ({ type: 'text', text: part.text })),
      });
    for (const message of options.messages) messages.push(...toOpenAIMessages(message, imageText));
    const body: Json = { model: this.modelId, messages };
    const maxTokens = options.maxOutputTokens ?? 1024;
    if (this.settings.reasoningModel ?? isOpenAIReasoningModel(this.modelId))
      body.max_completion_tokens = maxTokens;
    else {
      body[options.maxTokensField ?? 'max_tokens'] = maxTokens;
      // What the capability table says the model takes (an unknown name: everything, as upstream).
      const sampling = acceptedSampling(modelCapabilities(this.modelId, 'openai'), options);
      if (sampling.topP !== undefined) body.top_p = sampling.topP;
      if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
      if (options.seed !== undefined) body.seed = options.seed;
      // Reasoning models (o3, o4-mini) reject `stop` as well.
      if (options.stop && options.stop.length > 0) body.stop = [...options.stop];
    }
    if (options.tools && options.tools.length > 0) {
      body.tools = options.tools.map(tool => ({
        type: 'function',
        function: {
          name: tool.name,
          description: tool.description,
          parameters: tool.parameters,
          ...(tool.strict === undefined ? {} : { strict: tool.strict }),
        },
      }));
    }
    if (options.toolChoice !== undefined) {
      body.tool_choice =
        typeof options.toolChoice === 'string'
          ? options.toolChoice
          : { type: 'function', function: { name: options.toolChoice.name } };
    }
    if (options.responseFormat) {
      const mode = this.settings.structuredOutput ?? 'json_schema';
      const { name, description, schema } = options.responseFormat;
      if (mode === 'json_schema') {
        body.response_format = {
          type: 'json_schema',
          json_schema: { name, description, schema, strict: true },
        };
      } else if (mode === 'tool') {
        body.tools = [
          ...((body.tools as Json[] | undefined) ?? []),
          { type: 'function', function: { name, description, parameters: schema, strict: true } },
        ];
        body.tool_choice = { type: 'function', function: { name } };
      } else {
        body.functions = [{ name, description, parameters: schema }];
        body.function_call = { name };
      }
    }
    return body;
  }

  parseResponseBody(
    body: unknown,
    options: Pick<ModelCallOptions, 'responseFormat'> = {},
  ): ModelResult {
    const response = (body ?? {}) as ChatCompletionBody;
    const choice = response.choices?.[0];
    const message = choice?.message;
    const toolCalls: ModelToolCall[] = (message?.tool_calls ?? []).map((call, index) => ({
      id: call.id ?? `call_${index}`,
      name: call.function?.name ?? '',
      input: tryParseJson(call.function?.arguments),
      inputText: call.function?.arguments ?? '',
    }));
    const modelId = response.model ?? this.modelId;
    const usage = { ...openAIChatUsage(response.usage), modelId };
    let objectText: string | undefined;
    if (options.responseFormat) {
      const name = options.responseFormat.name;
      objectText =
        message?.tool_calls?.find(call => call.function?.name === name)?.function?.arguments ??
        message?.tool_calls?.[0]?.function?.arguments ??
        message?.function_call?.arguments ??
        message?.content ??
        undefined;
    }
    const object = objectText === undefined ? undefined : tryParseJson(objectText);
    return {
      text: message?.content ?? '',
      toolCalls,
      ...(objectText === undefined ? {} : { objectText }),
      ...(object === undefined ? {} : { object }),
      ...(message?.refusal ? { refusal: message.refusal } : {}),
      finishReason: choice?.finish_reason ?? null,
      truncated: choice?.finish_reason === 'length',
      usage,
      modelId,
      raw: body,
    };
  }

  async generate(options: ModelCallOptions): Promise<ModelResult> {
    const request = preserializedJsonRequest(
      imageText => this.buildRequestBody(options, imageText),
      options,
    );
    let response: OpenAI.ChatCompletion;
    try {
      response = await (
        await this.client()
      ).post<OpenAI.ChatCompletion>('/chat/completions', request);
    } catch (error) {
      throw toModelError(error, this.provider);
    }
    return this.parseResponseBody(response, options);
  }
}

/**
 * A model served by OpenAI's Chat Completions API or any OpenAI-compatible server (vLLM, Ollama,
 * …), called through the official `openai` SDK. No I/O happens until the first call.
 */
export function createOpenAIChatModel(
  modelId: string,
  settings: OpenAIChatModelSettings = {},
  provider: 'openai' | 'openai-compatible' = 'openai',
): OpenAIChatModel {
  return new OpenAIChatModel(modelId, settings, provider);
}
