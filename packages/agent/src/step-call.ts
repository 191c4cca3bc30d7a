import {
  ModelError,
  tokensOf,
  type ModelCallOptions,
  type ModelImagePart,
  type ModelMessage,
  type ModelTextPart,
  type ModelV1,
  type TokenUsage,
} from '@osharm/models';
import { AgentSettingError } from './agent-errors';

/** A text part of a prompt-agent turn (the model layer's). */
export type AgentTextPart = ModelTextPart;

/** An image part of a prompt-agent turn (the model layer's; the agent sends detail `high`). */
export type AgentImagePart = ModelImagePart;

export type AgentContentPart = AgentTextPart | AgentImagePart;

/** One turn of a prompt-agent step. */
export interface AgentMessage {
  readonly role: 'user' | 'assistant';
  readonly content: readonly AgentContentPart[];
}

/** The model call of one prompt-agent step, as the agent builds and logs it. */
export interface AgentStepCall {
  /** The system prompt (the agent's prompt, a newline, the task lead-in and the instruction). */
  readonly system: string;
  /** History turns then the current user turn; roles alternate, the last is `user`. */
  readonly messages: readonly AgentMessage[];
  readonly maxTokens: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly stop?: readonly string[];
  /**
   * Send the system prompt and text-only turns as one-part lists, as upstream's PromptAgent does
   * (set with upstream's prompt family), instead of strings. @default false
   */
  readonly textAsParts?: boolean;
}

/** What the model answered a step. */
export interface AgentStepAnswer {
  readonly text: string;
  readonly usage: TokenUsage;
  readonly finishReason: string | null;
  /** The answer came from the retry with only the system prompt and the last message. */
  readonly shortenedContext?: boolean;
}

/**
 * The model-layer options of a step. Text-only turns go as strings (every OpenAI-compatible server
 * takes that form; Anthropic sends a string as one text block), or as one-part lists with
 * `textAsParts` (upstream's wire).
 */
function toModelCall(call: AgentStepCall): ModelCallOptions {
  const asParts = call.textAsParts === true;
  const content = (parts: readonly AgentContentPart[]): ModelMessage['content'] =>
    asParts || parts.some(part => part.type !== 'text')
      ? parts
      : parts.map(part => (part as AgentTextPart).text).join('\n');
  return {
    system: asParts ? [{ type: 'text', text: call.system }] : call.system,
    messages: call.messages.map(message => ({
      role: message.role,
      content: content(message.content),
    })),
    maxOutputTokens: call.maxTokens,
    ...(call.temperature === undefined ? {} : { temperature: call.temperature }),
    ...(call.topP === undefined ? {} : { topP: call.topP }),
    ...(call.stop === undefined ? {} : { stop: call.stop }),
  };
}

/** A missing key becomes the agent's setting error; every other failure stays a `ModelError`. */
function agentModelError(error: unknown): unknown {
  return ModelError.isInstance(error) && error.kind === 'setting'
    ? new AgentSettingError({ message: error.message, cause: error })
    : error;
}

/**
 * Calls the model for a step. When the server answers `context_length_exceeded` and
 * `retryShortContext` is on, retries once with only the system prompt and the last message
 * (upstream's fallback).
 * @throws `ModelError` after the SDK's retries; `AgentSettingError` without an API key.
 */
export async function callModel(
  model: ModelV1,
  call: AgentStepCall,
  options: { readonly signal?: AbortSignal; readonly retryShortContext?: boolean } = {},
): Promise<AgentStepAnswer> {
  const request = {
    ...toModelCall(call),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  let shortenedContext = false;
  let result;
  try {
    result = await model.generate(request);
  } catch (error) {
    if (
      (options.retryShortContext ?? true) &&
      ModelError.isInstance(error) &&
      error.code === 'context_length_exceeded' &&
      request.messages.length > 1
    ) {
      try {
        result = await model.generate({ ...request, messages: [request.messages.at(-1)!] });
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
