import { startModelStandIn, type ModelStandIn } from '@osharm/model-stand-in';
import { afterEach, describe, expect, it } from 'vitest';
import { usageCost } from '@osharm/model-spec';
import { createComputerUseSession } from './computer-use/create-session';
import { createModel } from './router';
import { anthropicUsage, geminiUsage, openAIChatUsage, openAIResponsesUsage } from './usage';

// One usage, scripted into each vendor's wire by the stand-in and read back through the SDKs.
const scripted = {
  inputTokens: 12_000,
  outputTokens: 900,
  cachedInputTokens: 8_000,
  cacheWriteTokens: 1_500,
  reasoningTokens: 400,
};
const noWrite = { ...scripted, cacheWriteTokens: undefined };
const shot = { data: Buffer.from('png').toString('base64') };
const display = { width: 1280, height: 720 };

let server: ModelStandIn | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('usage through the SDKs, per vendor', () => {
  it('Anthropic Messages: cache reads and writes are added to input_tokens', async () => {
    server = await startModelStandIn({ respond: () => ({ text: 'ok', usage: scripted }) });
    const model = createModel('claude-opus-4-7', {
      anthropic: { apiKey: 'k', baseURL: server.anthropicBaseUrl, maxRetries: 0 },
    });
    const result = await model.generate({ messages: [{ role: 'user', content: 'hi' }] });
    // on the wire: input_tokens 2,500 (the uncached rest), reads 8,000, writes 1,500
    const wire = (result.raw as { usage: Record<string, number> }).usage;
    expect(wire).toMatchObject({
      input_tokens: 2_500,
      cache_read_input_tokens: 8_000,
      cache_creation_input_tokens: 1_500,
    });
    // Anthropic reports no reasoning count apart
    const { reasoningTokens: _, ...anthropic } = scripted;
    expect(result.usage).toEqual({ ...anthropic, modelId: 'claude-opus-4-7' });
    // 2,500 × 5 + 8,000 × 0.5 + 1,500 × 6.25 + 900 × 25 = 12,500 + 4,000 + 9,375 + 22,500 = 48,375
    expect(usageCost(result.modelId, result.usage)).toBeCloseTo(0.048375, 12);
  });

  it('OpenAI Chat Completions: cached and reasoning details', async () => {
    server = await startModelStandIn({ respond: () => ({ text: 'ok', usage: noWrite }) });
    const model = createModel('gpt-4.1', {
      openai: { apiKey: 'k', baseURL: server.openaiBaseUrl, maxRetries: 0 },
    });
    const result = await model.generate({ messages: [{ role: 'user', content: 'hi' }] });
    expect(result.usage).toEqual({
      inputTokens: 12_000,
      outputTokens: 900,
      cachedInputTokens: 8_000,
      reasoningTokens: 400,
      modelId: 'gpt-4.1',
    });
  });

  it('OpenAI Responses and Anthropic computer use sessions', async () => {
    server = await startModelStandIn({
      respond: () => ({ text: 'done', calls: [], usage: noWrite }),
    });
    const openai = createComputerUseSession('computer-use-preview', {
      display,
      apiKey: 'k',
      baseURL: server.openaiBaseUrl,
      maxRetries: 0,
    });
    const turn = await openai.start('Do it.', shot);
    expect(turn.usage).toMatchObject({
      inputTokens: 12_000,
      outputTokens: 900,
      cachedInputTokens: 8_000,
      reasoningTokens: 400,
    });
    await server.close();
    server = await startModelStandIn({
      respond: () => ({ text: 'done', calls: [], usage: scripted }),
    });
    const claude = createComputerUseSession('claude-fable-5', {
      display,
      apiKey: 'k',
      baseURL: server.anthropicBaseUrl,
      maxRetries: 0,
    });
    const claudeTurn = await claude.start('Do it.', shot);
    expect(claudeTurn.usage).toMatchObject({
      inputTokens: 12_000,
      outputTokens: 900,
      cachedInputTokens: 8_000,
      cacheWriteTokens: 1_500,
    });
  });

  it('Gemini: thoughts are output, cached content part of the prompt', async () => {
    server = await startModelStandIn({
      respond: () => ({ text: 'done', calls: [], usage: noWrite }),
    });
    const session = createComputerUseSession('gemini-2.5-computer-use-preview-10-2025', {
      display,
      apiKey: 'k',
      baseURL: server.geminiBaseUrl,
      maxRetries: 0,
    });
    const turn = await session.start('Do it.', shot);
    expect(turn.usage).toEqual({
      inputTokens: 12_000,
      outputTokens: 900,
      cachedInputTokens: 8_000,
      reasoningTokens: 400,
      modelId: 'gemini-2.5-computer-use-preview-10-2025',
    });
  });
});

describe('usage blocks a vendor did not send', () => {
  it('count as one unreported call, whose cost is unknown', () => {
    for (const parse of [anthropicUsage, openAIChatUsage, openAIResponsesUsage, geminiUsage]) {
      const usage = parse(undefined);
      expect(usage).toEqual({ inputTokens: 0, outputTokens: 0, unreportedCalls: 1 });
      expect(usageCost('claude-opus-4-7', usage)).toBeNull();
    }
    expect(openAIChatUsage({ prompt_tokens: -3, completion_tokens: 1 }).unreportedCalls).toBe(1);
  });
});
