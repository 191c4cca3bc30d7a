import { answerText, answerUsage } from './answer-content';
import type { AnswerReply } from './answer-content';
import type { ModelCall } from './model-call';

/** Ids the encoder needs, made by the stand-in so they are unique and predictable. */
export interface CompletionIds {
  completionId: string;
  toolCallId: string;
}

/** An OpenAI chat completion answering `call` with `reply`. */
export function openaiChatCompletion(
  call: ModelCall,
  reply: AnswerReply,
  ids: CompletionIds,
  createdAt: number,
): Record<string, unknown> {
  const text = answerText(reply);
  const { mode, name } = call.structuredOutput;
  const structured = !('text' in reply);
  let message: Record<string, unknown>;
  let finishReason: string;
  if (structured && mode === 'forced-tool') {
    message = {
      role: 'assistant',
      content: null,
      refusal: null,
      annotations: [],
      tool_calls: [{ id: ids.toolCallId, type: 'function', function: { name, arguments: text } }],
    };
    finishReason = 'tool_calls';
  } else if (structured && mode === 'legacy-function') {
    message = {
      role: 'assistant',
      content: null,
      refusal: null,
      annotations: [],
      function_call: { name, arguments: text },
    };
    finishReason = 'function_call';
  } else {
    message = { role: 'assistant', content: text, refusal: null, annotations: [] };
    finishReason = 'text' in reply && reply.truncated ? 'length' : 'stop';
  }
  const usage = answerUsage(call, reply, text);
  return {
    id: ids.completionId,
    object: 'chat.completion',
    created: createdAt,
    model: call.model,
    choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }],
    usage: {
      prompt_tokens: usage.inputTokens,
      completion_tokens: usage.outputTokens,
      total_tokens: usage.inputTokens + usage.outputTokens,
      prompt_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: usage.reasoningTokens ?? 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
    service_tier: 'default',
    system_fingerprint: null,
  };
}

/** OpenAI's error JSON for a status: `{error: {message, type, param, code}}`. */
export function openaiErrorBody(status: number, message: string): Record<string, unknown> {
  let type = 'invalid_request_error';
  let code: string | null = null;
  if (status === 401) code = 'invalid_api_key';
  else if (status === 404) code = 'not_found';
  else if (status === 429) {
    type = 'requests';
    code = 'rate_limit_exceeded';
  } else if (status >= 500) type = 'server_error';
  return { error: { message, type, param: null, code } };
}
