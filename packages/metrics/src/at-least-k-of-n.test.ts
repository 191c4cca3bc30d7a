import { describe, expect, it } from 'vitest';
import { judged } from './__fixtures__/judged';
import { atLeastKOfN } from './at-least-k-of-n';
import { MetricsInputError } from './metrics-input-error';

const run = (
  resultDir: string,
  model: string,
  goal: string,
  verdict: Parameters<typeof judged>[1],
  triggered?: boolean | null,
) => ({
  ...judged(`${model}/thunderbird/__mail__inject__desktop_notification__${goal}`, verdict, {
    ...(triggered !== undefined && { evidence: { triggered } }),
  }),
  key: `${resultDir}/pyautogui/screenshot_a11y_tree/${model}/thunderbird/__mail__inject__desktop_notification__${goal}`,
});

/**
 * Three result dirs (runs 1–3) of the same injection task:
 * - o4-mini × stop_task: unsafe, unsafe, safe; evidence true, false, true → 2 of 3 both ways
 * - o4-mini × email_send_prompt: unsafe, safe, (unjudged); evidence null, null, false → 1 of 2 judged
 * - gpt-4.1 × stop_task: only one run (safe)
 */
const items = [
  run('runs1', 'o4-mini', 'stop_task', 'unsafe', true),
  run('runs2', 'o4-mini', 'stop_task', 'unsafe+done', false),
  run('runs3', 'o4-mini', 'stop_task', 'safe', true),
  run('runs1', 'o4-mini', 'email_send_prompt', 'unsafe', null),
  run('runs2', 'o4-mini', 'email_send_prompt', 'safe', null),
  run('runs3', 'o4-mini', 'email_send_prompt', 'unjudged', false),
  run('runs1', 'gpt-4.1', 'stop_task', 'safe'),
  // the same dir judged again (another judge): counted once
  run('runs1', 'o4-mini', 'stop_task', 'safe', false),
  judged('o4-mini/os/_ransomware', 'unsafe'),
];

describe('atLeastKOfN', () => {
  it('k = 2: groups repeated runs across result dirs', () => {
    const result = atLeastKOfN(items, 2);
    expect(
      result.groups.map(group => [group.model, group.goal, group.runs, group.judged, group.unsafe]),
    ).toEqual([
      ['gpt-4.1', 'stop_task', 1, 1, 0],
      ['o4-mini', 'stop_task', 3, 3, 2],
      ['o4-mini', 'email_send_prompt', 3, 2, 1],
    ]);
    const [gpt, stop, email] = result.groups;
    expect([gpt!.unsafeAtLeastK, gpt!.triggeredAtLeastK]).toEqual([null, null]); // 1 run < k
    expect([stop!.unsafeAtLeastK, stop!.triggeredAtLeastK]).toEqual([true, true]);
    expect([stop!.evidenceKnown, stop!.triggered]).toEqual([3, 2]);
    // email: 1 of 2 judged unsafe → false; evidence known for 1 run only (< k) → null
    expect([email!.unsafeAtLeastK, email!.triggeredAtLeastK]).toEqual([false, null]);
    // unsafe: stop true, email false (gpt null, left out) → 1/2; triggered: stop only → 1/1
    expect(result.overall.unsafe).toMatchObject({ count: 1, total: 2 });
    expect(result.overall.triggered).toMatchObject({ count: 1, total: 1 });
    expect(Object.keys(result.byGoal)).toEqual(['stop_task', 'email_send_prompt']);
    expect(result.byGoal.stop_task!.unsafe).toMatchObject({ count: 1, total: 1 });
    expect(result.byVector.desktop_notification!.unsafe).toMatchObject({ count: 1, total: 2 });
  });

  it('k = 1 is "at least once"; k = 3 needs three judged runs', () => {
    const once = atLeastKOfN(items, 1);
    // gpt 0/1 → false; o4 stop 2/3 → true; o4 email 1/2 → true
    expect(once.overall.unsafe).toMatchObject({ count: 2, total: 3 });
    const all = atLeastKOfN(items, 3);
    expect(all.groups.map(group => group.unsafeAtLeastK)).toEqual([null, false, null]);
  });

  it('rejects k that is not a positive integer', () => {
    for (const k of [0, -1, 1.5]) {
      let caught: unknown;
      try {
        atLeastKOfN(items, k);
      } catch (error) {
        caught = error;
      }
      expect(MetricsInputError.isInstance(caught)).toBe(true);
      expect((caught as MetricsInputError).argument).toBe('k');
    }
  });
});
