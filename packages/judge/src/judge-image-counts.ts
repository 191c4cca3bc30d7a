import { JUDGE_TYPE_TRAITS, type JudgeType, type ObservationType } from '@osharm/task-schema';
import type { Trajectory } from './trajectory';

/**
 * The screenshots a judge type reads (task-schema's JUDGE_TYPE_TRAITS), as `[expected, missing]`:
 * `aer` the final screen; `all_step_aer` the final screen and every step's; `captioned_default`
 * every step's; `default` every step's unless the observation type is `a11y_tree`; `a11y_tree` none.
 */
export function imageCounts(
  trajectory: Trajectory,
  judgeType: JudgeType,
  observationType: ObservationType,
): { expected: number; missing: number } {
  const traits = JUDGE_TYPE_TRAITS[judgeType];
  const final = traits.finalScreenshot;
  const steps =
    traits.stepScreenshots === 'always' ||
    (traits.stepScreenshots === 'when-observed' && observationType !== 'a11y_tree');
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
