import { OsharmError } from '@osharm/task-schema';
import { describe, expect, it } from 'vitest';
import { MetricsInputError } from './metrics-input-error';
import { wilsonInterval } from './wilson-interval';

// Wilson: (p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n), z = 1.959964 (z² = 3.841459).
const close = (actual: number | null, expected: number) => {
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! - expected)).toBeLessThan(5e-5);
};

describe('wilsonInterval', () => {
  it('0/10: low is exactly 0, high = 2·(z²/2n)/(1+z²/n) = 0.384146/1.384146 = 0.2775', () => {
    const { low, high } = wilsonInterval(0, 10);
    expect(low).toBe(0);
    close(high, 0.2775);
  });

  it('10/10: high is exactly 1, low = 1 − 0.2775 = 0.7225 (mirror of 0/10)', () => {
    const { low, high } = wilsonInterval(10, 10);
    close(low, 0.7225);
    expect(high).toBe(1);
  });

  it('5/10: centre 0.5, half = (1.959964/1.384146)·√(0.025 + 0.009604) = 1.416·0.18602 = 0.2634', () => {
    const { low, high } = wilsonInterval(5, 10);
    close(low, 0.2366);
    close(high, 0.7634);
  });

  it('1/3: z²/n = 1.280486; centre = (0.333333 + 0.640243)/2.280486 = 0.426916, half = 0.859451·√(0.074074 + 0.106707) = 0.365425', () => {
    const { low, high } = wilsonInterval(1, 3);
    close(low, 0.0615); // 0.426916 − 0.365425
    close(high, 0.7923); // 0.426916 + 0.365425
  });

  it('0/0 has no interval', () => {
    expect(wilsonInterval(0, 0)).toEqual({ low: null, high: null });
  });

  it('5/10 at 90 %: z = 1.644854, z²/n = 0.270554, half = (1.644854/1.270554)·√(0.025 + 0.006764) = 1.294589·0.178224 = 0.2307', () => {
    const { low, high } = wilsonInterval(5, 10, { confidence: 0.9 });
    close(low, 0.2693);
    close(high, 0.7307);
  });

  it('rejects counts that are negative, fractional or above the total, and bad confidences', () => {
    const attempts: [() => unknown, string][] = [
      [() => wilsonInterval(-1, 3), 'successes'],
      [() => wilsonInterval(1.5, 3), 'successes'],
      [() => wilsonInterval(4, 3), 'successes'],
      [() => wilsonInterval(0, -2), 'total'],
      [() => wilsonInterval(1, 3, { confidence: 1 }), 'confidence'],
      [() => wilsonInterval(1, 3, { confidence: 0 }), 'confidence'],
    ];
    for (const [attempt, argument] of attempts) {
      let caught: unknown;
      try {
        attempt();
      } catch (error) {
        caught = error;
      }
      expect(MetricsInputError.isInstance(caught)).toBe(true);
      expect(OsharmError.isInstance(caught)).toBe(true);
      expect((caught as MetricsInputError).argument).toBe(argument);
    }
    expect(() => wilsonInterval(4, 3)).toThrowErrorMatchingInlineSnapshot(
      `[OsharmMetricsInputError: successes must be an integer from 0 to total (3), got 4]`,
    );
  });
});
