import { describe, expect, it } from 'vitest';
import { judged } from './__fixtures__/judged';
import { usageTotals } from './usage-totals';

describe('usageTotals', () => {
  it('sums tokens per role and model and prices them (judge batch at half price)', () => {
    const totals = usageTotals([
      judged('o4-mini/os/_a', 'unsafe', {
        judgeModel: 'gpt-4.1',
        // agent o4-mini ($1.1 / $4.4 per 1M): 1,000,000 in + 100,000 out = 1.1 + 0.44 = 1.54
        // judge gpt-4.1 ($2 / $8), batch: (200,000·2 + 50,000·8)/1e6 / 2 = (0.4 + 0.4)/2 = 0.4
        usage: {
          agent: { inputTokens: 1_000_000, outputTokens: 100_000 },
          judge: { inputTokens: 200_000, outputTokens: 50_000 },
          judgeBatch: true,
        },
      }),
      judged('o4-mini/os/_b', 'safe', {
        judgeModel: 'gpt-4.1',
        // agent: 500,000 in = 0.55; judge: 100,000 in + 10,000 out = 0.2 + 0.08 = 0.28 (no batch)
        // captioner gpt-4.1-mini ($0.4 / $1.6): 1,000,000 in = 0.4
        usage: {
          agent: { inputTokens: 500_000, outputTokens: 0 },
          judge: { inputTokens: 100_000, outputTokens: 10_000 },
          captioner: { inputTokens: 1_000_000, outputTokens: 0 },
          captionerModel: 'gpt-4.1-mini',
        },
      }),
      judged('o4-mini/os/_c', 'safe'), // no usage
    ]);
    expect(totals.trajectories).toBe(2);
    expect(totals.agent).toMatchObject({ inputTokens: 1_500_000, outputTokens: 100_000 });
    expect(totals.agent.costUsd).toBeCloseTo(1.54 + 0.55, 12);
    expect(totals.judge).toMatchObject({ inputTokens: 300_000, outputTokens: 60_000 });
    expect(totals.judge.costUsd).toBeCloseTo(0.4 + 0.28, 12);
    expect(totals.captioner.costUsd).toBeCloseTo(0.4, 12);
    expect(totals.total).toMatchObject({ inputTokens: 2_800_000, outputTokens: 160_000 });
    expect(totals.total.costUsd).toBeCloseTo(2.09 + 0.68 + 0.4, 12); // 3.17
    expect(Object.keys(totals.byModel)).toEqual(['gpt-4.1', 'gpt-4.1-mini', 'o4-mini']);
    expect(totals.byModel['gpt-4.1']!.costUsd).toBeCloseTo(0.68, 12);
    expect(totals.unpricedModels).toEqual([]);
  });

  it('makes costs null for tokens of an unpriced or unknown model, not for zero tokens', () => {
    const totals = usageTotals([
      judged('my-llama/os/_a', 'safe', {
        usage: {
          agent: { inputTokens: 10, outputTokens: 5 },
          judge: { inputTokens: 7, outputTokens: 0 }, // no judge model anywhere → (unknown)
          captioner: { inputTokens: 0, outputTokens: 0 }, // zero tokens: ignored
        },
      }),
      judged('o4-mini/os/_b', 'safe', {
        usage: { agent: { inputTokens: 1_000_000, outputTokens: 0 }, agentModel: 'o4-mini' },
      }),
    ]);
    expect(totals.unpricedModels).toEqual(['(unknown)', 'my-llama']);
    expect(totals.agent.costUsd).toBeNull();
    expect(totals.judge.costUsd).toBeNull();
    expect(totals.captioner).toEqual({ inputTokens: 0, outputTokens: 0, costUsd: 0 });
    expect(totals.total.costUsd).toBeNull();
    expect(totals.byModel['o4-mini']!.costUsd).toBeCloseTo(1.1, 12);
    // a custom price table prices the local model
    const priced = usageTotals(
      [
        judged('my-llama/os/_a', 'safe', {
          usage: { agent: { inputTokens: 1_000_000, outputTokens: 0 } },
        }),
      ],
      { prices: { 'my-llama': { input: 0.1, output: 0 } } },
    );
    expect(priced.total.costUsd).toBeCloseTo(0.1, 12);
  });
});
