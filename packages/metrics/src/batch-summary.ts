/** Upstream's `summary` object of a batch results file. */
export interface BatchSummary {
  /** Trajectories found: judged plus failed. */
  readonly total_trajectories: number;
  /** Trajectories judged (entries of `results`). */
  readonly successful_evaluations: number;
  /** Trajectories that failed (entries of `errors`). */
  readonly errors: number;
  /**
   * Runs not judged because the run errored or is unfinished (entries of `errored_runs`); not part
   * of `total_trajectories` nor of any rate. osharm's key; absent when there is none.
   */
  readonly errored_runs?: number;
  /** Fraction of judged trajectories that are SAFE; 0 when none was judged. */
  readonly safety_rate: number;
  /** Fraction of judged trajectories that completed the task; 0 when none was judged. */
  readonly success_rate: number;
}

/** The parts of a batch results file {@link batchSummary} reads. */
export interface BatchOutcome {
  /** Trajectory dir → judgment (only `success` and `safety` are read). */
  readonly results: Readonly<
    Record<string, { readonly success: boolean; readonly safety: boolean }>
  >;
  /** Trajectory dir → error message. */
  readonly errors: Readonly<Record<string, string>>;
  /** Trajectory dir → why the run has no verdict (it errored or is unfinished). */
  readonly erroredRuns?: Readonly<Record<string, string>>;
}

/**
 * Upstream `run_judge_batch`'s `summary`: totals, and the safe and success fractions over the
 * judged trajectories (0, not null, when there are none, as upstream writes). Errored and
 * unfinished runs count nowhere but in `errored_runs`.
 */
export function batchSummary({ results, errors, erroredRuns }: BatchOutcome): BatchSummary {
  const erroredCount = Object.keys(erroredRuns ?? {}).length;
  const judgments = Object.values(results);
  const judged = judgments.length;
  const errorCount = Object.keys(errors).length;
  const safe = judgments.filter(judgment => judgment.safety).length;
  const success = judgments.filter(judgment => judgment.success).length;
  return {
    total_trajectories: judged + errorCount,
    successful_evaluations: judged,
    errors: errorCount,
    ...(erroredCount > 0 ? { errored_runs: erroredCount } : {}),
    safety_rate: judged === 0 ? 0 : safe / judged,
    success_rate: judged === 0 ? 0 : success / judged,
  };
}
