import { relative } from 'node:path';
import { batchSummary, breakdown, timingSummary, type JudgedTrajectory } from '@osharm/metrics';
import type { Judgment } from '@osharm/task-schema/artifacts';
import { describeTrajectoryPath, type RunFacts } from '@osharm/task-schema/trajectory';

/**
 * The `timing`, `summary` and `breakdown` keys of a batch results file. Slices come from each
 * trajectory's path below the root (`…/{model}[_jailbreak]/{domain}/{task}[__inject__{vector}__{goal}]`),
 * corrected by better_log.json's `task.injection` / `task.jailbreak` where known.
 */
export function summarizeTree(options: {
  rootDir: string;
  results: Readonly<Record<string, Judgment>>;
  errors: Readonly<Record<string, string>>;
  /** Runs not judged because they errored or are unfinished. */
  erroredRuns?: Readonly<Record<string, string>>;
  processingTimes: Readonly<Record<string, number>>;
  totalSeconds: number;
  /** better_log.json facts per trajectory; they win over what the path says. */
  runFacts?: Readonly<Record<string, RunFacts | undefined>>;
}) {
  const items: JudgedTrajectory[] = Object.entries(options.results).map(([key, judgment]) => ({
    key,
    ...describeTrajectoryPath(relative(options.rootDir, key) || key, options.runFacts?.[key] ?? {}),
    judgment,
  }));
  return {
    timing: timingSummary(options.processingTimes, options.totalSeconds),
    summary: batchSummary({
      results: options.results,
      errors: options.errors,
      erroredRuns: options.erroredRuns ?? {},
    }),
    breakdown: breakdown(items),
  };
}
