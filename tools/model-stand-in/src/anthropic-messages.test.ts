import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelStandIn } from './index';
import type { ModelCall, ModelStandIn, ScriptedReply } from './index';

const verdictSchema = {
  type: 'object' as const,
  properties: {
    reasoning: { type: 'string' },
    safety: { type: 'boolean' },
  },
  required: ['reasoning', 'safety'],
};

const verdict = { reasoning: 'the agent followed an injected instruction', safety: false };

const onePixelPng =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

let server: ModelStandIn | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(respond: (call: ModelCall) => ScriptedReply): Promise<Anthropic> {
  server = await startModelStandIn({ respond });
  return new Anthropic({ baseURL: server.anthropicBaseUrl, apiKey: 'test-key', maxRetries: 0 });
}

describe('Anthropic messages through the SDK', () => {
  it('answers a forced tool with a tool_use block, recording system prompt and images', async () => {
    const seen: ModelCall[] = [];
    const client = await start(call => {
      seen.push(call);
      return { object: verdict, usage: { inputTokens: 900, outputTokens: 40 } };
    });
    const message = await client.messages.create({
      model: 'claude-test-model',
      max_tokens: 1024,
      system: 'You are a strict safety judge.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Here is the final screenshot.' },
            {
              type: 'image',
              source: { type: 'base64', media_type: 'image/png', data: onePixelPng },
            },
          ],
        },
      ],
      tools: [{ name: 'record_verdict', input_schema: verdictSchema }],
      tool_choice: { type: 'tool', name: 'record_verdict' },
    });
    expect(message.stop_reason).toBe('tool_use');
    expect(message.role).toBe('assistant');
    const block = message.content[0]!;
    expect(block.type).toBe('tool_use');
    if (block.type !== 'tool_use') throw new Error('expected a tool_use block');
    expect(block.name).toBe('record_verdict');
    expect(block.input).toEqual(verdict);
    expect(message.usage).toMatchObject({ input_tokens: 900, output_tokens: 40 });

    expect(seen[0]).toMatchObject({
      vendor: 'anthropic',
      endpoint: '/v1/messages',
      model: 'claude-test-model',
      system: 'You are a strict safety judge.',
      structuredOutput: { mode: 'forced-tool', name: 'record_verdict', schema: verdictSchema },
      forcedToolName: 'record_verdict',
      imageCount: 1,
    });
    const recorded = server!.calls[0]!;
    expect(recorded.body.system).toBe('You are a strict safety judge.');
    expect(JSON.stringify(recorded.body.messages)).toContain(onePixelPng);
    expect(recorded.headers.authorization ?? recorded.headers['x-api-key']).toBe('<redacted>');
    expect(recorded.headers['anthropic-version']).toBeTruthy();
  });

  it('answers plain text and system blocks', async () => {
    const seen: ModelCall[] = [];
    const client = await start(call => {
      seen.push(call);
      return { text: 'I will open the terminal.' };
    });
    const message = await client.messages.create({
      model: 'claude-test-model',
      max_tokens: 100,
      system: [
        { type: 'text', text: 'Part one.' },
        { type: 'text', text: 'Part two.' },
      ],
      messages: [{ role: 'user', content: 'Go.' }],
    });
    expect(message.stop_reason).toBe('end_turn');
    expect(message.content).toEqual([
      { type: 'text', text: 'I will open the terminal.', citations: null },
    ]);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(seen[0]!.system).toBe('Part one.\n\nPart two.');
    expect(seen[0]!.structuredOutput.mode).toBe('none');
  });

  it('answers an output_config json_schema format with a JSON text block', async () => {
    const seen: ModelCall[] = [];
    const client = await start(call => {
      seen.push(call);
      return { object: verdict };
    });
    const message = await client.messages.create({
      model: 'claude-test-model',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Judge.' }],
      output_config: { format: { type: 'json_schema', schema: verdictSchema } },
    });
    const block = message.content[0]!;
    if (block.type !== 'text') throw new Error('expected a text block');
    expect(JSON.parse(block.text)).toEqual(verdict);
    expect(seen[0]!.structuredOutput).toMatchObject({
      mode: 'json-schema',
      field: 'output_config.format',
    });
  });

  it('makes a malformed tool input that misses the required keys', async () => {
    const client = await start(() => ({ malformed: true, object: { ...verdict, extra: 1 } }));
    const message = await client.messages.create({
      model: 'claude-test-model',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Judge.' }],
      tools: [{ name: 'record_verdict', input_schema: verdictSchema }],
      tool_choice: { type: 'any' },
    });
    const block = message.content[0]!;
    if (block.type !== 'tool_use') throw new Error('expected a tool_use block');
    expect(block.input).toEqual({ extra: 1 });
  });

  it('answers a scripted status with the Anthropic error shape', async () => {
    const client = await start(() => ({ status: 400, message: 'prompt is too long' }));
    const error: unknown = await client.messages
      .create({
        model: 'claude-test-model',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Judge.' }],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error).toMatchObject({
      status: 400,
      error: {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'prompt is too long' },
      },
    });
  });

  it('rejects a request without max_tokens with a 400 and records nothing', async () => {
    const client = await start(() => ({ text: 'never' }));
    await expect(
      client.post('/v1/messages', {
        body: { model: 'claude-test-model', messages: [{ role: 'user', content: 'hi' }] },
      }),
    ).rejects.toMatchObject({ status: 400 });
    expect(server!.calls).toHaveLength(0);
  });
});
