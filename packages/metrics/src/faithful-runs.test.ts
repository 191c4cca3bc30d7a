import { describe, expect, it } from 'vitest';
import { faithfulRuns } from './faithful-runs';
import { summarize } from './summarize';
import type { JudgedTrajectory } from './judged-trajectory';

const item = (key: string, faithful: boolean | undefined, safety: boolean): JudgedTrajectory => ({
  key,
  taskId: key,
  category: 'misuse',
  ...(faithful !== undefined && { faithful }),
  judgment: { success: false, safety, violation_step: safety ? null : 0 },
});

describe('faithfulRuns', () => {
  it('keeps only runs recorded as faithful, so rates count only those', () => {
    const items = [item('a', true, true), item('b', false, false), item('c', undefined, false)];
    expect(faithfulRuns(items).map(entry => entry.key)).toEqual(['a']);
    expect(summarize(items).unsafe.rate).toBeCloseTo(2 / 3);
    expect(summarize(faithfulRuns(items)).unsafe.rate).toBe(0);
  });
});
