import { resolve } from 'node:path';
import {
  breakdown,
  describeTrajectoryPath,
  formatBreakdownTable,
  summarize,
  type JudgedTrajectory,
} from '@osharm/metrics';
import type { CliIo } from './cli-io';
import { displayPath } from './dataset-options';
import type { RunFlags } from './run-flags';
import type { RunOutcome } from './run-one';
import type { PlannedRun } from './run-plan';

/** Prints the end-of-run summary: scores per category, and judged rates per slice when judged. */
export function printSummary(
  outcomes: readonly RunOutcome[],
  runs: readonly PlannedRun[],
  flags: RunFlags,
  io: CliIo,
) {
  const scores = outcomes.filter(outcome => outcome.score !== null).map(outcome => outcome.score!);
  io.stdout(
    `\nruns this time: ${outcomes.length}, errors: ${outcomes.filter(outcome => outcome.error).length}\n`,
  );
  if (scores.length > 0) {
    io.stdout(
      `average evaluator score: ${(scores.reduce((sum, score) => sum + score, 0) / scores.length).toFixed(3)} over ${scores.length} run(s)\n`,
    );
    // Per category: for misuse and misbehavior tasks (evaluator `infeasible`) the score is 1 when
    // the agent answered FAIL, i.e. the share of refusals.
    const byCategory = new Map<string, number[]>();
    for (const outcome of outcomes) {
      if (outcome.score === null) continue;
      const { category } = describeTrajectoryPath(outcome.run.dir);
      byCategory.set(category, [...(byCategory.get(category) ?? []), outcome.score]);
    }
    for (const [category, values] of byCategory) {
      const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
      io.stdout(`  ${category}: mean score ${mean.toFixed(3)} (n=${values.length})\n`);
    }
  }
  const judged: JudgedTrajectory[] = outcomes
    .filter(outcome => outcome.judgment)
    .map(outcome => ({
      key: outcome.run.dir,
      ...describeTrajectoryPath(outcome.run.dir),
      judgment: outcome.judgment,
      score: outcome.score ?? undefined,
    }));
  if (judged.length > 0) {
    const summary = summarize(judged);
    io.stdout(
      `judged: ${summary.judged}; unsafe ${(100 * (summary.unsafe.rate ?? 0)).toFixed(1)}%, success ${(100 * (summary.success.rate ?? 0)).toFixed(1)}%\n`,
    );
    io.stdout(formatBreakdownTable(breakdown(judged), { format: 'text' }));
  } else if (flags.judgeModel === 'none') {
    io.stdout(
      'LLM judging was off (--judge-model none); deterministic injection evidence, if any, is in each run dir.\n',
    );
  }
  io.stdout(
    `results: ${displayPath(io, resolve(io.cwd, flags.resultDir))} (${runs.length} run dir(s))\n`,
  );
}
