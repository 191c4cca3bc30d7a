import { estimateInputTokens, estimateTokens } from './model-call';
import type { ModelCall } from './model-call';
import type {
  ComputerCallsReply,
  MalformedReply,
  ObjectReply,
  TextReply,
  TokenUsage,
} from './scripted-reply';

/** The replies that become a completion (not an error and not silence). */
export type AnswerReply = ObjectReply | TextReply | MalformedReply;

/** What a malformed reply breaks when it names no object. */
const PLACEHOLDER_OBJECT = { result: 'this structured output is cut short on purpose' };

export function isAnswerReply(reply: object): reply is AnswerReply {
  return !('calls' in reply) && ('object' in reply || 'text' in reply || 'malformed' in reply);
}

export function isComputerCallsReply(reply: object): reply is ComputerCallsReply {
  return 'calls' in reply;
}

/** JSON text that is never valid: the first half of the object's JSON text. */
function brokenJsonText(object: Record<string, unknown> | undefined): string {
  const text = JSON.stringify(object ?? PLACEHOLDER_OBJECT);
  return text.slice(0, Math.max(1, Math.floor(text.length / 2)));
}

/** The object without the keys the schema requires (without any key when it names none). */
export function withoutRequiredKeys(
  object: Record<string, unknown> | undefined,
  schema: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const required = Array.isArray(schema?.required)
    ? schema.required.filter((key): key is string => typeof key === 'string')
    : [];
  if (required.length === 0) return {};
  return Object.fromEntries(
    Object.entries(object ?? {}).filter(([key]) => !required.includes(key)),
  );
}

/** The JSON text (valid or broken) of an object or malformed reply; the text of a text reply. */
export function answerText(reply: AnswerReply): string {
  if ('malformed' in reply) return brokenJsonText(reply.object);
  if ('text' in reply) return reply.text;
  return JSON.stringify(reply.object);
}

/** The usage the reply names, or a rough estimate from the request and the answer text. */
export function answerUsage(
  call: ModelCall,
  reply: AnswerReply | ComputerCallsReply,
  outputText: string,
): TokenUsage {
  const usage = reply.usage ?? {
    inputTokens: estimateInputTokens(call.body),
    outputTokens: estimateTokens(outputText),
  };
  const cached = usage.cachedInputTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  if (cached + written > usage.inputTokens || (usage.reasoningTokens ?? 0) > usage.outputTokens) {
    throw new RangeError(
      `scripted usage: cache reads + writes must be part of inputTokens, reasoning part of outputTokens (${JSON.stringify(usage)})`,
    );
  }
  return usage;
}
