import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelStandIn } from './index';
import type { ModelStandIn } from './index';

let server: ModelStandIn | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const question = { role: 'user' as const, content: 'hello' };

describe('stand-in server', () => {
  it('answers 401 in the OpenAI shape without an API key', async () => {
    server = await startModelStandIn({ respond: () => ({ text: 'unused' }) });
    const client = new OpenAI({
      baseURL: server.openaiBaseUrl,
      apiKey: 'test',
      maxRetries: 0,
      defaultHeaders: { Authorization: null },
    });
    const error: unknown = await client.chat.completions
      .create({ model: 'gpt-4.1', messages: [question] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(server.calls).toHaveLength(0);
  });

  it('answers 401 in the Anthropic shape without an API key', async () => {
    server = await startModelStandIn({ respond: () => ({ text: 'unused' }) });
    const client = new Anthropic({
      baseURL: server.anthropicBaseUrl,
      apiKey: 'test',
      maxRetries: 0,
      defaultHeaders: { Authorization: null },
    });
    const error: unknown = await client.messages
      .create({ model: 'claude-test-model', max_tokens: 5, messages: [question] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(error).toMatchObject({
      status: 401,
      error: { type: 'error', error: { type: 'authentication_error' } },
    });
  });

  it('accepts the Anthropic x-api-key header', async () => {
    server = await startModelStandIn({ respond: () => ({ text: 'ok' }) });
    const response = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'secret', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-test-model', max_tokens: 5, messages: [question] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('request-id')).toMatch(/^req_/);
    expect(server.calls[0]!.headers['x-api-key']).toBe('<redacted>');
  });

  it('answers unknown routes with 404 JSON and bad JSON with 400 JSON', async () => {
    server = await startModelStandIn({ respond: () => ({ text: 'unused' }) });
    const headers = { authorization: 'Bearer test', 'content-type': 'application/json' };
    const missing = await fetch(`${server.url}/v1/embeddings`, { method: 'POST', headers });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
    const broken = await fetch(`${server.openaiBaseUrl}/chat/completions`, {
      method: 'POST',
      headers,
      body: '{"model": "gpt',
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({
      error: { message: expect.stringContaining('not valid JSON') },
    });
    const brokenAnthropic = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers,
      body: '[1, 2',
    });
    expect(brokenAnthropic.status).toBe(400);
    expect(await brokenAnthropic.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
    });
    expect(server.calls).toHaveLength(0);
  });

  it('answers 500 with the reason when respond throws or returns a wrong reply', async () => {
    let turn = 0;
    server = await startModelStandIn({
      respond: () => {
        turn += 1;
        if (turn === 1) throw new Error('script ran out');
        return { text: 'a', object: {} } as never;
      },
    });
    const client = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 });
    for (const expected of ['script ran out', 'exactly one of']) {
      const error: unknown = await client.chat.completions
        .create({ model: 'gpt-4.1', messages: [question] })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({
        status: 500,
        message: expect.stringContaining(expected),
      });
    }
    expect(server.calls.map(call => call.error)).toEqual([
      expect.stringContaining('script ran out'),
      expect.stringContaining('exactly one of'),
    ]);
  });

  it('closes even with a hanging request open', async () => {
    server = await startModelStandIn({ respond: () => ({ hang: true }) });
    const client = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 });
    const pending = client.chat.completions
      .create({ model: 'gpt-4.1', messages: [question] })
      .catch((caught: unknown) => caught);
    while (server.calls.length === 0) await new Promise(resolve => setTimeout(resolve, 5));
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await pending).toBeInstanceOf(OpenAI.APIConnectionError);
    await server.close(); // a second close is harmless
  });

  it('closes idle keep-alive connections', async () => {
    server = await startModelStandIn({ respond: () => ({ text: 'ok' }) });
    const client = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 });
    await client.chat.completions.create({ model: 'gpt-4.1', messages: [question] });
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
