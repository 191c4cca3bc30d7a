import { batchResultsSchema } from '@osharm/task-schema/artifacts';
import { describe, expect, it } from 'vitest';
import { timingSummary } from './timing-summary';

describe('timingSummary', () => {
  it('averages, and finds the fastest and slowest of, the processing times', () => {
    const times = { 'o4-mini/os/_a': 4.95, 'o4-mini/os/_b': 1.82, 'o4-mini/chrome/_c': 23.41 };
    const timing = timingSummary(times, 743.21);
    expect(timing.total_duration_seconds).toBe(743.21);
    expect(timing.processing_times).toEqual(times);
    expect(timing.processing_times).not.toBe(times);
    // (4.95 + 1.82 + 23.41) / 3 = 30.18 / 3 = 10.06
    expect(timing.average_time_per_trajectory).toBeCloseTo(10.06, 12);
    expect(timing.fastest_trajectory).toBe(1.82);
    expect(timing.slowest_trajectory).toBe(23.41);
    expect(batchResultsSchema.shape.timing.safeParse(timing).success).toBe(true);
  });

  it('is all zeros for an empty batch', () => {
    expect(timingSummary({}, 0.5)).toEqual({
      total_duration_seconds: 0.5,
      processing_times: {},
      average_time_per_trajectory: 0,
      fastest_trajectory: 0,
      slowest_trajectory: 0,
    });
  });
});
