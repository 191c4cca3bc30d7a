import { describe, expect, it } from 'vitest';
import { addUsage, MODEL_PRICES, modelPrice, usageCost } from './model-prices';

describe('usageCost', () => {
  it('prices tokens at list price per million, half for batch APIs', () => {
    // gpt-4.1: $2 in, $8 out per 1M → 300,000 × 2 / 1e6 + 50,000 × 8 / 1e6 = 0.6 + 0.4 = 1.0
    expect(usageCost('gpt-4.1', { inputTokens: 300_000, outputTokens: 50_000 })).toBeCloseTo(
      1.0,
      12,
    );
    expect(
      usageCost('gpt-4.1', { inputTokens: 300_000, outputTokens: 50_000 }, { batch: true }),
    ).toBeCloseTo(0.5, 12);
  });

  it('prices cache reads and writes apart from uncached input; reasoning is output', () => {
    // claude-opus-4-7: $5 in, $25 out, $6.25 cache write, $0.50 cache read per 1M.
    // 100,000 input of which 60,000 read and 10,000 written: 30,000 × 5 + 60,000 × 0.5
    // + 10,000 × 6.25 + 2,000 output × 25 = 150,000 + 30,000 + 62,500 + 50,000 = 292,500 / 1e6
    const usage = {
      inputTokens: 100_000,
      outputTokens: 2_000,
      cachedInputTokens: 60_000,
      cacheWriteTokens: 10_000,
      reasoningTokens: 1_500,
    };
    expect(usageCost('claude-opus-4-7', usage)).toBeCloseTo(0.2925, 12);
    // a dated snapshot takes its undated id's price
    expect(usageCost('claude-opus-4-7-20260416', usage)).toBeCloseTo(0.2925, 12);
    expect(modelPrice('claude-sonnet-4-5-20250929')).toBe(MODEL_PRICES['claude-sonnet-4-5']);
  });

  it('is null — unknown, never 0 — for an unpriced model, uncovered cache tokens or bad counts', () => {
    expect(usageCost('my-local-llama', { inputTokens: 1, outputTokens: 1 })).toBeNull();
    expect(usageCost('gemini-3-pro-preview', { inputTokens: 0, outputTokens: 0 })).toBeNull();
    const noCachePrice = { m: { input: 1, output: 1 } };
    expect(
      usageCost(
        'm',
        { inputTokens: 10, outputTokens: 0, cachedInputTokens: 5 },
        { prices: noCachePrice },
      ),
    ).toBeNull();
    expect(
      usageCost('claude-opus-4-7', { inputTokens: 10, outputTokens: 0, cachedInputTokens: 11 }),
    ).toBeNull();
    expect(usageCost('claude-opus-4-7', { inputTokens: -1, outputTokens: 0 })).toBeNull();
    expect(usageCost('claude-opus-4-7', { inputTokens: 1.5, outputTokens: 0 })).toBeNull();
    // a name that is not its own key (`toString`, `__proto__`) has no price
    expect(usageCost('toString', { inputTokens: 1, outputTokens: 1 })).toBeNull();
    expect(
      usageCost(
        'my-local-llama',
        { inputTokens: 1_000_000, outputTokens: 0 },
        { prices: { 'my-local-llama': { input: 0.1, output: 0 } } },
      ),
    ).toBeCloseTo(0.1, 12);
  });
});

describe('addUsage', () => {
  it('adds field by field and keeps an optional field only where one side has it', () => {
    expect(
      addUsage({ inputTokens: 1, outputTokens: 2 }, { inputTokens: 3, outputTokens: 4 }),
    ).toEqual({
      inputTokens: 4,
      outputTokens: 6,
    });
    expect(
      addUsage(
        { inputTokens: 1, outputTokens: 2, cachedInputTokens: 1 },
        { inputTokens: 3, outputTokens: 4, reasoningTokens: 2 },
      ),
    ).toEqual({ inputTokens: 4, outputTokens: 6, cachedInputTokens: 1, reasoningTokens: 2 });
  });
});
