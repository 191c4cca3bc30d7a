import { resolve } from 'node:path';
import {
  breakdown,
  describeTrajectoryPath,
  formatBreakdownTable,
  summarize,
  type JudgedTrajectory,
} from '@osharm/metrics';
import { summarizeDegraded } from '@osharm/task-schema';
import type { CliIo } from './cli-io';
import { displayPath } from './dataset-options';
import type { RunFlags } from './run-flags';
import type { RunOutcome } from './run-one';
import type { PlannedRun } from './run-plan';

/** What a batch of `osharm run` ended with. */
export interface BatchOutcome {
  readonly outcomes: readonly RunOutcome[];
  /** Every planned run (finished earlier ones included). */
  readonly runs: readonly PlannedRun[];
  /** Runs never started because the batch stopped (see `stopReason`). */
  readonly notRun: readonly PlannedRun[];
  readonly stopReason?: string;
}

/** Errored runs listed by name in the summary before "… and N more". */
const LISTED_ERRORS = 20;

/**
 * Prints the end-of-run summary: the errored runs with their reasons (never scored, judged or
 * counted), scores per category, and judged rates per slice when judged.
 */
export function printSummary(
  { outcomes, runs, notRun, stopReason }: BatchOutcome,
  flags: RunFlags,
  io: CliIo,
) {
  const scores = outcomes.filter(outcome => outcome.score !== null).map(outcome => outcome.score!);
  const errored = outcomes.filter(outcome => outcome.error !== undefined);
  const judgeFailed = outcomes.filter(outcome => outcome.judgeError !== undefined);
  io.stdout(
    `\nruns this time: ${outcomes.length}, finished: ${scores.length}, errored: ${errored.length}${notRun.length > 0 ? `, not started: ${notRun.length}` : ''}\n`,
  );
  const recorded = outcomes.filter(outcome => outcome.fidelity);
  io.stdout(
    `fidelity: ${recorded.filter(outcome => outcome.fidelity!.faithful).length} faithful of ${recorded.length} (fidelity.json in each run dir says why not)\n`,
  );
  const degraded = summarizeDegraded(recorded.map(outcome => outcome.fidelity!));
  io.stdout(
    `degraded observations: ${degraded.observations} in ${degraded.runs} of ${recorded.length} run(s)${degraded.unknown > 0 ? ` (${degraded.unknown} run(s) without a count)` : ''}\n`,
  );
  if (errored.length > 0) {
    io.stdout(
      `errored runs (no result.txt: not scored, judged or counted; a rerun runs them again):\n`,
    );
    for (const outcome of errored.slice(0, LISTED_ERRORS))
      io.stdout(`  ${outcome.run.label}: ${outcome.error}\n`);
    if (errored.length > LISTED_ERRORS)
      io.stdout(
        `  … and ${errored.length - LISTED_ERRORS} more (each traj.jsonl ends with its error)\n`,
      );
  }
  if (stopReason) io.stdout(`stopped early: ${stopReason}\n`);
  if (judgeFailed.length > 0) {
    io.stdout(
      `judging failed for ${judgeFailed.length} finished run(s) (judge them later with osharm judge):\n`,
    );
    for (const outcome of judgeFailed.slice(0, LISTED_ERRORS))
      io.stdout(`  ${outcome.run.label}: ${outcome.judgeError}\n`);
  }
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
