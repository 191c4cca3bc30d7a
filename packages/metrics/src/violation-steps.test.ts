import { describe, expect, it } from 'vitest';
import { judged } from './__fixtures__/judged';
import type { JudgedTrajectory } from './judged-trajectory';
import { MetricsInputError } from './metrics-input-error';
import { numberStats } from './number-stats';
import { violationStepStats } from './violation-steps';

const unsafeAt = (task: string, step: number | null, steps?: number): JudgedTrajectory => ({
  ...judged(`o4-mini/os/${task}`, 'unsafe'),
  judgment: { safety: false, success: false, violation_step: step },
  ...(steps !== undefined && { steps }),
});

describe('numberStats', () => {
  it('mean, median (odd and even count), min, max; nulls when empty', () => {
    expect(numberStats([5, 1, 3])).toEqual({ count: 3, mean: 3, median: 3, min: 1, max: 5 });
    expect(numberStats([4, 1, 3, 2])).toEqual({ count: 4, mean: 2.5, median: 2.5, min: 1, max: 4 });
    expect(numberStats([])).toEqual({ count: 0, mean: null, median: null, min: null, max: null });
  });
});

describe('violationStepStats', () => {
  it('summarises the unsafe judgments’ steps, with a histogram and relative positions', () => {
    const stats = violationStepStats([
      unsafeAt('_a', 0, 10), // relative 0 → bin [0, 0.1)
      unsafeAt('_b', 2, 4), // 0.5 → bin [0.5, 0.6)
      unsafeAt('_c', 2), // steps unknown: no relative position
      unsafeAt('_d', 7, 10), // 0.7 exactly → bin [0.7, 0.8) (binned from integers: 70/10 = 7)
      unsafeAt('_e', null, 5), // unsafe without a step: missing
      unsafeAt('_f', 3, 3), // step = steps (inconsistent): relative 1, last bin
      { ...judged('o4-mini/os/_g', 'safe'), steps: 5 }, // safe: ignored
      judged('o4-mini/os/_h', 'unjudged'),
    ]);
    // steps 0, 2, 2, 7, 3 → mean 14/5 = 2.8, sorted 0 2 2 3 7 → median 2
    expect(stats).toMatchObject({
      unsafe: 6,
      missing: 1,
      count: 5,
      mean: 2.8,
      median: 2,
      min: 0,
      max: 7,
    });
    expect(stats.histogram).toEqual([
      { step: 0, count: 1 },
      { step: 2, count: 2 },
      { step: 3, count: 1 },
      { step: 7, count: 1 },
    ]);
    // relative 0, 0.5, 0.7, 1 → mean 2.2/4 = 0.55, median (0.5 + 0.7)/2 = 0.6
    expect(stats.relative).toMatchObject({ count: 4, min: 0, max: 1 });
    expect(stats.relative.mean).toBeCloseTo(0.55, 12);
    expect(stats.relative.median).toBeCloseTo(0.6, 12);
    expect(stats.relative.histogram.map(bin => bin.count)).toEqual([1, 0, 0, 0, 0, 1, 0, 1, 0, 1]);
    expect(stats.relative.histogram[7]).toEqual({ from: 0.7, to: 0.8, count: 1 });
  });

  it('is empty without unsafe judgments', () => {
    const stats = violationStepStats([judged('o4-mini/os/_a', 'safe')]);
    expect(stats).toMatchObject({ unsafe: 0, missing: 0, count: 0, mean: null, histogram: [] });
    expect(stats.relative.count).toBe(0);
    expect(stats.relative.histogram).toHaveLength(10);
  });

  it('rejects a negative or fractional step', () => {
    let caught: unknown;
    try {
      violationStepStats([unsafeAt('_a', -1)]);
    } catch (error) {
      caught = error;
    }
    expect(MetricsInputError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toBe(
      'violation_step of results/pyautogui/screenshot_a11y_tree/o4-mini/os/_a must be a non-negative integer or null, got -1',
    );
  });
});
