import { answerText, answerUsage, isComputerCallsReply } from './answer-content';
import type { AnswerReply } from './answer-content';
import type { ModelCall } from './model-call';
import type { ComputerCallsReply } from './scripted-reply';

/** A Gemini `GenerateContentResponse` answering `call` with `reply`. */
export function geminiResponse(
  call: ModelCall,
  reply: AnswerReply | ComputerCallsReply,
  responseId: string,
): Record<string, unknown> {
  const parts: Array<Record<string, unknown>> = [];
  let finishReason = 'STOP';
  if (isComputerCallsReply(reply)) {
    if (reply.reasoning !== undefined) parts.push({ text: reply.reasoning, thought: true });
    if (reply.text !== undefined) parts.push({ text: reply.text });
    for (const functionCall of reply.calls) parts.push({ functionCall });
    if (reply.refusal) finishReason = 'SAFETY';
  } else {
    parts.push({ text: answerText(reply) });
    if ('text' in reply && reply.truncated) finishReason = 'MAX_TOKENS';
  }
  const usage = answerUsage(call, reply, JSON.stringify(parts));
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }],
    usageMetadata: {
      promptTokenCount: usage.inputTokens,
      candidatesTokenCount: usage.outputTokens - (usage.reasoningTokens ?? 0),
      totalTokenCount: usage.inputTokens + usage.outputTokens,
      ...(usage.cachedInputTokens ? { cachedContentTokenCount: usage.cachedInputTokens } : {}),
      ...(usage.reasoningTokens ? { thoughtsTokenCount: usage.reasoningTokens } : {}),
    },
    modelVersion: call.model,
    responseId,
  };
}

/** Gemini's error JSON for a status: `{error: {code, message, status}}`. */
export function geminiErrorBody(status: number, message: string): Record<string, unknown> {
  const names: Record<number, string> = {
    400: 'INVALID_ARGUMENT',
    401: 'UNAUTHENTICATED',
    403: 'PERMISSION_DENIED',
    404: 'NOT_FOUND',
    429: 'RESOURCE_EXHAUSTED',
    503: 'UNAVAILABLE',
    504: 'DEADLINE_EXCEEDED',
  };
  return { error: { code: status, message, status: names[status] ?? 'INTERNAL' } };
}
