import type { TokenUsage } from '@osharm/models';

/** A text part of a message. */
export interface AgentTextPart {
  readonly type: 'text';
  readonly text: string;
}

/** An image part of a message: base64 data, sent inline. */
export interface AgentImagePart {
  readonly type: 'image';
  /** Base64 of the image bytes (no `data:` prefix). */
  readonly data: string;
  /** @default 'image/png' */
  readonly mediaType?: 'image/png' | 'image/jpeg' | 'image/webp';
  /** OpenAI's image detail level; ignored by Anthropic. @default 'high' (upstream's level) */
  readonly detail?: 'high' | 'low' | 'auto';
}

export type AgentContentPart = AgentTextPart | AgentImagePart;

/** One turn of the conversation sent to the model. */
export interface AgentMessage {
  readonly role: 'user' | 'assistant';
  readonly content: readonly AgentContentPart[];
}

/** Tokens one call used, as the vendor reports them (the one `TokenUsage` of @osharm/models). */
export type AgentTokenUsage = TokenUsage;

/** Options of one model call. */
export interface AgentModelCallOptions {
  /** The system prompt (the agent's prompt, a newline, the task lead-in and the instruction). */
  readonly system: string;
  /** History turns then the current user turn; roles alternate, the last is `user`. */
  readonly messages: readonly AgentMessage[];
  /** Output token limit (`max_completion_tokens` for OpenAI reasoning models). */
  readonly maxTokens: number;
  /** Sampling temperature; not sent to OpenAI reasoning models (o-series, gpt-5). */
  readonly temperature?: number;
  /** Nucleus sampling; not sent to OpenAI reasoning models, nor to Claude models that refuse it with a temperature. */
  readonly topP?: number;
  /** Stop sequences (OpenAI `stop`, not sent to reasoning models; Anthropic `stop_sequences`). */
  readonly stop?: readonly string[];
  /**
   * Send the system prompt and text-only turns as one-part lists, as upstream's PromptAgent does
   * (the prompt agent sets it with upstream's prompt family), instead of strings. @default false
   */
  readonly textAsParts?: boolean;
  readonly abortSignal?: AbortSignal;
}

/** What a model call returned. */
export interface AgentModelResult {
  /** The answer text (empty when the model gave none). */
  readonly text: string;
  readonly usage: AgentTokenUsage;
  /** The vendor's finish reason (`stop`, `length`, `end_turn`, `max_tokens`, …), null if none. */
  readonly finishReason: string | null;
  /**
   * Set when the first request exceeded the model's context and the answer came from a retry with
   * only the system prompt and the last message (upstream's fallback; OpenAI-compatible models).
   */
  readonly shortenedContext?: boolean;
}

/**
 * The model behind an agent (the solver's `generate`). Implemented by `createOpenAIAgentModel`
 * and `createAnthropicAgentModel`; a third party may implement it for any other backend.
 */
export interface AgentModelV1 {
  readonly specificationVersion: 'agent-model-v1';
  /** `openai` (also any OpenAI-compatible server), `anthropic`, or a third party's name. */
  readonly provider: string;
  /** The model id sent to the provider (also `params.model` of `better_log.json`). */
  readonly modelId: string;
  /**
   * Calls the model once. HTTP retries (408, 409, 429, 5xx, timeouts) are the SDK's.
   * @throws `ModelError` (from @osharm/models) after the SDK's retries; `AgentSettingError` without an API key.
   */
  generate(options: AgentModelCallOptions): PromiseLike<AgentModelResult>;
}
