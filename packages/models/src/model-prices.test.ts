import { describe, expect, it } from 'vitest';
import { MODEL_PRICES, usageCost } from './model-prices';

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

  it('is null for a model without a price, and takes a custom table', () => {
    expect(usageCost('my-local-llama', { inputTokens: 1, outputTokens: 1 })).toBeNull();
    expect(
      usageCost(
        'my-local-llama',
        { inputTokens: 1_000_000, outputTokens: 0 },
        { prices: { 'my-local-llama': { input: 0.1, output: 0 } } },
      ),
    ).toBeCloseTo(0.1, 12);
    expect(MODEL_PRICES['o4-mini']).toEqual({ input: 1.1, output: 4.4 });
  });
});
