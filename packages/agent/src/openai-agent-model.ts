import OpenAI from 'openai';
import { AgentSettingError } from './agent-errors';
import { JsonBodyWriter } from './json-body';
import type {
  AgentContentPart,
  AgentModelCallOptions,
  AgentModelResult,
  AgentModelV1,
} from './agent-model';

/** Settings of {@link createOpenAIAgentModel}. */
export interface OpenAIAgentModelSettings {
  /** API key. @default env `OPENAI_API_KEY` (a placeholder when only `baseURL` is set, for local servers) */
  readonly apiKey?: string;
  /** Base URL of any OpenAI-compatible server (vLLM, Ollama, a proxy). @default env `OPENAI_BASE_URL`, else OpenAI */
  readonly baseURL?: string;
  /**
   * HTTP retries of the SDK on 408/409/429/5xx and timeouts, honouring retry-after (upstream
   * retried up to 10 times, 30 s apart). @default 2
   */
  readonly maxRetries?: number;
  /** Per-request timeout in ms. @default 600000 (the SDK's; reasoning models can be slow) */
  readonly timeout?: number;
  /**
   * Retry once with only the system message and the last message when the server answers
   * `context_length_exceeded`, as upstream. @default true
   */
  readonly retryShortContext?: boolean;
  /**
   * Whether the model is a reasoning model: `max_completion_tokens` instead of `max_tokens`, and no
   * `temperature`, `top_p` or `stop`. @default true for names starting with `o<digit>` or `gpt-5`
   */
  readonly reasoningModel?: boolean;
  /** Environment to read defaults from. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** A ready client (tests, custom fetch). Overrides apiKey / baseURL / retries / timeout. */
  readonly client?: OpenAI;
}

/** o-series and gpt-5 reasoning models take `max_completion_tokens` and no sampling parameters. */
export const isOpenAIReasoningModel = (modelId: string): boolean =>
  /^o\d/.test(modelId) || /^gpt-5/.test(modelId);

/**
 * What the body carries for an image's `data:` URL, given as its prefix and its base64: the URL
 * itself, or a {@link JsonBodyWriter} placeholder.
 */
type ImageText = (prefix: string, base64: string) => string;

function toOpenAIContent(
  content: readonly AgentContentPart[],
  imageText: ImageText,
): string | Record<string, unknown>[] {
  // Text-only turns go as a string: every OpenAI-compatible server accepts that form.
  if (content.every(part => part.type === 'text'))
    return content.map(part => (part as { text: string }).text).join('\n');
  return content.map(part =>
    part.type === 'text'
      ? { type: 'text', text: part.text }
      : {
          type: 'image_url',
          image_url: {
            url: imageText(`data:${part.mediaType ?? 'image/png'};base64,`, part.data),
            detail: part.detail ?? 'high',
          },
        },
  );
}

function isContextLengthError(error: unknown): boolean {
  return (
    error instanceof OpenAI.APIError &&
    (error.code === 'context_length_exceeded' ||
      (error.error as { code?: unknown } | undefined)?.code === 'context_length_exceeded')
  );
}

export class OpenAIAgentModel implements AgentModelV1 {
  readonly specificationVersion = 'agent-model-v1' as const;
  readonly provider = 'openai';
  private clientInstance: OpenAI | undefined;

  constructor(
    readonly modelId: string,
    private readonly settings: OpenAIAgentModelSettings = {},
  ) {
    this.clientInstance = settings.client;
  }

  /** The SDK client, created on first use (no I/O and no key check at construction). */
  get client(): OpenAI {
    if (!this.clientInstance) {
      const env = this.settings.env ?? process.env;
      const baseURL = this.settings.baseURL ?? env.OPENAI_BASE_URL;
      const apiKey =
        this.settings.apiKey ?? env.OPENAI_API_KEY ?? (baseURL ? 'not-needed' : undefined);
      if (!apiKey) {
        throw new AgentSettingError({
          message: `no OpenAI API key for model "${this.modelId}": set OPENAI_API_KEY, or OPENAI_BASE_URL for an OpenAI-compatible local server`,
        });
      }
      this.clientInstance = new OpenAI({
        apiKey,
        baseURL,
        maxRetries: this.settings.maxRetries ?? 2,
        timeout: this.settings.timeout ?? 600_000,
      });
    }
    return this.clientInstance;
  }

  /**
   * The chat-completions body of a call: the system message first, then the turns. Reasoning
   * models get `max_completion_tokens` and no `temperature`, `top_p` or `stop`.
   */
  buildRequestBody(
    options: Omit<AgentModelCallOptions, 'abortSignal'>,
    imageText: ImageText = (prefix, base64) => prefix + base64,
  ): Record<string, unknown> {
    const messages: Record<string, unknown>[] = [{ role: 'system', content: options.system }];
    for (const message of options.messages)
      messages.push({ role: message.role, content: toOpenAIContent(message.content, imageText) });
    const body: Record<string, unknown> = { model: this.modelId, messages };
    if (this.settings.reasoningModel ?? isOpenAIReasoningModel(this.modelId))
      body.max_completion_tokens = options.maxTokens;
    else {
      body.max_tokens = options.maxTokens;
      if (options.topP !== undefined) body.top_p = options.topP;
      if (options.temperature !== undefined) body.temperature = options.temperature;
      // Reasoning models (o3, o4-mini) reject `stop` as well.
      if (options.stop && options.stop.length > 0) body.stop = [...options.stop];
    }
    return body;
  }

  /** The JSON bytes of a call's body (images spliced in without a JSON scan; see JsonBodyWriter). */
  encodeRequestBody(options: Omit<AgentModelCallOptions, 'abortSignal'>): Buffer {
    const writer = new JsonBodyWriter();
    return writer.serialize(
      this.buildRequestBody(options, (prefix, base64) => writer.blob(prefix, base64)),
    );
  }

  private async post(body: Buffer, abortSignal: AbortSignal | undefined) {
    // Sent as JSON bytes through the SDK (its retries, auth and errors all the same): a body
    // object with megabytes of base64 screenshots handed to `chat.completions.create` would keep
    // those strings and their JSON text on the heap until the answer comes.
    return this.client.post<OpenAI.ChatCompletion>('/chat/completions', {
      body,
      headers: { 'content-type': 'application/json' },
      signal: abortSignal,
    });
  }

  async generate(options: AgentModelCallOptions): Promise<AgentModelResult> {
    const writer = new JsonBodyWriter();
    const body = this.buildRequestBody(options, (prefix, base64) => writer.blob(prefix, base64));
    let response: OpenAI.ChatCompletion;
    let shortenedContext = false;
    try {
      response = await this.post(writer.serialize(body), options.abortSignal);
    } catch (error) {
      const messages = body.messages as unknown[];
      if (
        (this.settings.retryShortContext ?? true) &&
        isContextLengthError(error) &&
        messages.length > 2
      ) {
        // Upstream's fallback: keep the system message and the current turn only.
        body.messages = [messages[0], messages[messages.length - 1]];
        response = await this.post(writer.serialize(body), options.abortSignal);
        shortenedContext = true;
      } else throw error;
    }
    const choice = response.choices?.[0];
    return {
      text: choice?.message?.content ?? '',
      usage: {
        inputTokens: response.usage?.prompt_tokens ?? 0,
        outputTokens: response.usage?.completion_tokens ?? 0,
      },
      finishReason: choice?.finish_reason ?? null,
      ...(shortenedContext ? { shortenedContext } : {}),
    };
  }
}

/**
 * An agent model served by OpenAI or any OpenAI-compatible server (vLLM, Ollama, …), called
 * through the official `openai` SDK. No I/O happens until the first call.
 */
export function createOpenAIAgentModel(
  modelId: string,
  settings: OpenAIAgentModelSettings = {},
): OpenAIAgentModel {
  return new OpenAIAgentModel(modelId, settings);
}
