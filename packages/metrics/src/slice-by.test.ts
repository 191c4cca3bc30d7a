import { describe, expect, it } from 'vitest';
import { judgedTrajectories } from './__fixtures__/judged-trajectories';
import type { JudgedTrajectory } from './judged-trajectory';
import { sliceBy, sliceKey, type SliceDimension } from './slice-by';
import type { Summary } from './summarize';

/** `{ key: "unsafe/judged success/judged (total)" }`, to compare slices at a glance. */
const counts = (items: readonly JudgedTrajectory[], dimension: SliceDimension) =>
  Object.fromEntries(
    Object.entries(sliceBy(items, dimension)).map(([key, summary]: [string, Summary]) => [
      key,
      `${summary.unsafe.count}/${summary.judged} ${summary.success.count}/${summary.judged} (${summary.total})`,
    ]),
  );

describe('sliceBy (fixture table in __fixtures__/judged-trajectories.ts)', () => {
  it('category: injection #3–5, misbehavior #6–7 (one judged), misuse #1–2', () => {
    expect(counts(judgedTrajectories, 'category')).toEqual({
      injection: '2/3 2/3 (3)', // unsafe #3 #5, success #4 #5
      misbehavior: '0/1 1/1 (2)',
      misuse: '1/2 1/2 (2)', // unsafe #1, success #1
    });
    expect(Object.keys(sliceBy(judgedTrajectories, 'category'))).toEqual([
      'injection',
      'misbehavior',
      'misuse',
    ]);
  });

  it('vector and goal leave non-injection runs out', () => {
    expect(counts(judgedTrajectories, 'vector')).toEqual({
      desktop_notification: '1/2 2/2 (2)', // #4 safe+success, #5 unsafe+success
      thunderbird_mail_received: '1/1 0/1 (1)', // #3
    });
    expect(counts(judgedTrajectories, 'goal')).toEqual({
      email_send_prompt: '1/1 1/1 (1)', // #5
      stop_task: '1/2 1/2 (2)', // #3 unsafe, #4 success
    });
  });

  it('domain, model and jailbreak', () => {
    expect(counts(judgedTrajectories, 'domain')).toEqual({
      chrome: '0/1 1/1 (1)', // #4
      os: '1/2 2/2 (3)', // #1 unsafe+success, #6 success, #7 unjudged
      thunderbird: '2/3 1/3 (3)', // #2, #3, #5
    });
    expect(counts(judgedTrajectories, 'model')).toEqual({
      'gpt-4.1': '0/1 1/1 (2)',
      'o4-mini': '3/5 3/5 (5)', // unsafe #1 #3 #5, success #1 #4 #5
    });
    expect(counts(judgedTrajectories, 'jailbreak')).toEqual({
      false: '2/5 3/5 (6)', // #2–#7: unsafe #3 #5, success #4 #5 #6
      true: '1/1 1/1 (1)', // #1
    });
  });

  it('returns full summaries with intervals (thunderbird unsafe 2/3 → [0.2077, 0.9385])', () => {
    const thunderbird = sliceBy(judgedTrajectories, 'domain').thunderbird!;
    expect(thunderbird.unsafe.rate).toBeCloseTo(2 / 3, 12);
    expect(thunderbird.unsafe.low).toBeCloseTo(0.2077, 4);
    expect(thunderbird.unsafe.high).toBeCloseTo(0.9385, 4);
  });

  it('sorts keys by code unit and skips items without the dimension', () => {
    const items: JudgedTrajectory[] = [
      { key: 'a', taskId: '_a', category: 'misuse', model: 'o4-mini' },
      { key: 'b', taskId: '_b', category: 'misuse', model: 'Claude' },
      { key: 'c', taskId: '_c', category: 'misuse' },
    ];
    expect(Object.keys(sliceBy(items, 'model'))).toEqual(['Claude', 'o4-mini']);
    expect(sliceBy(items, 'vector')).toEqual({});
    expect(sliceBy(items, 'jailbreak')).toEqual({});
    expect(sliceKey(items[2]!, 'domain')).toBeUndefined();
  });
});
