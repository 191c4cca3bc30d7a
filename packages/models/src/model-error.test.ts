import { createServer } from 'node:net';
import { startModelStandIn, type ModelStandIn, type ScriptedReply } from '@osharm/model-stand-in';
import { afterEach, describe, expect, it } from 'vitest';
import { ModelError } from './model-error';
import { createAnthropicMessagesModel } from './anthropic-messages-model';
import { createOpenAIChatModel } from './openai-chat-model';

let server: ModelStandIn | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(ModelError.isInstance(error)).toBe(true);
  return error as ModelError;
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>(resolve => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>(resolve => probe.close(() => resolve()));
  return port;
}

describe.each(['openai', 'anthropic'] as const)('ModelError from the %s adapter', vendor => {
  const make = (settings: { maxRetries?: number; timeout?: number; baseURL?: string } = {}) => {
    const common = { apiKey: 'test-key', maxRetries: 0, ...settings };
    return vendor === 'openai'
      ? createOpenAIChatModel('gpt-4.1', { baseURL: server?.openaiBaseUrl, ...common })
      : createAnthropicMessagesModel('claude-sonnet-4-20250514', {
          baseURL: server?.anthropicBaseUrl,
          ...common,
        });
  };
  const start = async (respond: (index: number) => ScriptedReply) => {
    server = await startModelStandIn({ respond: call => respond(call.index) });
  };

  it('retries a 429 with the SDK and succeeds', async () => {
    await start(index => (index === 0 ? { status: 429 } : { text: 'after the wait' }));
    const result = await make({ maxRetries: 2 }).generate(ask);
    expect(result.text).toBe('after the wait');
    expect(server!.calls).toHaveLength(2);
  });

  it('a 429 that persists: rate-limit, retryable, after maxRetries + 1 calls', async () => {
    await start(() => ({ status: 429 }));
    const error = await failure(make({ maxRetries: 1 }).generate(ask));
    expect(error).toMatchObject({
      kind: 'rate-limit',
      status: 429,
      retryable: true,
      provider: vendor,
    });
    expect(error.vendorName).toBe('RateLimitError');
    expect(server!.calls).toHaveLength(2);
  });

  it('a 500: server, retryable, with the request id the server sent', async () => {
    await start(() => ({
      status: 500,
      headers: { 'x-request-id': 'req_abc', 'request-id': 'req_abc' },
    }));
    const error = await failure(make({ maxRetries: 1 }).generate(ask));
    expect(error).toMatchObject({
      kind: 'server',
      status: 500,
      retryable: true,
      requestId: 'req_abc',
    });
    expect(server!.calls).toHaveLength(2);
  });

  it('a 401: auth, not retryable, not retried', async () => {
    await start(() => ({ status: 401 }));
    const error = await failure(make({ maxRetries: 2 }).generate(ask));
    expect(error).toMatchObject({ kind: 'auth', status: 401, retryable: false });
    expect(server!.calls).toHaveLength(1);
  });

  it('a 400: bad-request', async () => {
    await start(() => ({ status: 400 }));
    const error = await failure(make().generate(ask));
    expect(error).toMatchObject({ kind: 'bad-request', status: 400, retryable: false });
  });

  it('connection refused: refused, with ECONNREFUSED, unreachable', async () => {
    const port = await closedPort();
    const error = await failure(make({ baseURL: `http://127.0.0.1:${port}/v1` }).generate(ask));
    expect(error).toMatchObject({ kind: 'refused', code: 'ECONNREFUSED', retryable: true });
    expect(error.unreachable).toBe(true);
    expect(error.status).toBeUndefined();
  });

  it('no answer within the timeout: timeout', async () => {
    await start(() => ({ hang: true }));
    const error = await failure(make({ timeout: 300 }).generate(ask));
    expect(error).toMatchObject({ kind: 'timeout', retryable: true });
    expect(error.unreachable).toBe(false);
  });

  it('a per-request timeout overrides the adapter default', async () => {
    await start(() => ({ hang: true }));
    const error = await failure(make({ timeout: 600_000 }).generate({ ...ask, timeout: 300 }));
    expect(error.kind).toBe('timeout');
  });

  it('an abort: aborted, not retryable', async () => {
    await start(() => ({ hang: true }));
    const controller = new AbortController();
    const pending = make().generate({ ...ask, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const error = await failure(pending);
    expect(error).toMatchObject({ kind: 'aborted', retryable: false });
  });

  it('no API key: setting, before any request', async () => {
    const keyless =
      vendor === 'openai'
        ? createOpenAIChatModel('gpt-4.1', { env: {} })
        : createAnthropicMessagesModel('claude-x', { env: {} });
    const error = await failure(keyless.generate(ask));
    expect(error.kind).toBe('setting');
  });
});
