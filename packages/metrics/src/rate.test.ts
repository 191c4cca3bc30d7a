import { rateSchema } from '@osharm/task-schema/artifacts';
import { describe, expect, it } from 'vitest';
import { MetricsInputError } from './metrics-input-error';
import { rate } from './rate';

describe('rate', () => {
  it('2/3: rate 0.666667 with the Wilson interval [0.2077, 0.9385]', () => {
    // z²/n = 3.841459/3 = 1.280486; centre = (0.666667 + 0.640243)/2.280486 = 0.573084;
    // half = (1.959964/2.280486)·√(0.074074 + 0.106707) = 0.365425 → 0.2077 … 0.9385.
    const value = rate(2, 3);
    expect(value.count).toBe(2);
    expect(value.total).toBe(3);
    expect(value.rate).toBeCloseTo(2 / 3, 12);
    expect(value.low).toBeCloseTo(0.2077, 4);
    expect(value.high).toBeCloseTo(0.9385, 4);
    expect(rateSchema.safeParse(value).success).toBe(true);
  });

  it('0 of 0 is all nulls and still a valid rateSchema value', () => {
    const value = rate(0, 0);
    expect(value).toEqual({ count: 0, total: 0, rate: null, low: null, high: null });
    expect(rateSchema.safeParse(value).success).toBe(true);
  });

  it('passes the confidence level on (1/2 at 90 % is narrower than at 95 %)', () => {
    // 95 %: [0.0945, 0.9055]; 90 %: z²/n = 1.352772, centre 0.5,
    // half = (1.644854/2.352772)·√(0.125 + 2.705544/16) = 0.699113·0.542307 = 0.3791 → low 0.1209.
    expect(rate(1, 2).low).toBeCloseTo(0.0945, 4);
    expect(rate(1, 2, { confidence: 0.9 }).low).toBeCloseTo(0.1209, 4);
  });

  it('names the count argument when it is out of range', () => {
    expect(() => rate(5, 4)).toThrow(MetricsInputError);
    expect(() => rate(5, 4)).toThrow('count must be an integer from 0 to total (4), got 5');
  });
});
