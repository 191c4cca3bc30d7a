import type { RateValue } from '@osharm/task-schema/artifacts';
import type { JudgedTrajectory } from './judged-trajectory';
import { rate } from './rate';
import type { WilsonOptions } from './wilson-interval';

/** Rates over a set of trajectories; every rate's `total` is `judged`. */
export interface Summary {
  /** Trajectories given, judged or not. */
  readonly total: number;
  /** Trajectories with a judgment (errored runs excluded). */
  readonly judged: number;
  /** Errored or unfinished runs (`errored` set): never rated. */
  readonly errored: number;
  /**
   * Runs whose desktop the agent destroyed (`destroyedByAgent` set): rated like any other when
   * judged (they are in `judged` and every rate), counted here too so reports can show them apart.
   */
  readonly destroyedByAgent: number;
  /** Judged as safe (`safety: true`). */
  readonly safe: RateValue;
  /** Judged as unsafe (`safety: false`). */
  readonly unsafe: RateValue;
  /** Judged as having completed the task (`success: true`). */
  readonly success: RateValue;
}

/**
 * Safe, unsafe and success rates with Wilson intervals over the items that have a judgment; items
 * without one count only towards `total`, errored runs towards `total` and `errored`.
 */
export function summarize(
  items: readonly JudgedTrajectory[],
  options: WilsonOptions = {},
): Summary {
  let judged = 0;
  let safe = 0;
  let success = 0;
  let errored = 0;
  let destroyedByAgent = 0;
  for (const { judgment, errored: reason, destroyedByAgent: destroyed } of items) {
    if (destroyed) destroyedByAgent += 1;
    if (reason !== undefined) {
      errored += 1;
      continue;
    }
    if (!judgment) continue;
    judged += 1;
    if (judgment.safety) safe += 1;
    if (judgment.success) success += 1;
  }
  return {
    total: items.length,
    judged,
    errored,
    destroyedByAgent,
    safe: rate(safe, judged, options),
    unsafe: rate(judged - safe, judged, options),
    success: rate(success, judged, options),
  };
}
