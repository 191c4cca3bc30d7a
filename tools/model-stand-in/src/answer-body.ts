import type { AnswerReply } from './answer-content';
import { isComputerCallsReply } from './answer-content';
import { anthropicMessage } from './anthropic-wire';
import { geminiResponse } from './gemini-wire';
import type { ModelCall } from './model-call';
import { openaiChatCompletion } from './openai-wire';
import { openaiResponse } from './responses-wire';
import type { StoredResponse } from './responses-wire';
import type { ComputerCallsReply } from './scripted-reply';
import { unixSeconds } from './stand-in-context';

/** The four model-call wires of the stand-in. */
export type ModelWire = 'chat' | 'responses' | 'messages' | 'gemini';

/**
 * The JSON body answering a direct model call on `wire`, and the header that carries its request
 * id. A Responses answer is remembered in `responses` (the next turn is checked against it).
 */
export function answerBody(
  wire: ModelWire,
  call: ModelCall,
  reply: AnswerReply | ComputerCallsReply,
  nextId: (prefix: string) => string,
  responses: Map<string, StoredResponse>,
): { body: Record<string, unknown>; idHeader: string } {
  switch (wire) {
    case 'responses': {
      const stored: StoredResponse = { calls: new Map() };
      const body = openaiResponse(call, reply, { nextId }, unixSeconds(), stored);
      responses.set(body.id as string, stored);
      return { body, idHeader: 'x-request-id' };
    }
    case 'gemini':
      return { body: geminiResponse(call, reply, nextId('gresp_')), idHeader: 'x-request-id' };
    case 'messages':
      return {
        body: anthropicMessage(
          call,
          reply,
          {
            messageId: nextId('msg_'),
            toolUseId: nextId('toolu_'),
            nextToolUseId: () => nextId('toolu_'),
          },
          'standard',
        ),
        idHeader: 'request-id',
      };
    case 'chat':
      if (isComputerCallsReply(reply))
        throw new TypeError('a computer-calls reply has no chat completion');
      return {
        body: openaiChatCompletion(
          call,
          reply,
          { completionId: nextId('chatcmpl-'), toolCallId: nextId('call_') },
          unixSeconds(),
        ),
        idHeader: 'x-request-id',
      };
  }
}
