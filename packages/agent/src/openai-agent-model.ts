import { tokensOf } from '@osharm/models';
import {
  createOpenAIChatModel,
  JsonBodyWriter,
  ModelError,
  type ModelCallOptions,
  type ModelMessage,
  type OpenAIChatModel,
  type OpenAIChatModelSettings,
} from '@osharm/models';
import { AgentSettingError } from './agent-errors';
import type {
  AgentContentPart,
  AgentModelCallOptions,
  AgentModelResult,
  AgentModelV1,
} from './agent-model';

/** Settings of {@link createOpenAIAgentModel}: those of @osharm/models' OpenAI adapter, and: */
export interface OpenAIAgentModelSettings extends Omit<
  OpenAIChatModelSettings,
  'structuredOutput'
> {
  /**
   * Retry once with only the system message and the last message when the server answers
   * `context_length_exceeded`, as upstream. @default true
   */
  readonly retryShortContext?: boolean;
}

type ImageText = (prefix: string, base64: string) => string;

/** Text-only turns go as a string: every OpenAI-compatible server accepts that form. */
function toContent(content: readonly AgentContentPart[]): ModelMessage['content'] {
  if (content.every(part => part.type === 'text'))
    return content.map(part => (part as { text: string }).text).join('\n');
  return content;
}

/** The model-layer options of an agent call. */
export function agentCallOptions(
  options: Omit<AgentModelCallOptions, 'abortSignal'>,
  content: (parts: readonly AgentContentPart[]) => ModelMessage['content'],
): ModelCallOptions {
  const asParts = options.textAsParts === true;
  return {
    system: asParts ? [{ type: 'text', text: options.system }] : options.system,
    messages: options.messages.map(message => ({
      role: message.role,
      content: asParts ? message.content : content(message.content),
    })),
    maxOutputTokens: options.maxTokens,
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.topP === undefined ? {} : { topP: options.topP }),
    ...(options.stop === undefined ? {} : { stop: options.stop }),
  };
}

/** A missing key becomes the agent's setting error; every other failure stays a `ModelError`. */
export function agentModelError(error: unknown): unknown {
  return ModelError.isInstance(error) && error.kind === 'setting'
    ? new AgentSettingError({ message: error.message, cause: error })
    : error;
}

export class OpenAIAgentModel implements AgentModelV1 {
  readonly specificationVersion = 'agent-model-v1' as const;
  readonly provider: string;
  /** The @osharm/models adapter that makes the calls. */
  readonly model: OpenAIChatModel;

  constructor(
    readonly modelId: string,
    private readonly settings: OpenAIAgentModelSettings = {},
    provider: 'openai' | 'openai-compatible' = 'openai',
  ) {
    this.provider = provider;
    this.model = createOpenAIChatModel(modelId, settings, provider);
  }

  /**
   * The chat-completions body of a call: the system message first, then the turns. Reasoning
   * models get `max_completion_tokens` and no `temperature`, `top_p` or `stop`.
   */
  buildRequestBody(
    options: Omit<AgentModelCallOptions, 'abortSignal'>,
    imageText?: ImageText,
  ): Record<string, unknown> {
    return this.model.buildRequestBody(agentCallOptions(options, toContent), imageText);
  }

  /** The JSON bytes of a call's body (images spliced in without a JSON scan; see JsonBodyWriter). */
  encodeRequestBody(options: Omit<AgentModelCallOptions, 'abortSignal'>): Buffer {
    const writer = new JsonBodyWriter();
    return writer.serialize(
      this.buildRequestBody(options, (prefix, base64) => writer.blob(prefix, base64)),
    );
  }

  async generate(options: AgentModelCallOptions): Promise<AgentModelResult> {
    const call = { ...agentCallOptions(options, toContent), signal: options.abortSignal };
    let shortenedContext = false;
    let result;
    try {
      result = await this.model.generate(call);
    } catch (error) {
      if (
        (this.settings.retryShortContext ?? true) &&
        ModelError.isInstance(error) &&
        error.code === 'context_length_exceeded' &&
        call.messages.length > 1
      ) {
        // Upstream's fallback: keep the system message and the current turn only.
        try {
          result = await this.model.generate({ ...call, messages: [call.messages.at(-1)!] });
        } catch (retryError) {
          throw agentModelError(retryError);
        }
        shortenedContext = true;
      } else throw agentModelError(error);
    }
    return {
      text: result.text,
      usage: tokensOf(result.usage),
      finishReason: result.finishReason,
      ...(shortenedContext ? { shortenedContext } : {}),
    };
  }
}

/**
 * An agent model served by OpenAI or any OpenAI-compatible server (vLLM, Ollama, …), called
 * through @osharm/models. No I/O happens until the first call.
 */
export function createOpenAIAgentModel(
  modelId: string,
  settings: OpenAIAgentModelSettings = {},
): OpenAIAgentModel {
  return new OpenAIAgentModel(modelId, settings);
}
