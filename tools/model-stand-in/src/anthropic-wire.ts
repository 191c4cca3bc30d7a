import {
  answerText,
  answerUsage,
  isComputerCallsReply,
  withoutRequiredKeys,
} from './answer-content';
import type { AnswerReply } from './answer-content';
import type { ComputerCallsReply } from './scripted-reply';
import type { ModelCall } from './model-call';

/** Ids the encoder needs, made by the stand-in so they are unique and predictable. */
export interface MessageIds {
  messageId: string;
  toolUseId: string;
  /** A fresh `tool_use` id for each further block of a computer-calls reply. */
  nextToolUseId?: () => string;
}

/** The content of a computer-calls reply: thinking, text, then one `tool_use` block per call. */
function computerContent(
  reply: ComputerCallsReply,
  ids: MessageIds,
): { content: Array<Record<string, unknown>>; outputText: string } {
  const content: Array<Record<string, unknown>> = [];
  if (reply.reasoning !== undefined)
    content.push({ type: 'thinking', thinking: reply.reasoning, signature: 'stand-in-signature' });
  if (reply.text !== undefined) content.push({ type: 'text', text: reply.text, citations: null });
  reply.calls.forEach((call, position) => {
    const { name, input, toolset_name: toolsetName } = call;
    content.push({
      type: 'tool_use',
      id:
        position === 0 ? ids.toolUseId : (ids.nextToolUseId?.() ?? `${ids.toolUseId}_${position}`),
      name: typeof name === 'string' ? name : 'computer',
      input: input ?? {},
      caller: { type: 'direct' },
      ...(typeof toolsetName === 'string' && { toolset_name: toolsetName }),
    });
  });
  return { content, outputText: JSON.stringify(content) };
}

/** An Anthropic message answering `call` with `reply`. */
export function anthropicMessage(
  call: ModelCall,
  reply: AnswerReply | ComputerCallsReply,
  ids: MessageIds,
  serviceTier: 'standard' | 'batch',
): Record<string, unknown> {
  const { mode, name, schema } = call.structuredOutput;
  let content: Array<Record<string, unknown>>;
  let stopReason: string;
  let outputText: string;
  if (isComputerCallsReply(reply)) {
    ({ content, outputText } = computerContent(reply, ids));
    stopReason = reply.refusal ? 'refusal' : reply.calls.length > 0 ? 'tool_use' : 'end_turn';
  } else if (mode === 'forced-tool' && !('text' in reply)) {
    const input = 'malformed' in reply ? withoutRequiredKeys(reply.object, schema) : reply.object;
    outputText = JSON.stringify(input);
    content = [{ type: 'tool_use', id: ids.toolUseId, name, input, caller: { type: 'direct' } }];
    stopReason = 'tool_use';
  } else {
    outputText = answerText(reply);
    content = [{ type: 'text', text: outputText, citations: null }];
    stopReason = 'text' in reply && reply.truncated ? 'max_tokens' : 'end_turn';
  }
  const usage = answerUsage(call, reply, outputText);
  return {
    id: ids.messageId,
    type: 'message',
    role: 'assistant',
    model: call.model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: {
      input_tokens:
        usage.inputTokens - (usage.cachedInputTokens ?? 0) - (usage.cacheWriteTokens ?? 0),
      output_tokens: usage.outputTokens,
      cache_creation_input_tokens: usage.cacheWriteTokens ?? 0,
      cache_read_input_tokens: usage.cachedInputTokens ?? 0,
      cache_creation: {
        ephemeral_1h_input_tokens: 0,
        ephemeral_5m_input_tokens: usage.cacheWriteTokens ?? 0,
      },
      inference_geo: null,
      output_tokens_details: null,
      server_tool_use: null,
      service_tier: serviceTier,
      speed: null,
    },
  };
}

/** Anthropic's error type for an HTTP status. */
function anthropicErrorType(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 408:
    case 504:
      return 'timeout_error';
    case 409:
      return 'conflict_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/** Anthropic's error JSON for a status: `{type: 'error', error: {type, message}, request_id}`. */
export function anthropicErrorBody(
  status: number,
  message: string,
  requestId: string,
): Record<string, unknown> {
  return {
    type: 'error',
    error: { type: anthropicErrorType(status), message },
    request_id: requestId,
  };
}
