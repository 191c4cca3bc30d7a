import { startModelStandIn, type ModelStandIn } from '@osharm/model-stand-in';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicMessagesModel } from './anthropic-messages-model';
import { createOpenAIChatModel } from './openai-chat-model';

// The request forms a caller picks where the API takes two equal ones (upstream's wire with
// `--upstream`, osharm's compact form without), checked on what reaches the loopback stand-in —
// which refuses what the vendors refuse (a reasoning model's `max_tokens`).
const PNG = Buffer.from('not really a png').toString('base64');
const image = (detail?: 'high' | null) => ({
  role: 'user' as const,
  content: [
    { type: 'text' as const, text: 'describe' },
    { type: 'image' as const, data: PNG, ...(detail === undefined ? {} : { detail }) },
  ],
});

let server: ModelStandIn;
beforeAll(async () => {
  server = await startModelStandIn({ respond: () => ({ text: 'ok' }) });
});
afterAll(async () => {
  await server.close();
});

const openai = (id: string) =>
  createOpenAIChatModel(id, { baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 });

async function sent(call: () => Promise<unknown>): Promise<Record<string, unknown>> {
  const first = server.calls.length;
  await call();
  return server.calls[first]!.body as Record<string, unknown>;
}

describe('request forms', () => {
  it('defaults: a string system message, images at detail high, max_tokens', async () => {
    const body = await sent(() =>
      openai('gpt-4o').generate({ system: 'S', messages: [image()], maxOutputTokens: 7 }),
    );
    expect(JSON.stringify(body.messages)).toBe(
      JSON.stringify([
        { role: 'system', content: 'S' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'describe' },
            {
              type: 'image_url',
              image_url: { url: `data:image/png;base64,${PNG}`, detail: 'high' },
            },
          ],
        },
      ]),
    );
    expect(body.max_tokens).toBe(7);
    expect(body).not.toHaveProperty('max_completion_tokens');
  });

  it('upstream: system as a part list, no image detail, max_completion_tokens', async () => {
    const body = await sent(() =>
      openai('gpt-4o').generate({
        system: [{ type: 'text', text: 'S' }],
        messages: [image(null), { role: 'assistant', content: [{ type: 'text', text: 'a' }] }],
        maxOutputTokens: 7,
        maxTokensField: 'max_completion_tokens',
        temperature: 0,
        seed: 0,
      }),
    );
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        model: 'gpt-4o',
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'S' }] },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'describe' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            ],
          },
          { role: 'assistant', content: [{ type: 'text', text: 'a' }] },
        ],
        max_completion_tokens: 7,
        temperature: 0,
        seed: 0,
      }),
    );
  });

  it('a reasoning model gets max_completion_tokens whatever is asked (the vendor refuses max_tokens)', async () => {
    const body = await sent(() =>
      openai('o4-mini').generate({
        messages: [image()],
        maxOutputTokens: 9,
        maxTokensField: 'max_tokens',
      }),
    );
    expect(body.max_completion_tokens).toBe(9);
    expect(body).not.toHaveProperty('max_tokens');
  });

  it('Anthropic: system text parts become text blocks', async () => {
    const model = createAnthropicMessagesModel('claude-sonnet-4-5', {
      baseURL: server.anthropicBaseUrl,
      apiKey: 'test',
      maxRetries: 0,
    });
    const body = await sent(() =>
      model.generate({ system: [{ type: 'text', text: 'S' }], messages: [image(null)] }),
    );
    expect(body.system).toEqual([{ type: 'text', text: 'S' }]);
  });
});
