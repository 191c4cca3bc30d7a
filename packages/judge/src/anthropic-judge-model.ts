import Anthropic from '@anthropic-ai/sdk';
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

/** Settings of {@link createAnthropicJudgeModel}. */
export interface AnthropicJudgeModelSettings {
  /** API key. @default env `ANTHROPIC_API_KEY` */
  readonly apiKey?: string;
  /** Base URL (a proxy or a compatible server). @default env `ANTHROPIC_BASE_URL`, else Anthropic */
  readonly baseURL?: string;
  /** HTTP retries of the SDK on 408/409/429/5xx and timeouts (honouring retry-after). @default 2 */
  readonly maxRetries?: number;
  /** Per-request timeout in ms. @default 120000 */
  readonly timeout?: number;
  /** Environment to read defaults from. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** A ready client. Overrides apiKey / baseURL / retries / timeout. */
  readonly client?: Anthropic;
}

type AnthropicBlock = Record<string, unknown>;

async function toAnthropicContent(
  content: string | readonly JudgeContentPart[],
  images: ImageOptions | undefined,
): Promise<string | AnthropicBlock[]> {
  if (typeof content === 'string') return content;
  const blocks: AnthropicBlock[] = [];
  for (const part of content) {
    if (part.type === 'text') blocks.push({ type: 'text', text: part.text });
    else {
      // Anthropic takes base64 image blocks (upstream sent OpenAI image_url parts here, which fail).
      const image = await encodeImage(part.path, images);
      blocks.push({
        type: 'image',
        source: { type: 'base64', media_type: image.mediaType, data: image.base64 },
      });
    }
  }
  return blocks;
}

/** Anthropic wants alternating roles: consecutive user messages are merged into one. */
async function toAnthropicMessages(prompt: JudgePrompt, images?: ImageOptions) {
  const messages: { role: 'user' | 'assistant'; content: AnthropicBlock[] }[] = [];
  for (const message of prompt.messages) {
    const content = await toAnthropicContent(message.content, images);
    const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
    const last = messages.at(-1);
    if (last && last.role === message.role) last.content.push(...blocks);
    else messages.push({ role: message.role, content: blocks });
  }
  return messages;
}

export class AnthropicJudgeModel implements JudgeModelV1 {
  readonly specificationVersion = 'judge-model-v1' as const;
  readonly provider = 'anthropic';
  readonly batch: JudgeBatchApi;
  private clientInstance: Anthropic | undefined;

  constructor(
    readonly modelId: string,
    private readonly settings: AnthropicJudgeModelSettings = {},
  ) {
    this.clientInstance = settings.client;
    this.batch = {
      submit: options => this.submitBatch(options),
      retrieve: options => this.retrieveBatch(options),
      results: options => this.batchResults(options),
    };
  }

  /** The SDK client, created on first use. */
  get client(): Anthropic {
    if (!this.clientInstance) {
      const env = this.settings.env ?? process.env;
      const apiKey = this.settings.apiKey ?? env.ANTHROPIC_API_KEY;
      registerSecret(apiKey);
      if (!apiKey) {
        throw new JudgeSettingError({
          message: `no Anthropic API key for model "${this.modelId}": set ANTHROPIC_API_KEY`,
        });
      }
      this.clientInstance = new Anthropic({
        apiKey,
        baseURL: this.settings.baseURL ?? env.ANTHROPIC_BASE_URL,
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
    const body: Record<string, unknown> = {
      model: this.modelId,
      max_tokens: options.maxOutputTokens ?? (structured ? 2048 : 1024),
      messages: await toAnthropicMessages(options.prompt, options.images),
    };
    const system = options.prompt.system;
    if (system !== undefined)
      body.system = typeof system === 'string' ? system : system.map(part => part.text).join('\n');
    if (options.output) {
      const { name, description, schema } = options.output;
      body.tools = [{ name, description, input_schema: schema }];
      body.tool_choice = { type: 'tool', name };
    } else {
      body.temperature = 0;
    }
    return body;
  }

  parseResponseBody(body: unknown, output?: StructuredOutput): JudgeModelResult {
    const response = body as {
      content?: (
        { type: 'text'; text: string } | { type: 'tool_use'; name: string; input: unknown }
      )[];
      usage?: { input_tokens?: number; output_tokens?: number };
      stop_reason?: string;
    };
    const usage = {
      inputTokens: response.usage?.input_tokens ?? 0,
      outputTokens: response.usage?.output_tokens ?? 0,
    };
    const blocks = response.content ?? [];
    const text = blocks
      .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
      .map(block => block.text)
      .join('');
    if (!output)
      return {
        text,
        usage,
        ...(response.stop_reason === 'max_tokens' && { truncated: true }),
        response: body,
      };
    const tool = blocks.find(
      (block): block is { type: 'tool_use'; name: string; input: unknown } =>
        block.type === 'tool_use' && block.name === output.name,
    );
    if (tool) return { object: tool.input, usage, response: body };
    if (text.trim() !== '')
      return { text, object: parseJsonOutput(text, this.modelId), usage, response: body };
    throw new JudgeOutputError({
      message: `${this.modelId}: no "${output.name}" tool call in the answer (stop_reason ${response.stop_reason ?? 'unknown'})`,
    });
  }

  async generate(options: JudgeModelCallOptions): Promise<JudgeModelResult> {
    // Sent as JSON bytes through the SDK, as the OpenAI adapter does: a body object with megabytes
    // of base64 screenshots would stay on the V8 heap, with its JSON text, until the answer comes.
    const body = Buffer.from(JSON.stringify(await this.buildRequestBody(options)));
    const response = await this.client.post<Anthropic.Message>('/v1/messages', {
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
    const batch = await this.client.messages.batches.create(
      {
        requests: requests.map(request => ({
          custom_id: request.customId,
          params: request.body as unknown as Anthropic.MessageCreateParamsNonStreaming,
        })),
      },
      { signal: abortSignal },
    );
    return batch.id;
  }

  private async retrieveBatch({
    batchId,
    abortSignal,
  }: Parameters<JudgeBatchApi['retrieve']>[0]): Promise<BatchStatus> {
    const batch = await this.client.messages.batches.retrieve(batchId, {}, { signal: abortSignal });
    const counts = batch.request_counts;
    return {
      id: batch.id,
      status: batch.processing_status,
      done: batch.processing_status === 'ended',
      total:
        counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired,
      completed: counts.succeeded,
      failed: counts.errored + counts.canceled + counts.expired,
    };
  }

  private async *batchResults({
    batchId,
    output,
    abortSignal,
  }: Parameters<JudgeBatchApi['results']>[0]): AsyncIterable<BatchResult> {
    const results = await this.client.messages.batches.results(
      batchId,
      {},
      { signal: abortSignal },
    );
    for await (const entry of results) {
      if (entry.result.type === 'succeeded') {
        try {
          yield {
            customId: entry.custom_id,
            ok: true,
            result: this.parseResponseBody(entry.result.message, output),
          };
        } catch (error) {
          yield { customId: entry.custom_id, ok: false, error: (error as Error).message };
        }
      } else {
        const detail =
          entry.result.type === 'errored' ? `: ${entry.result.error.error.message}` : '';
        yield {
          customId: entry.custom_id,
          ok: false,
          error: `batch request ${entry.result.type}${detail}`,
        };
      }
    }
  }
}

/** A judge model served by Anthropic, called through the official `@anthropic-ai/sdk`. */
export function createAnthropicJudgeModel(
  modelId: string,
  settings: AnthropicJudgeModelSettings = {},
): AnthropicJudgeModel {
  return new AnthropicJudgeModel(modelId, settings);
}
