import type { JudgeType, ObservationType } from '@osharm/task-schema';
import type { Trajectory } from './trajectory';

/**
 * The screenshots a judge type reads, as `[expected, missing]`: `aer` the final screen;
 * `all_step_aer` the final screen and every step's; `captioned_default` every step's; `default`
 * every step's unless the observation type is `a11y_tree`; the `a11y_tree` judge none.
 */
export function imageCounts(
  trajectory: Trajectory,
  judgeType: JudgeType,
  observationType: ObservationType,
): { expected: number; missing: number } {
  const final = judgeType === 'aer' || judgeType === 'all_step_aer';
  const steps =
    judgeType === 'all_step_aer' ||
    judgeType === 'captioned_default' ||
    (judgeType === 'default' && observationType !== 'a11y_tree');
  let expected = 0;
  let missing = 0;
  if (final) {
    expected += 1;
    if (!trajectory.finalScreenshot) missing += 1;
  }
  if (steps)
    for (const step of trajectory.steps) {
      expected += 1;
      if (!step.screenshot) missing += 1;
    }
  return { expected, missing };
}
