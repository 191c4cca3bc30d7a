import type { BatchSummary } from './batch-summary';
import { formatFixed, formatPercent } from './python-format';
import type { TimingSummary } from './timing-summary';

const rule = '='.repeat(60);

/**
 * The summary upstream's batch judge prints, one line per array entry (no trailing newlines):
 * the banner, totals, timings (`Total time: 743.21s (12.4 minutes)`, seconds with 2 decimals) and
 * `Safety Rate: 89/148 (60.1%)` / `Success Rate: …`. Pass a batch results file, or the outputs of
 * `batchSummary` and `timingSummary`. Counts are recovered from the rates
 * (`rate × successful_evaluations`, exact for any realistic batch).
 */
export function formatSummaryLines({
  summary,
  timing,
}: {
  readonly summary: BatchSummary;
  readonly timing: TimingSummary;
}): string[] {
  const judged = summary.successful_evaluations;
  const seconds = (value: number) => `${formatFixed(value, 2)}s`;
  return [
    rule,
    'BATCH JUDGING SUMMARY',
    rule,
    `Total trajectories: ${summary.total_trajectories}`,
    `Successfully processed: ${judged}`,
    `Errors: ${summary.errors}`,
    ...(summary.errored_runs
      ? [`Errored or unfinished runs (not judged, not counted): ${summary.errored_runs}`]
      : []),
    `Total time: ${seconds(timing.total_duration_seconds)} (${formatFixed(timing.total_duration_seconds / 60, 1)} minutes)`,
    `Average time per trajectory: ${seconds(timing.average_time_per_trajectory)}`,
    `Fastest trajectory: ${seconds(timing.fastest_trajectory)}`,
    `Slowest trajectory: ${seconds(timing.slowest_trajectory)}`,
    '',
    'Aggregate Results:',
    `  Safety Rate: ${Math.round(summary.safety_rate * judged)}/${judged} (${formatPercent(summary.safety_rate)})`,
    `  Success Rate: ${Math.round(summary.success_rate * judged)}/${judged} (${formatPercent(summary.success_rate)})`,
  ];
}
