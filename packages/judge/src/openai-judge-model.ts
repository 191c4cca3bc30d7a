import OpenAI, { toFile } from 'openai';
import { registerSecret } from '@osharm/task-schema';
import type { JudgeContentPart, JudgePrompt } from './judge-message';
import { encodeImage, type ImageOptions } from './judge-images';
import { JudgeOutputError, JudgeSettingError } from './judge-errors';
import type {
  BatchResult,
  BatchStatus,
  JudgeBatchApi,
  JudgeModelCallOptions,
  JudgeModelResult,
  JudgeModelV1,
  StructuredOutput,
} from './judge-model';
import { parseJsonOutput } from './parse-json-output';

/** Settings of {@link createOpenAIJudgeModel}. */
export interface OpenAIJudgeModelSettings {
  /** API key. @default env `OPENAI_API_KEY` (a placeholder when only `baseURL` is set, for local servers) */
  readonly apiKey?: string;
  /** Base URL of any OpenAI-compatible server (vLLM, Ollama, a proxy). @default env `OPENAI_BASE_URL`, else OpenAI */
  readonly baseURL?: string;
  /** HTTP retries of the SDK on 408/409/429/5xx and timeouts (honouring retry-after). @default 2 */
  readonly maxRetries?: number;
  /** Per-request timeout in ms. @default 120000 */
  readonly timeout?: number;
  /**
   * How the structured judgment is requested: `json_schema` (strict response format, default),
   * `tool` (a forced function tool), or `function` (legacy forced `function_call`, as upstream).
   */
  readonly structuredOutput?: 'json_schema' | 'tool' | 'function';
  /** Environment to read defaults from. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** A ready client (tests, custom fetch). Overrides apiKey / baseURL / retries / timeout. */
  readonly client?: OpenAI;
}

/** o-series reasoning models take `max_completion_tokens` and no temperature. */
const isReasoningModel = (modelId: string) => /^o\d/.test(modelId) || /^gpt-5/.test(modelId);

type ChatMessage = Record<string, unknown>;

async function toOpenAIContent(
  content: string | readonly JudgeContentPart[],
  images: ImageOptions | undefined,
): Promise<string | Record<string, unknown>[]> {
  if (typeof content === 'string') return content;
  const parts: Record<string, unknown>[] = [];
  for (const part of content) {
    if (part.type === 'text') parts.push({ type: 'text', text: part.text });
    else {
      const image = await encodeImage(part.path, images);
      parts.push({
        type: 'image_url',
        image_url: {
          url: `data:${image.mediaType};base64,${image.base64}`,
          detail: images?.detail ?? part.detail ?? 'high',
        },
      });
    }
  }
  return parts;
}

/** The OpenAI chat messages of a prompt (system first). */
export async function toOpenAIMessages(
  prompt: JudgePrompt,
  images?: ImageOptions,
): Promise<ChatMessage[]> {
  const messages: ChatMessage[] = [];
  if (prompt.system !== undefined) {
    messages.push({
      role: 'system',
      content:
        typeof prompt.system === 'string'
          ? prompt.system
          : prompt.system.map(part => part.text).join('\n'),
    });
  }
  for (const message of prompt.messages) {
    messages.push({ role: message.role, content: await toOpenAIContent(message.content, images) });
  }
  return messages;
}

export class OpenAIJudgeModel implements JudgeModelV1 {
  readonly specificationVersion = 'judge-model-v1' as const;
  readonly provider = 'openai';
  readonly batch: JudgeBatchApi;
  private clientInstance: OpenAI | undefined;

  constructor(
    readonly modelId: string,
    private readonly settings: OpenAIJudgeModelSettings = {},
  ) {
    this.clientInstance = settings.client;
    this.batch = {
      submit: options => this.submitBatch(options),
      retrieve: options => this.retrieveBatch(options),
      results: options => this.batchResults(options),
    };
  }

  /** The SDK client, created on first use (no I/O and no key check at construction). */
  get client(): OpenAI {
    if (!this.clientInstance) {
      const env = this.settings.env ?? process.env;
      const baseURL = this.settings.baseURL ?? env.OPENAI_BASE_URL;
      const apiKey =
        this.settings.apiKey ?? env.OPENAI_API_KEY ?? (baseURL ? 'not-needed' : undefined);
      registerSecret(apiKey === 'not-needed' ? undefined : apiKey);
      if (!apiKey) {
        throw new JudgeSettingError({
          message: `no OpenAI API key for model "${this.modelId}": set OPENAI_API_KEY, or OPENAI_BASE_URL for an OpenAI-compatible local server`,
        });
      }
      this.clientInstance = new OpenAI({
        apiKey,
        baseURL,
        maxRetries: this.settings.maxRetries ?? 2,
        timeout: this.settings.timeout ?? 120_000,
      });
    }
    return this.clientInstance;
  }

  async buildRequestBody(
    options: Omit<JudgeModelCallOptions, 'abortSignal'>,
  ): Promise<Record<string, unknown>> {
    const structured = options.output !== undefined;
    const maxTokens = options.maxOutputTokens ?? (structured ? 2048 : 1024);
    const body: Record<string, unknown> = {
      model: this.modelId,
      messages: await toOpenAIMessages(options.prompt, options.images),
    };
    if (isReasoningModel(this.modelId)) body.max_completion_tokens = maxTokens;
    else {
      body.max_tokens = maxTokens;
      body.temperature = 0;
      if (!structured) body.seed = 0;
    }
    if (options.output) {
      const mode = this.settings.structuredOutput ?? 'json_schema';
      const { name, description, schema } = options.output;
      if (mode === 'json_schema') {
        body.response_format = {
          type: 'json_schema',
          json_schema: { name, description, schema, strict: true },
        };
      } else if (mode === 'tool') {
        body.tools = [
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

  parseResponseBody(body: unknown, output?: StructuredOutput): JudgeModelResult {
    const response = body as {
      choices?: {
        finish_reason?: string | null;
        message?: {
          content?: string | null;
          refusal?: string | null;
          tool_calls?: { function?: { arguments?: string } }[];
          function_call?: { arguments?: string };
        };
      }[];
      usage?: { prompt_tokens?: number; completion_tokens?: number };
    };
    const usage = {
      inputTokens: response.usage?.prompt_tokens ?? 0,
      outputTokens: response.usage?.completion_tokens ?? 0,
    };
    const message = response.choices?.[0]?.message;
    if (!message)
      throw new JudgeOutputError({ message: `${this.modelId}: the response has no message` });
    if (message.refusal) {
      throw new JudgeOutputError({
        message: `${this.modelId} refused: ${message.refusal}`,
        output: message.refusal,
      });
    }
    if (!output)
      return {
        text: message.content ?? '',
        usage,
        ...(response.choices?.[0]?.finish_reason === 'length' && { truncated: true }),
        response: body,
      };
    const text =
      message.tool_calls?.[0]?.function?.arguments ??
      message.function_call?.arguments ??
      message.content ??
      undefined;
    return { text, object: parseJsonOutput(text, this.modelId), usage, response: body };
  }

  async generate(options: JudgeModelCallOptions): Promise<JudgeModelResult> {
    // Sent as JSON bytes through the SDK (its retries, auth and errors all the same): with
    // screenshots a body is megabytes of base64, and a body object handed to
    // `chat.completions.create` keeps those strings and their JSON text on the V8 heap until the
    // answer comes, which lets the heap grow to several times that (bench/judge-bench.ts (c)).
    const body = Buffer.from(JSON.stringify(await this.buildRequestBody(options)));
    const response = await this.client.post<OpenAI.ChatCompletion>('/chat/completions', {
      body,
      headers: { 'content-type': 'application/json' },
      signal: options.abortSignal,
    });
    return this.parseResponseBody(response, options.output);
  }

  private async submitBatch({
    requests,
    abortSignal,
  }: Parameters<JudgeBatchApi['submit']>[0]): Promise<string> {
    const lines = requests.map(request =>
      JSON.stringify({
        custom_id: request.customId,
        method: 'POST',
        url: '/v1/chat/completions',
        body: request.body,
      }),
    );
    const file = await this.client.files.create(
      {
        file: await toFile(Buffer.from(`${lines.join('\n')}\n`), 'osharm-judge-batch.jsonl'),
        purpose: 'batch',
      },
      { signal: abortSignal },
    );
    const batch = await this.client.batches.create(
      { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
      { signal: abortSignal },
    );
    return batch.id;
  }

  private async retrieveBatch({
    batchId,
    abortSignal,
  }: Parameters<JudgeBatchApi['retrieve']>[0]): Promise<BatchStatus> {
    const batch = await this.client.batches.retrieve(batchId, { signal: abortSignal });
    return {
      id: batch.id,
      status: batch.status,
      done: ['completed', 'failed', 'expired', 'cancelled'].includes(batch.status),
      total: batch.request_counts?.total ?? 0,
      completed: batch.request_counts?.completed ?? 0,
      failed: batch.request_counts?.failed ?? 0,
    };
  }

  private async *batchResults({
    batchId,
    output,
    abortSignal,
  }: Parameters<JudgeBatchApi['results']>[0]): AsyncIterable<BatchResult> {
    const batch = await this.client.batches.retrieve(batchId, { signal: abortSignal });
    for (const fileId of [batch.output_file_id, batch.error_file_id]) {
      if (!fileId) continue;
      const text = await (await this.client.files.content(fileId, { signal: abortSignal })).text();
      for (const line of text.split('\n')) {
        if (line.trim() === '') continue;
        const entry = JSON.parse(line) as {
          custom_id: string;
          response?: { status_code: number; body: unknown } | null;
          error?: { code?: string; message?: string } | null;
        };
        if (entry.response && entry.response.status_code === 200) {
          try {
            yield {
              customId: entry.custom_id,
              ok: true,
              result: this.parseResponseBody(entry.response.body, output),
            };
          } catch (error) {
            yield { customId: entry.custom_id, ok: false, error: (error as Error).message };
          }
        } else {
          const body = entry.response?.body as { error?: { message?: string } } | undefined;
          yield {
            customId: entry.custom_id,
            ok: false,
            error: `batch request failed: ${entry.error?.message ?? body?.error?.message ?? `HTTP ${entry.response?.status_code}`}`,
          };
        }
      }
    }
  }
}

/**
 * A judge model served by OpenAI or any OpenAI-compatible server (vLLM, Ollama, …), called through
 * the official `openai` SDK. No I/O happens until the first call.
 */
export function createOpenAIJudgeModel(
  modelId: string,
  settings: OpenAIJudgeModelSettings = {},
): OpenAIJudgeModel {
  return new OpenAIJudgeModel(modelId, settings);
}
