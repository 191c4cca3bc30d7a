import { answerText, answerUsage, isComputerCallsReply } from './answer-content';
import type { AnswerReply } from './answer-content';
import { HttpError, isRecord } from './http-exchange';
import type { ModelCall } from './model-call';
import type { ComputerCallsReply } from './scripted-reply';

/** What the stand-in keeps of each response it gave, to check the next turn as the API does. */
export interface StoredResponse {
  /** `computer_call` items by `call_id`: the ids of their pending safety checks and the reasoning item before them. */
  calls: Map<string, { safetyCheckIds: string[]; reasoningId: string | undefined }>;
}

/**
 * Checks a Responses request's turn against the responses given before, as the API does:
 * `previous_response_id` must name a response given; every `computer_call_output` must answer a
 * call that is in this request's input or in the previous response, acknowledge that call's
 * pending safety checks, and (without `previous_response_id`) keep the reasoning item that came
 * before the call. A broken turn is a 400 naming the problem.
 */
export function checkResponsesTurn(
  body: Record<string, unknown>,
  stored: ReadonlyMap<string, StoredResponse>,
): void {
  const previousId = body.previous_response_id;
  let previous: StoredResponse | undefined;
  if (previousId !== undefined && previousId !== null) {
    previous = typeof previousId === 'string' ? stored.get(previousId) : undefined;
    if (!previous)
      throw new HttpError(400, `previous_response_id: no response with id ${String(previousId)}`);
  }
  const items = Array.isArray(body.input) ? body.input.filter(isRecord) : [];
  const itemIds = new Set(items.map(item => item.id).filter(id => typeof id === 'string'));
  const callIdsInInput = new Set(
    items.filter(item => item.type === 'computer_call').map(item => item.call_id),
  );
  const known = new Map<string, { safetyCheckIds: string[]; reasoningId: string | undefined }>();
  for (const response of stored.values())
    for (const [callId, call] of response.calls) known.set(callId, call);
  for (const item of items) {
    if (item.type !== 'computer_call_output') continue;
    const callId = item.call_id;
    const call = typeof callId === 'string' ? known.get(callId) : undefined;
    const inPrevious = typeof callId === 'string' && previous?.calls.has(callId);
    if (!call || !(inPrevious || callIdsInInput.has(callId)))
      throw new HttpError(
        400,
        `computer_call_output: no computer_call with call_id ${String(callId)} in this turn`,
      );
    const acknowledged = Array.isArray(item.acknowledged_safety_checks)
      ? item.acknowledged_safety_checks.filter(isRecord).map(check => check.id)
      : [];
    const missing = call.safetyCheckIds.filter(id => !acknowledged.includes(id));
    if (missing.length > 0)
      throw new HttpError(
        400,
        `computer_call_output: pending safety checks not acknowledged: ${missing.join(', ')}`,
      );
    if (!inPrevious && call.reasoningId !== undefined && !itemIds.has(call.reasoningId))
      throw new HttpError(
        400,
        `Item ${String(callId)} of type 'computer_call' was provided without its required 'reasoning' item: ${call.reasoningId}`,
      );
  }
}

/** Ids the encoder needs, made by the stand-in so they are unique and predictable. */
export interface ResponseIds {
  nextId(prefix: string): string;
}

function computerOutput(reply: ComputerCallsReply, ids: ResponseIds, stored: StoredResponse) {
  const output: Array<Record<string, unknown>> = [];
  let reasoningId: string | undefined;
  if (reply.reasoning !== undefined) {
    reasoningId = ids.nextId('rs_');
    output.push({
      type: 'reasoning',
      id: reasoningId,
      summary: [{ type: 'summary_text', text: reply.reasoning }],
      encrypted_content: null,
    });
  }
  if (reply.text !== undefined || reply.refusal)
    output.push({
      type: 'message',
      id: ids.nextId('msg_'),
      role: 'assistant',
      status: 'completed',
      content: [
        reply.refusal
          ? { type: 'refusal', refusal: reply.text ?? '' }
          : { type: 'output_text', text: reply.text, annotations: [], logprobs: [] },
      ],
    });
  for (const call of reply.calls) {
    const callId = ids.nextId('call_');
    const checks = Array.isArray(call.pending_safety_checks)
      ? call.pending_safety_checks.filter(isRecord)
      : [];
    stored.calls.set(callId, {
      safetyCheckIds: checks.map(check => String(check.id)),
      reasoningId,
    });
    output.push({
      ...call,
      type: 'computer_call',
      id: ids.nextId('cu_'),
      call_id: callId,
      status: 'completed',
      pending_safety_checks: checks,
    });
  }
  return output;
}

/** A Responses API `response` answering `call` with `reply`; what to remember of it goes in `stored`. */
export function openaiResponse(
  call: ModelCall,
  reply: AnswerReply | ComputerCallsReply,
  ids: ResponseIds,
  createdAt: number,
  stored: StoredResponse,
): Record<string, unknown> {
  let output: Array<Record<string, unknown>>;
  let outputText: string;
  let incomplete = false;
  if (isComputerCallsReply(reply)) {
    output = computerOutput(reply, ids, stored);
    outputText = JSON.stringify(output);
  } else {
    outputText = answerText(reply);
    incomplete = 'text' in reply && reply.truncated === true;
    output = [
      {
        type: 'message',
        id: ids.nextId('msg_'),
        role: 'assistant',
        status: incomplete ? 'incomplete' : 'completed',
        content: [{ type: 'output_text', text: outputText, annotations: [], logprobs: [] }],
      },
    ];
  }
  const usage = answerUsage(call, reply, outputText);
  const body = call.body;
  return {
    id: ids.nextId('resp_'),
    object: 'response',
    created_at: createdAt,
    status: incomplete ? 'incomplete' : 'completed',
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    error: null,
    model: call.model,
    output,
    instructions: body.instructions ?? null,
    previous_response_id: body.previous_response_id ?? null,
    parallel_tool_calls: true,
    tool_choice: body.tool_choice ?? 'auto',
    tools: Array.isArray(body.tools) ? body.tools : [],
    temperature: null,
    top_p: null,
    metadata: {},
    truncation: body.truncation ?? 'disabled',
    usage: {
      input_tokens: usage.inputTokens,
      input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
      output_tokens: usage.outputTokens,
      output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
      total_tokens: usage.inputTokens + usage.outputTokens,
    },
  };
}
