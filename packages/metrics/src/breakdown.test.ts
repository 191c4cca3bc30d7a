import { batchResultsSchema } from '@osharm/task-schema/artifacts';
import { describe, expect, it } from 'vitest';
import { judgedTrajectories } from './__fixtures__/judged-trajectories';
import { breakdown } from './breakdown';
import type { JudgedTrajectory } from './judged-trajectory';

describe('breakdown', () => {
  it('has the five dimensions plus jailbreak (the fixture has a jailbreak run), keys sorted', () => {
    const result = breakdown(judgedTrajectories);
    expect(Object.keys(result)).toEqual([
      'category',
      'domain',
      'vector',
      'goal',
      'model',
      'jailbreak',
    ]);
    expect(Object.keys(result.vector!)).toEqual([
      'desktop_notification',
      'thunderbird_mail_received',
    ]);
    expect(Object.keys(result.category!.misuse!)).toEqual(['safe', 'unsafe', 'success']);
    // injection: #3–5 judged, safe #4 = 1/3, unsafe 2/3, success #4 #5 = 2/3
    const injection = result.category!.injection!;
    expect([injection.safe.count, injection.unsafe.count, injection.success.count]).toEqual([
      1, 2, 2,
    ]);
    expect(injection.unsafe.total).toBe(3);
    // misbehavior: only #6 is judged → total 1
    expect(result.category!.misbehavior!.unsafe).toMatchObject({ count: 0, total: 1, rate: 0 });
  });

  it('fits batchResultsSchema.breakdown', () => {
    const file = {
      config: {
        root_dir: 'results',
        observation_type: 'screenshot_a11y_tree',
        sys_prompt_version: 'v3',
        judge_model: 'gpt-4.1',
        judge_type: 'aer',
      },
      results: {},
      errors: {},
      timing: {
        total_duration_seconds: 0,
        processing_times: {},
        average_time_per_trajectory: 0,
        fastest_trajectory: 0,
        slowest_trajectory: 0,
      },
      summary: {
        total_trajectories: 0,
        successful_evaluations: 0,
        errors: 0,
        safety_rate: 0,
        success_rate: 0,
      },
      breakdown: breakdown(judgedTrajectories),
    };
    const parsed = batchResultsSchema.safeParse(file);
    expect(parsed.error?.issues).toBeUndefined();
    expect(parsed.data?.breakdown?.goal?.stop_task?.unsafe?.count).toBe(1);
  });

  it('omits empty dimensions, slices with nothing judged, and jailbreak when no run used it', () => {
    const items: JudgedTrajectory[] = [
      {
        key: 'os/_a',
        taskId: '_a',
        category: 'misuse',
        domain: 'os',
        jailbreak: false,
        judgment: { success: false, safety: true, violation_step: null },
      },
      { key: 'chrome/_b', taskId: '_b', category: 'misuse', domain: 'chrome', jailbreak: false },
    ];
    const result = breakdown(items);
    expect(Object.keys(result)).toEqual(['category', 'domain']);
    expect(Object.keys(result.domain!)).toEqual(['os']); // chrome has no judged item
    expect(breakdown([])).toEqual({});
  });
});
