/**
 * Token counts to report in the vendor's usage fields, as @osharm/model-spec counts them: input holds
 * the cache reads and writes, output the reasoning. Each wire splits them as its vendor does
 * (Anthropic's `input_tokens` is the uncached rest; Gemini's `candidatesTokenCount` excludes
 * `thoughtsTokenCount`).
 */
export interface TokenUsage {
  /** Every input token (OpenAI `prompt_tokens` / `input_tokens`, Gemini `promptTokenCount`). */
  inputTokens: number;
  /** Every output token (OpenAI `completion_tokens` / `output_tokens`). */
  outputTokens: number;
  /** Read from the prompt cache (OpenAI `cached_tokens`, Anthropic `cache_read_input_tokens`, Gemini `cachedContentTokenCount`). */
  cachedInputTokens?: number;
  /** Written to the prompt cache (Anthropic `cache_creation_input_tokens`; the other wires have none). */
  cacheWriteTokens?: number;
  /** Reasoning tokens (OpenAI `reasoning_tokens`, Gemini `thoughtsTokenCount`; Anthropic reports none apart). */
  reasoningTokens?: number;
}

interface ReplyDelay {
  /** Wait this long before answering, in ms (direct calls only; added to `latencyMs`). */
  delayMs?: number;
}

/** Answer with `object` as the structured output the request asked for (JSON text if none). */
export interface ObjectReply extends ReplyDelay {
  object: Record<string, unknown>;
  /** Token counts to report (default: about one token per 4 characters). */
  usage?: TokenUsage;
}

/** Answer with a plain assistant text. */
export interface TextReply extends ReplyDelay {
  text: string;
  /** Say the answer was cut by the token limit (OpenAI `finish_reason: length`, Anthropic `stop_reason: max_tokens`). */
  truncated?: boolean;
  /** Token counts to report (default: about one token per 4 characters). */
  usage?: TokenUsage;
}

/**
 * Answer with a broken structured output: truncated JSON text, or (Anthropic forced tool) a tool
 * input without the schema's required keys.
 */
export interface MalformedReply extends ReplyDelay {
  malformed: true;
  /** The object to break (default: a small placeholder object). */
  object?: Record<string, unknown>;
  /** Token counts to report (default: about one token per 4 characters). */
  usage?: TokenUsage;
}

/** Answer with an HTTP error status instead of a completion. */
export interface StatusReply extends ReplyDelay {
  status: number;
  /** Response body (default: the vendor's error JSON for the status). */
  body?: unknown;
  /** Extra response headers, e.g. `retry-after` (a 429 gets the fault retry headers by default). */
  headers?: Record<string, string>;
  /** Error message used in the default body. */
  message?: string;
}

/**
 * Answer with native computer-use tool calls, in the vendor's own shape (the stand-in adds ids,
 * block types and status):
 * - Anthropic (`/v1/messages`): `{ name, input, toolset_name? }` → a `tool_use` block each (the
 *   classic tool is named `computer` with `input.action`; a GA toolset member is named after the
 *   member with `toolset_name: 'computer'`);
 * - OpenAI Responses (`/v1/responses`): `{ actions }` (GA `computer` tool) or `{ action }`
 *   (`computer_use_preview`), optional `pending_safety_checks: [{ id, code?, message? }]` → a
 *   `computer_call` item each;
 * - Gemini (`generateContent`): `{ name, args }` → a `functionCall` part each.
 * On chat completions it is answered as a 400 (that wire has no computer tool).
 */
export interface ComputerCallsReply extends ReplyDelay {
  calls: Array<Record<string, unknown>>;
  /** Assistant text beside the calls (Anthropic `text` block, OpenAI `message`, Gemini text part). */
  text?: string;
  /** Reasoning (Anthropic `thinking` block, OpenAI `reasoning` item summary, Gemini thought part). */
  reasoning?: string;
  /** A refusal: Anthropic `stop_reason: refusal`, OpenAI `refusal` content, Gemini `finishReason: SAFETY`. */
  refusal?: true;
  /** Token counts to report (default: about one token per 4 characters). */
  usage?: TokenUsage;
}

/** Never answer: the request stays open until the client gives up or the stand-in closes. */
export interface HangReply extends ReplyDelay {
  hang: true;
}

/** What `respond` tells the stand-in to answer to one model call. */
export type ScriptedReply =
  ObjectReply | TextReply | MalformedReply | StatusReply | HangReply | ComputerCallsReply;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkCount(value: unknown, what: string): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0))
    throw new TypeError(`${what} must be a finite number ≥ 0`);
}

/**
 * Checks what `respond` returned, so that a wrong script fails with a clear message instead of an
 * odd answer. Throws a `TypeError` naming the problem.
 */
export function checkScriptedReply(reply: unknown): ScriptedReply {
  if (!isRecord(reply))
    throw new TypeError(`respond() must return a reply object, got ${JSON.stringify(reply)}`);
  checkCount(reply.delayMs, 'reply.delayMs');
  if (reply.usage !== undefined) {
    if (!isRecord(reply.usage)) throw new TypeError('reply.usage must be an object');
    checkCount(reply.usage.inputTokens, 'reply.usage.inputTokens');
    checkCount(reply.usage.outputTokens, 'reply.usage.outputTokens');
  }
  const kinds = ['object', 'text', 'malformed', 'status', 'hang', 'calls'].filter(
    key =>
      key in reply &&
      !(key === 'object' && 'malformed' in reply) &&
      !(key === 'text' && 'calls' in reply),
  );
  if (kinds.length !== 1)
    throw new TypeError(
      `respond() must return exactly one of object, text, malformed, status, hang or calls; got keys ${Object.keys(reply).join(', ') || 'none'}`,
    );
  if ('object' in reply && reply.object !== undefined && !isRecord(reply.object))
    throw new TypeError('reply.object must be a JSON object');
  if ('text' in reply && typeof reply.text !== 'string')
    throw new TypeError('reply.text must be a string');
  if ('malformed' in reply && reply.malformed !== true)
    throw new TypeError('reply.malformed must be true');
  if ('hang' in reply && reply.hang !== true) throw new TypeError('reply.hang must be true');
  if ('calls' in reply) {
    if (!Array.isArray(reply.calls) || !reply.calls.every(isRecord))
      throw new TypeError('reply.calls must be an array of objects');
    if (reply.text !== undefined && typeof reply.text !== 'string')
      throw new TypeError('reply.text must be a string');
    if (reply.reasoning !== undefined && typeof reply.reasoning !== 'string')
      throw new TypeError('reply.reasoning must be a string');
    if (reply.refusal !== undefined && reply.refusal !== true)
      throw new TypeError('reply.refusal must be true');
  }
  if ('status' in reply) {
    const status = reply.status;
    if (!(typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599))
      throw new TypeError(`reply.status must be an HTTP error status (400–599), got ${status}`);
    if (reply.headers !== undefined && !isRecord(reply.headers))
      throw new TypeError('reply.headers must be an object of strings');
  }
  return reply as unknown as ScriptedReply;
}
