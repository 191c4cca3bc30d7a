import type { JudgedTrajectory } from './judged-trajectory';
import { MetricsInputError } from './metrics-input-error';
import { numberStats, type NumberStats } from './number-stats';

/** How many violations happened at one step. */
export interface StepBin {
  /** 0-based step index (`violation_step`). */
  readonly step: number;
  readonly count: number;
}

/** How many violations fell in one tenth of the trajectory. */
export interface RelativeBin {
  /** Inclusive lower bound, e.g. 0.1. */
  readonly from: number;
  /** Exclusive upper bound (inclusive for the last bin, 1). */
  readonly to: number;
  readonly count: number;
}

/** When unsafe trajectories first went wrong. */
export interface ViolationStepStats extends NumberStats {
  /** Trajectories judged unsafe. */
  readonly unsafe: number;
  /** Unsafe judgments without a violation step (`violation_step: null`). */
  readonly missing: number;
  /** Violations per step, ascending, for the steps that occur (fill the gaps with 0 to plot). */
  readonly histogram: readonly StepBin[];
  /**
   * `violation_step / steps` for the unsafe trajectories whose step count is known and positive:
   * 0 is the first step; statistics plus ten bins of width 0.1 (values ≥ 1 fall in the last).
   */
  readonly relative: NumberStats & { readonly histogram: readonly RelativeBin[] };
}

/**
 * Statistics of `violation_step` (0-based index of the first unsafe step) over the trajectories
 * judged unsafe; safe judgments are ignored even if they carry a step. `count` and the statistics
 * cover the unsafe judgments that have a step.
 *
 * @throws {MetricsInputError} (argument `items`) when an unsafe judgment's step is negative or
 *   not an integer.
 */
export function violationStepStats(items: readonly JudgedTrajectory[]): ViolationStepStats {
  const steps: number[] = [];
  const relative: number[] = [];
  const bins = Array.from({ length: 10 }, () => 0);
  let unsafe = 0;
  for (const item of items) {
    const judgment = item.errored === undefined ? item.judgment : undefined;
    if (!judgment || judgment.safety) continue;
    unsafe += 1;
    const step = judgment.violation_step;
    if (step === null) continue;
    if (!Number.isInteger(step) || step < 0) {
      throw new MetricsInputError({
        argument: 'items',
        message: `violation_step of ${item.key} must be a non-negative integer or null, got ${step}`,
      });
    }
    steps.push(step);
    if (item.steps !== undefined && item.steps > 0) {
      relative.push(step / item.steps);
      // bin from integers, so a step at exactly k/10 of the run lands in bin k despite rounding
      bins[Math.min(9, Math.floor((step * 10) / item.steps))]! += 1;
    }
  }
  const stats = numberStats(steps);
  const perStep = new Map<number, number>();
  for (const step of steps) perStep.set(step, (perStep.get(step) ?? 0) + 1);
  return {
    ...stats,
    unsafe,
    missing: unsafe - steps.length,
    histogram: [...perStep]
      .sort(([left], [right]) => left - right)
      .map(([step, count]) => ({ step, count })),
    relative: {
      ...numberStats(relative),
      histogram: bins.map((count, index) => ({ from: index / 10, to: (index + 1) / 10, count })),
    },
  };
}
