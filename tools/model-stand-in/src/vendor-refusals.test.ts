import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelStandIn, type ModelStandIn } from './index';

/** The stand-in refuses, through the official SDKs, what the capability table says each vendor refuses. */
let server: ModelStandIn;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  server = await startModelStandIn({
    refuseRetired: new Date('2026-11-27T12:00:00Z'),
    respond: () => ({ text: 'ok' }),
  });
  anthropic = new Anthropic({ baseURL: server.anthropicBaseUrl, apiKey: 'k', maxRetries: 0 });
  openai = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'k', maxRetries: 0 });
});
afterAll(() => server.close());

const user = [{ role: 'user' as const, content: 'hi' }];
const claude = (body: Record<string, unknown>) =>
  anthropic.post('/v1/messages', { body: { max_tokens: 16, messages: user, ...body } });

async function status(call: Promise<unknown>): Promise<number | string> {
  try {
    await call;
    return 'ok';
  } catch (error) {
    return (error as { status?: number }).status ?? String(error);
  }
}

describe('vendor refusals per the capability table', () => {
  it('Claude: sampling by family', async () => {
    expect(await status(claude({ model: 'claude-opus-4-7', temperature: 0 }))).toBe(400);
    expect(await status(claude({ model: 'claude-fable-5', top_p: 0.9 }))).toBe(400);
    expect(await status(claude({ model: 'claude-opus-4-7' }))).toBe('ok');
    expect(await status(claude({ model: 'claude-sonnet-5', temperature: 0 }))).toBe(400);
    expect(await status(claude({ model: 'claude-sonnet-5', temperature: 1 }))).toBe('ok');
    expect(await status(claude({ model: 'claude-sonnet-4-6', temperature: 0, top_p: 0.9 }))).toBe(
      400,
    );
    expect(await status(claude({ model: 'claude-sonnet-4-6', temperature: 0 }))).toBe('ok');
    // a model the table lacks is taken as sent
    expect(await status(claude({ model: 'claude-test-model', temperature: 0, top_p: 1 }))).toBe(
      'ok',
    );
  });

  it('Claude: a forced tool where thinking is always on; computer tools by family', async () => {
    const tool = { name: 'verdict', input_schema: { type: 'object', properties: {} } };
    expect(
      await status(
        claude({
          model: 'claude-fable-5',
          tools: [tool],
          tool_choice: { type: 'tool', name: 'verdict' },
        }),
      ),
    ).toBe(400);
    expect(
      await status(
        claude({
          model: 'claude-opus-4-7',
          tools: [tool],
          tool_choice: { type: 'tool', name: 'verdict' },
        }),
      ),
    ).toBe('ok');
    const computer = (type: string) => ({
      type,
      name: 'computer',
      display_width_px: 1280,
      display_height_px: 720,
    });
    expect(
      await status(claude({ model: 'claude-fable-5', tools: [computer('computer_20250124')] })),
    ).toBe(400);
    expect(
      await status(
        claude({ model: 'claude-fable-5', tools: [{ type: 'computer_toolset_20260801' }] }),
      ),
    ).toBe('ok');
    expect(
      await status(claude({ model: 'claude-sonnet-4-5', tools: [computer('computer_20251124')] })),
    ).toBe(400);
  });

  it('OpenAI: reasoning models refuse sampling and max_tokens; a retired model is 404 when asked', async () => {
    const chat = (body: Record<string, unknown>) =>
      openai.post('/chat/completions', { body: { messages: user, ...body } });
    expect(await status(chat({ model: 'gpt-5.5', temperature: 0 }))).toBe(400);
    expect(await status(chat({ model: 'gpt-5.5', max_tokens: 10 }))).toBe(400);
    expect(await status(chat({ model: 'gpt-5.5', max_completion_tokens: 10 }))).toBe('ok');
    expect(await status(chat({ model: 'gpt-4.1', temperature: 0, top_p: 0.5 }))).toBe('ok');
    expect(await status(chat({ model: 'o4-mini', max_completion_tokens: 10 }))).toBe(404);
    expect(await status(claude({ model: 'claude-mythos-preview' }))).toBe(404);
    expect(await status(claude({ model: 'claude-sonnet-4-5' }))).toBe('ok'); // retiring, not retired
  });
});
