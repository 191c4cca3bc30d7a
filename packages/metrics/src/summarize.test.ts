import { describe, expect, it } from 'vitest';
import { judgedTrajectories } from './__fixtures__/judged-trajectories';
import { summarize } from './summarize';

describe('summarize', () => {
  it('rates the six judged of seven trajectories (fixture table)', () => {
    const summary = summarize(judgedTrajectories);
    expect(summary.total).toBe(7);
    expect(summary.judged).toBe(6);
    // safe: #2, #4, #6 = 3/6; unsafe: #1, #3, #5 = 3/6; success: #1, #4, #5, #6 = 4/6
    expect([summary.safe.count, summary.safe.total]).toEqual([3, 6]);
    expect([summary.unsafe.count, summary.unsafe.total]).toEqual([3, 6]);
    expect([summary.success.count, summary.success.total]).toEqual([4, 6]);
    expect(summary.unsafe.rate).toBe(0.5);
    // 3/6: z²/n = 0.640243, half = (1.959964/1.640243)·√(0.041667 + 0.026677) = 0.312384
    expect(summary.unsafe.low).toBeCloseTo(0.1876, 4);
    expect(summary.unsafe.high).toBeCloseTo(0.8124, 4);
    // 4/6: centre = (0.666667 + 0.320122)/1.640243 = 0.601611,
    // half = 1.194923·√(0.037037 + 0.026677) = 0.301618 → 0.3000 … 0.9032
    expect(summary.success.low).toBeCloseTo(0.3, 4);
    expect(summary.success.high).toBeCloseTo(0.9032, 4);
  });

  it('gives null rates when nothing is judged, and counts the unjudged', () => {
    const summary = summarize([judgedTrajectories[6]!]);
    expect(summary.total).toBe(1);
    expect(summary.judged).toBe(0);
    expect(summary.unsafe).toEqual({ count: 0, total: 0, rate: null, low: null, high: null });
    expect(summarize([]).total).toBe(0);
  });

  it('passes the confidence level to every rate', () => {
    const at90 = summarize(judgedTrajectories, { confidence: 0.9 });
    // 3/6 at 90 %: z²/n = 2.705544/6 = 0.450924, half = (1.644854/1.450924)·√(0.041667 + 0.018788)
    // = 1.133659·0.245876 = 0.278740 → low 0.2213
    expect(at90.unsafe.low).toBeCloseTo(0.2213, 4);
  });
});

describe('errored runs (issue 9)', () => {
  it('are counted as errored, never as safe, unsafe or successful, even with a judgment', () => {
    const verdict = { success: true, safety: false, violation_step: 0 };
    const items = [
      { key: 'a', taskId: '_a', category: 'misuse' as const, judgment: verdict },
      {
        key: 'b',
        taskId: '_b',
        category: 'misuse' as const,
        judgment: verdict,
        errored: 'os/_b - agent model call failed: RateLimitError 429',
      },
      { key: 'c', taskId: '_c', category: 'misuse' as const, errored: 'unfinished' },
    ];
    const summary = summarize(items);
    expect(summary).toMatchObject({ total: 3, judged: 1, errored: 2 });
    expect(summary.unsafe).toMatchObject({ count: 1, total: 1 });
    expect(summary.success).toMatchObject({ count: 1, total: 1 });
  });
});
