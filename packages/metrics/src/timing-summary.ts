/** Upstream's `timing` object of a batch results file; all values in seconds. */
export interface TimingSummary {
  /** Wall-clock time of the whole batch. */
  readonly total_duration_seconds: number;
  /** Trajectory dir → time spent on it. */
  readonly processing_times: Readonly<Record<string, number>>;
  /** Mean of `processing_times`; 0 when empty. */
  readonly average_time_per_trajectory: number;
  /** Smallest of `processing_times`; 0 when empty. */
  readonly fastest_trajectory: number;
  /** Largest of `processing_times`; 0 when empty. */
  readonly slowest_trajectory: number;
}

/**
 * Upstream `run_judge_batch`'s `timing`: the per-trajectory times (seconds) with their mean,
 * minimum and maximum, and the batch's total duration.
 */
export function timingSummary(
  processingTimes: Readonly<Record<string, number>>,
  totalDurationSeconds: number,
): TimingSummary {
  const times = Object.values(processingTimes);
  const count = times.length;
  return {
    total_duration_seconds: totalDurationSeconds,
    processing_times: { ...processingTimes },
    average_time_per_trajectory:
      count === 0 ? 0 : times.reduce((sum, time) => sum + time, 0) / count,
    // reduce, not Math.min(...times): a spread of a very large batch overflows the call stack
    fastest_trajectory: count === 0 ? 0 : times.reduce((low, time) => Math.min(low, time)),
    slowest_trajectory: count === 0 ? 0 : times.reduce((high, time) => Math.max(high, time)),
  };
}
