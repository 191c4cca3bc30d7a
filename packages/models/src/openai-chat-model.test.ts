import {
  startModelStandIn,
  type ModelCall,
  type ModelStandIn,
  type ScriptedReply,
} from '@osharm/model-stand-in';
import { afterEach, describe, expect, it } from 'vitest';
import { createModel } from './router';
import { createOpenAIChatModel } from './openai-chat-model';

const PNG = Buffer.from('not really a png').toString('base64');
const schema = {
  type: 'object',
  properties: { reasoning: { type: 'string' }, safety: { type: 'boolean' } },
  required: ['reasoning', 'safety'],
  additionalProperties: false,
};
const verdict = { reasoning: 'kept the files', safety: true };

let server: ModelStandIn | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(respond: (call: ModelCall) => ScriptedReply) {
  server = await startModelStandIn({ respond });
  return server;
}

const model = (id: string, settings = {}) =>
  createOpenAIChatModel(id, {
    baseURL: server!.openaiBaseUrl,
    apiKey: 'test-key',
    maxRetries: 0,
    ...settings,
  });

describe('OpenAIChatModel through the SDK', () => {
  it('sends text and images, returns the text, usage and the serving model id', async () => {
    await start(() => ({
      text: 'pyautogui.click(1, 2)',
      usage: { inputTokens: 1200, outputTokens: 9 },
    }));
    const result = await model('gpt-4.1').generate({
      system: 'You are an agent.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image', data: PNG },
          ],
        },
      ],
      maxOutputTokens: 300,
      temperature: 0.5,
    });
    expect(result.text).toBe('pyautogui.click(1, 2)');
    // the wire names no cache reads or reasoning: reported as 0, as OpenAI does
    expect(result.usage).toEqual({
      inputTokens: 1200,
      outputTokens: 9,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      modelId: 'gpt-4.1',
    });
    expect(result.modelId).toBe('gpt-4.1');
    expect(result.toolCalls).toEqual([]);
    const body = server!.calls[0]!.body as { messages: unknown[]; max_tokens: number };
    expect(body.max_tokens).toBe(300);
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are an agent.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}`, detail: 'high' } },
        ],
      },
    ]);
  });

  it('takes the model id from the response body (the model that actually served the call)', () => {
    const parsed = createOpenAIChatModel('gpt-4.1', { apiKey: 'k' }).parseResponseBody({
      model: 'gpt-4.1-2025-04-14',
      choices: [{ message: { content: 'hi' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 1 },
    });
    expect(parsed.modelId).toBe('gpt-4.1-2025-04-14');
    expect(parsed.usage.modelId).toBe('gpt-4.1-2025-04-14');
  });

  it.each(['json_schema', 'tool', 'function'] as const)(
    'returns a structured object in %s mode',
    async mode => {
      await start(() => ({ object: verdict }));
      const result = await model('gpt-4.1', { structuredOutput: mode }).generate({
        messages: [{ role: 'user', content: 'judge' }],
        responseFormat: { type: 'json', name: 'judge_agent_actions', schema },
      });
      expect(result.object).toEqual(verdict);
      expect(JSON.parse(result.objectText!)).toEqual(verdict);
      expect(server!.calls[0]!.body).toHaveProperty(
        mode === 'json_schema'
          ? 'response_format'
          : mode === 'tool'
            ? 'tool_choice'
            : 'function_call',
      );
    },
  );

  it('returns tool calls with parsed arguments', async () => {
    await start(call => {
      expect(call.forcedToolName).toBe('click');
      return { object: { x: 10, y: 20 } };
    });
    const result = await model('gpt-4.1').generate({
      messages: [{ role: 'user', content: 'click the button' }],
      tools: [
        {
          name: 'click',
          description: 'Click at a point',
          parameters: {
            type: 'object',
            properties: { x: { type: 'number' }, y: { type: 'number' } },
            required: ['x', 'y'],
          },
        },
      ],
      toolChoice: { name: 'click' },
    });
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({ name: 'click', input: { x: 10, y: 20 } });
  });

  it('replays tool calls and results as assistant tool_calls and tool messages', () => {
    const body = createOpenAIChatModel('gpt-4.1', { apiKey: 'k' }).buildRequestBody({
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', id: 'c1', name: 'click', input: { x: 1 } }],
        },
        { role: 'user', content: [{ type: 'tool-result', toolCallId: 'c1', content: 'clicked' }] },
      ],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'click', arguments: '{"x":1}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'clicked' },
    ]);
  });

  it('gives reasoning models max_completion_tokens and no sampling parameters', () => {
    const body = createOpenAIChatModel('o4-mini', { apiKey: 'k' }).buildRequestBody({
      messages: [{ role: 'user', content: 'x' }],
      maxOutputTokens: 50,
      temperature: 1,
      topP: 0.9,
      seed: 0,
      stop: ['END'],
    });
    expect(body).toEqual({
      model: 'o4-mini',
      messages: [{ role: 'user', content: 'x' }],
      max_completion_tokens: 50,
    });
  });
});

describe('createModel routes names', () => {
  it('sends the id without its provider prefix', async () => {
    await start(() => ({ text: 'ok' }));
    const routed = createModel('openai-compatible/Qwen/Qwen2.5-VL-72B-Instruct', {
      openai: { baseURL: server!.openaiBaseUrl, maxRetries: 0 },
    });
    expect(routed.provider).toBe('openai-compatible');
    await routed.generate({ messages: [{ role: 'user', content: 'hi' }] });
    expect(server!.calls[0]!.model).toBe('Qwen/Qwen2.5-VL-72B-Instruct');
  });
});
