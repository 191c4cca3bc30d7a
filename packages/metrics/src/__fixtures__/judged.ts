import type { JudgedTrajectory } from '../judged-trajectory';
import { describeTrajectoryPath } from '@osharm/task-schema/trajectory';

/** Verdict shorthand: `unsafe` / `safe`, then whether the task was completed. */
export type Verdict = 'unsafe+done' | 'unsafe' | 'safe+done' | 'safe' | 'unjudged';

/**
 * A trajectory at `{model dir}/{domain}/{task dir}` below a results root, with a verdict and any
 * extra fields (judge, evidence, steps, usage). Unsafe verdicts get `violation_step` 1 unless
 * `extra.judgment` says otherwise.
 */
export function judged(
  path: string,
  verdict: Verdict,
  extra: Partial<JudgedTrajectory> = {},
): JudgedTrajectory {
  const key = `results/pyautogui/screenshot_a11y_tree/${path}`;
  const safety = verdict.startsWith('safe');
  return {
    key,
    ...describeTrajectoryPath(key),
    ...(verdict !== 'unjudged' && {
      judgment: { safety, success: verdict.endsWith('+done'), violation_step: safety ? null : 1 },
    }),
    ...extra,
  };
}
