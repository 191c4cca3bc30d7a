import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startModelStandIn } from './index';
import type { ModelCall, ModelStandIn, ScriptedReply } from './index';

const verdictSchema = {
  type: 'object',
  properties: {
    reasoning: { type: 'string' },
    safety: { type: 'boolean' },
  },
  required: ['reasoning', 'safety'],
  additionalProperties: false,
};

const verdict = { reasoning: 'the agent deleted the files it was told to keep', safety: false };

let server: ModelStandIn | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(respond: (call: ModelCall) => ScriptedReply): Promise<OpenAI> {
  server = await startModelStandIn({ respond });
  return new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'test-key', maxRetries: 0 });
}

describe('OpenAI chat completions through the SDK', () => {
  it('answers a json_schema response_format with the object as JSON content', async () => {
    const seen: ModelCall[] = [];
    const client = await start(call => {
      seen.push(call);
      return { object: verdict };
    });
    const completion = await client.chat.completions.create({
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: 'You judge agents.' },
        { role: 'user', content: 'Was this safe?' },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'verdict', strict: true, schema: verdictSchema },
      },
    });
    const choice = completion.choices[0]!;
    expect(JSON.parse(choice.message.content!)).toEqual(verdict);
    expect(choice.finish_reason).toBe('stop');
    expect(completion.model).toBe('gpt-4.1');
    expect(seen[0]).toMatchObject({
      vendor: 'openai',
      endpoint: '/v1/chat/completions',
      model: 'gpt-4.1',
      system: 'You judge agents.',
      structuredOutput: { mode: 'json-schema', field: 'response_format', name: 'verdict' },
      forcedToolName: undefined,
      index: 0,
      via: 'direct',
      fault: undefined,
    });
    expect(seen[0]!.structuredOutput.schema).toEqual(verdictSchema);
    expect(server!.calls).toHaveLength(1);
    expect(server!.calls[0]).toMatchObject({ vendor: 'openai', model: 'gpt-4.1', via: 'direct' });
    expect(server!.calls[0]!.body.response_format).toMatchObject({ type: 'json_schema' });
  });

  it('answers a forced tool with tool_calls', async () => {
    const client = await start(() => ({ object: verdict }));
    const completion = await client.chat.completions.create({
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'Judge.' }],
      tools: [
        { type: 'function', function: { name: 'record_verdict', parameters: verdictSchema } },
        { type: 'function', function: { name: 'other_tool', parameters: { type: 'object' } } },
      ],
      tool_choice: { type: 'function', function: { name: 'record_verdict' } },
    });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const toolCall = choice.message.tool_calls![0]!;
    expect(toolCall.type).toBe('function');
    if (toolCall.type !== 'function') throw new Error('expected a function tool call');
    expect(toolCall.function.name).toBe('record_verdict');
    expect(JSON.parse(toolCall.function.arguments)).toEqual(verdict);
    expect(server!.calls).toHaveLength(1);
  });

  it('answers legacy functions + function_call with function_call', async () => {
    const seen: ModelCall[] = [];
    const client = await start(call => {
      seen.push(call);
      return { object: verdict };
    });
    const completion = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Judge.' }],
      functions: [{ name: 'record_verdict', parameters: verdictSchema }],
      function_call: { name: 'record_verdict' },
    });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('function_call');
    expect(choice.message.function_call?.name).toBe('record_verdict');
    expect(JSON.parse(choice.message.function_call!.arguments)).toEqual(verdict);
    expect(seen[0]!.structuredOutput).toMatchObject({
      mode: 'legacy-function',
      name: 'record_verdict',
      schema: verdictSchema,
    });
    expect(seen[0]!.forcedToolName).toBe('record_verdict');
  });

  it('answers plain text, and JSON text when an object is scripted without structured output', async () => {
    let turn = 0;
    const client = await start(() =>
      turn++ === 0 ? { text: 'pyautogui.click(10, 20)' } : { object: { a: 1 } },
    );
    const first = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Act.' }],
    });
    expect(first.choices[0]!.message.content).toBe('pyautogui.click(10, 20)');
    const second = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Act.' }],
    });
    expect(second.choices[0]!.message.content).toBe('{"a":1}');
    expect(server!.calls.map(call => call.index)).toEqual([0, 1]);
  });

  it('reports scripted usage, or a rough estimate', async () => {
    let turn = 0;
    const client = await start(() =>
      turn++ === 0
        ? { text: 'ok', usage: { inputTokens: 1234, outputTokens: 56 } }
        : { text: 'x'.repeat(40) },
    );
    const scripted = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(scripted.usage).toMatchObject({
      prompt_tokens: 1234,
      completion_tokens: 56,
      total_tokens: 1290,
    });
    const estimated = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'y'.repeat(400) }],
    });
    expect(estimated.usage!.completion_tokens).toBe(10);
    expect(estimated.usage!.prompt_tokens).toBeGreaterThanOrEqual(100);
    expect(estimated.usage!.prompt_tokens).toBeLessThan(110);
  });

  it('parses with zodResponseFormat (zod 4) through chat.completions.parse', async () => {
    const client = await start(() => ({ object: verdict }));
    const Verdict = z.object({ reasoning: z.string(), safety: z.boolean() });
    const completion = await client.chat.completions.parse({
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'Judge.' }],
      response_format: zodResponseFormat(Verdict, 'verdict'),
    });
    expect(completion.choices[0]!.message.parsed).toEqual(verdict);
    expect(server!.calls[0]!.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'verdict', strict: true },
    });
  });

  it('makes malformed structured output that does not parse', async () => {
    const client = await start(() => ({ malformed: true, object: verdict }));
    const completion = await client.chat.completions.create({
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'Judge.' }],
      tools: [
        { type: 'function', function: { name: 'record_verdict', parameters: verdictSchema } },
      ],
      tool_choice: 'required',
    });
    const toolCall = completion.choices[0]!.message.tool_calls![0]!;
    if (toolCall.type !== 'function') throw new Error('expected a function tool call');
    expect(toolCall.function.name).toBe('record_verdict');
    expect(() => JSON.parse(toolCall.function.arguments)).toThrow(SyntaxError);
    expect(JSON.stringify(verdict).startsWith(toolCall.function.arguments)).toBe(true);
  });

  it('records headers with the key redacted, and images', async () => {
    const seen: ModelCall[] = [];
    const client = await start(call => {
      seen.push(call);
      return { text: 'done' };
    });
    await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is on the screen?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    });
    const headers = server!.calls[0]!.headers;
    expect(headers.authorization).toBe('<redacted>');
    expect(headers['content-type']).toContain('application/json');
    expect(JSON.stringify(server!.calls)).not.toContain('test-key');
    expect(seen[0]!.imageCount).toBe(1);
  });

  it('rejects stream: true with a 400', async () => {
    const client = await start(() => ({ text: 'never' }));
    await expect(
      client.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      }),
    ).rejects.toMatchObject({ status: 400 });
    expect(server!.calls).toHaveLength(0);
  });
});
