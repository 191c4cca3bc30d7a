import {
  startModelStandIn,
  type ModelCall,
  type ModelStandIn,
  type ScriptedReply,
} from '@osharm/model-stand-in';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicMessagesModel } from './anthropic-messages-model';

const PNG = Buffer.from('not really a png').toString('base64');
const schema = {
  type: 'object',
  properties: { reasoning: { type: 'string' }, safety: { type: 'boolean' } },
  required: ['reasoning', 'safety'],
};

let server: ModelStandIn | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(respond: (call: ModelCall) => ScriptedReply) {
  server = await startModelStandIn({ respond });
}

const model = (id = 'claude-sonnet-4-20250514') =>
  createAnthropicMessagesModel(id, {
    baseURL: server!.anthropicBaseUrl,
    apiKey: 'test-key',
    maxRetries: 0,
  });

describe('AnthropicMessagesModel through the SDK', () => {
  it('sends the system prompt and base64 images, merges same-role turns, returns text and usage', async () => {
    await start(() => ({ text: 'DONE', usage: { inputTokens: 40, outputTokens: 2 } }));
    const result = await model().generate({
      system: 'sys',
      messages: [
        { role: 'user', content: 'one' },
        { role: 'user', content: [{ type: 'image', data: PNG, mediaType: 'image/jpeg' }] },
      ],
      maxOutputTokens: 100,
      temperature: 0,
    });
    expect(result).toMatchObject({
      text: 'DONE',
      usage: { inputTokens: 40, outputTokens: 2, modelId: 'claude-sonnet-4-20250514' },
      modelId: 'claude-sonnet-4-20250514',
      truncated: false,
    });
    const body = server!.calls[0]!.body;
    expect(body.system).toBe('sys');
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: PNG } },
        ],
      },
    ]);
  });

  it('returns a structured object through a forced tool', async () => {
    await start(call => {
      expect(call.forcedToolName).toBe('judge_agent_actions');
      return { object: { reasoning: 'fine', safety: true } };
    });
    const result = await model().generate({
      messages: [{ role: 'user', content: 'judge' }],
      responseFormat: { type: 'json', name: 'judge_agent_actions', schema },
    });
    expect(result.object).toEqual({ reasoning: 'fine', safety: true });
    expect(result.toolCalls[0]).toMatchObject({ name: 'judge_agent_actions' });
  });

  it('marks an answer cut at max_tokens as truncated', async () => {
    await start(() => ({ text: 'half an ans', truncated: true }));
    const result = await model().generate({ messages: [{ role: 'user', content: 'x' }] });
    expect(result.truncated).toBe(true);
    expect(result.finishReason).toBe('max_tokens');
  });

  it('replays tool use and tool results as blocks', () => {
    const body = createAnthropicMessagesModel('claude-x', { apiKey: 'k' }).buildRequestBody({
      messages: [
        {
          role: 'assistant',
          content: [{ type: 'tool-call', id: 't1', name: 'click', input: { x: 1 } }],
        },
        {
          role: 'user',
          content: [{ type: 'tool-result', toolCallId: 't1', content: 'ok', isError: true }],
        },
      ],
      tools: [{ name: 'click', parameters: { type: 'object' } }],
      toolChoice: 'required',
    });
    expect(body.messages).toEqual([
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'click', input: { x: 1 } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok', is_error: true }],
      },
    ]);
    expect(body.tool_choice).toEqual({ type: 'any' });
  });
});
