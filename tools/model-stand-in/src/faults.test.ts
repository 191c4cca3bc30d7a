import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createFaultSequence, createSeededRandom, startModelStandIn } from './index';
import type { ModelFault, ModelStandIn } from './index';

let server: ModelStandIn | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const question = { role: 'user' as const, content: 'Was this safe?' };

describe('seeded fault sequence', () => {
  it('gives the same faults for the same seed and others for another seed', () => {
    const rates = { rateLimit: 0.1, serverError: 0.05, timeout: 0.02, malformed: 0.1 };
    const draw = (seed: number) => {
      const next = createFaultSequence({ ...rates, seed });
      return Array.from({ length: 200 }, () => next());
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
    expect(createSeededRandom(7)()).toBe(createSeededRandom(7)());
  });

  it('matches the rates over 1000 draws', () => {
    const next = createFaultSequence({
      rateLimit: 0.2,
      serverError: 0.1,
      timeout: 0.05,
      malformed: 0.15,
      seed: 2024,
    });
    const counts = new Map<ModelFault | undefined, number>();
    for (let draw = 0; draw < 1000; draw += 1) {
      const fault = next();
      counts.set(fault, (counts.get(fault) ?? 0) + 1);
    }
    // Binomial standard deviations at n = 1000 are 7–16; allow about 4 of them.
    expect(counts.get('rate-limit')).toBeGreaterThan(140);
    expect(counts.get('rate-limit')).toBeLessThan(260);
    expect(counts.get('server-error')).toBeGreaterThan(60);
    expect(counts.get('server-error')).toBeLessThan(140);
    expect(counts.get('timeout')).toBeGreaterThan(20);
    expect(counts.get('timeout')).toBeLessThan(80);
    expect(counts.get('malformed')).toBeGreaterThan(100);
    expect(counts.get('malformed')).toBeLessThan(200);
    expect(counts.get(undefined)).toBeGreaterThan(430);
    expect(counts.get(undefined)).toBeLessThan(570);
  });

  it('gives no fault at rate 0 and always the fault at rate 1', () => {
    const never = createFaultSequence({ seed: 3 });
    const always = createFaultSequence({ serverError: 1, seed: 3 });
    for (let draw = 0; draw < 100; draw += 1) {
      expect(never()).toBeUndefined();
      expect(always()).toBe('server-error');
    }
  });

  it('refuses probabilities outside [0, 1] or adding up to more than 1', async () => {
    expect(() => createFaultSequence({ rateLimit: 1.5 })).toThrow(RangeError);
    expect(() => createFaultSequence({ rateLimit: 0.6, malformed: 0.6 })).toThrow(/add up/);
    await expect(
      startModelStandIn({ respond: () => ({ text: '' }), faults: { timeout: -1 } }),
    ).rejects.toThrow(RangeError);
  });
});

describe('faults through the SDKs', () => {
  it('retries a scripted 429 with retry-after, then succeeds', async () => {
    server = await startModelStandIn({
      respond: call => (call.index === 0 ? { status: 429 } : { object: { safety: true } }),
    });
    const client = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 1 });
    const started = Date.now();
    const { data, response } = await client.chat.completions
      .create({ model: 'gpt-4.1', messages: [question] })
      .withResponse();
    expect(JSON.parse(data.choices[0]!.message.content!)).toEqual({ safety: true });
    expect(Date.now() - started).toBeLessThan(350); // retry-after-ms: 10, not the ≥ 375 ms backoff
    expect(response.status).toBe(200);
    expect(server.calls).toHaveLength(2);
    expect(server.calls[1]!.headers['x-stainless-retry-count']).toBe('1');
  });

  it('sends retry-after and retry-after-ms with a 429 fault', async () => {
    server = await startModelStandIn({
      respond: () => ({ text: 'unused' }),
      faults: { rateLimit: 1, retryAfterSeconds: 2.5 },
    });
    const client = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 });
    const error: unknown = await client.chat.completions
      .create({ model: 'gpt-4.1', messages: [question] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const headers = (error as InstanceType<typeof OpenAI.RateLimitError>).headers;
    expect(headers.get('retry-after')).toBe('3');
    expect(headers.get('retry-after-ms')).toBe('2500');
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect(server.calls[0]!.fault).toBe('rate-limit');
  });

  it('retries an injected Anthropic rate limit until the draw lets it through', async () => {
    // Seed 7 with rate 0.5 draws two rate limits first: the SDK must retry twice.
    const next = createFaultSequence({ rateLimit: 0.5, seed: 7 });
    let faultsFirst = 0;
    while (next() === 'rate-limit') faultsFirst += 1;
    expect(faultsFirst).toBe(2);
    server = await startModelStandIn({
      respond: () => ({ text: 'through' }),
      faults: { rateLimit: 0.5, seed: 7 },
    });
    const client = new Anthropic({
      baseURL: server.anthropicBaseUrl,
      apiKey: 'test',
      maxRetries: faultsFirst + 1,
    });
    const message = await client.messages.create({
      model: 'claude-test-model',
      max_tokens: 10,
      messages: [question],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'through', citations: null }]);
    expect(server.calls.map(call => call.fault)).toEqual([
      ...Array.from({ length: faultsFirst }, () => 'rate-limit'),
      undefined,
    ]);
  });

  it('records the same fault sequence as createFaultSequence predicts', async () => {
    const faults = { rateLimit: 0.2, serverError: 0.2, malformed: 0.2, seed: 11 };
    server = await startModelStandIn({ respond: () => ({ object: { ok: true } }), faults });
    const client = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 });
    for (let call = 0; call < 20; call += 1)
      await client.chat.completions
        .create({ model: 'gpt-4.1', messages: [question] })
        .catch(() => undefined);
    const next = createFaultSequence(faults);
    expect(server.calls.map(call => call.fault)).toEqual(Array.from({ length: 20 }, () => next()));
  });

  it('answers 500 for a server-error fault (SDK error with status 500)', async () => {
    server = await startModelStandIn({
      respond: () => ({ text: 'unused' }),
      faults: { serverError: 1 },
    });
    const client = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 });
    const error: unknown = await client.chat.completions
      .create({ model: 'gpt-4.1', messages: [question] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error).toMatchObject({ status: 500, type: 'server_error' });
  });

  it('makes the SDK time out on a timeout fault', async () => {
    server = await startModelStandIn({
      respond: () => ({ text: 'unused' }),
      faults: { timeout: 1, timeoutMs: 5_000 },
    });
    const client = new Anthropic({
      baseURL: server.anthropicBaseUrl,
      apiKey: 'test',
      maxRetries: 0,
      timeout: 200,
    });
    const started = Date.now();
    await expect(
      client.messages.create({ model: 'claude-test-model', max_tokens: 10, messages: [question] }),
    ).rejects.toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(server.calls[0]!.fault).toBe('timeout');
  });

  it('drops the connection when a timeout fault outlasts timeoutMs', async () => {
    server = await startModelStandIn({
      respond: () => ({ text: 'unused' }),
      faults: { timeout: 1, timeoutMs: 50 },
    });
    const client = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 });
    await expect(
      client.chat.completions.create({ model: 'gpt-4.1', messages: [question] }),
    ).rejects.toBeInstanceOf(OpenAI.APIConnectionError);
  });

  it('resets the connection at once on a drop fault (SDK connection error, then a retry)', async () => {
    server = await startModelStandIn({
      respond: () => ({ text: 'after the drop' }),
      faults: { drop: 0.5, seed: 3 },
    });
    const draws = createFaultSequence({ drop: 0.5, seed: 3 });
    const first = draws();
    const client = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 });
    const outcome: unknown = await client.chat.completions
      .create({ model: 'gpt-4.1', messages: [question] })
      .catch((caught: unknown) => caught);
    if (first === 'drop') expect(outcome).toBeInstanceOf(OpenAI.APIConnectionError);
    else expect(outcome).toMatchObject({ choices: [{ message: { content: 'after the drop' } }] });
    // Every drop is a reset: with retries the SDK gets through once the draw lets it.
    const retrying = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 8 });
    const answer = await retrying.chat.completions.create({
      model: 'gpt-4.1',
      messages: [question],
    });
    expect(answer.choices[0]!.message.content).toBe('after the drop');
    expect(server.calls.some(call => call.fault === 'drop')).toBe(true);
  });

  it('makes the SDK time out on a scripted hang', async () => {
    server = await startModelStandIn({ respond: () => ({ hang: true }) });
    const client = new OpenAI({
      baseURL: server.openaiBaseUrl,
      apiKey: 'test',
      maxRetries: 0,
      timeout: 200,
    });
    await expect(
      client.chat.completions.create({ model: 'gpt-4.1', messages: [question] }),
    ).rejects.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });

  it('breaks the scripted object on a malformed fault', async () => {
    server = await startModelStandIn({
      respond: () => ({ object: { reasoning: 'fine', safety: true } }),
      faults: { malformed: 1 },
    });
    const client = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'gpt-4.1',
      messages: [question],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'verdict', schema: { type: 'object' } },
      },
    });
    const content = completion.choices[0]!.message.content!;
    expect(() => JSON.parse(content)).toThrow(SyntaxError);
    expect(content.startsWith('{"reasoning":')).toBe(true);
    expect(server.calls[0]!.fault).toBe('malformed');
  });

  it('cuts a scripted text in half, marked as hitting the token limit, on a malformed fault', async () => {
    server = await startModelStandIn({
      respond: () => ({ text: 'A desktop with a terminal window.' }),
      faults: { malformed: 1 },
    });
    const client = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [question],
    });
    expect(completion.choices[0]!.message.content).toBe('A desktop with a ');
    expect(completion.choices[0]!.finish_reason).toBe('length');
  });

  it('waits latencyMs and reply.delayMs before answering', async () => {
    server = await startModelStandIn({
      respond: () => ({ text: 'slow', delayMs: 60 }),
      latencyMs: 60,
    });
    const client = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 });
    const started = Date.now();
    await client.chat.completions.create({ model: 'gpt-4.1', messages: [question] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });
});
