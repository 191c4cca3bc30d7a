import {
  breakdown,
  describeTrajectoryPath,
  formatUsageSum,
  runUsageTotals,
  summarize,
  type JudgedTrajectory,
  type RunUsageTotals,
} from '@osharm/metrics';
import { formatBreakdownTable } from '@osharm/metrics/tables';
import { summarizeDegraded, type DegradedSummary } from '@osharm/task-schema/internal';
import type { RunOutcome } from './run-one';
import type { PlannedRun } from './run-plan';

/** A sharded run: shard `index` of `count` (1-based) holds `runs` of the `of` runs planned. */
export interface ShardCount {
  readonly index: number;
  readonly count: number;
  readonly runs: number;
  readonly of: number;
}

/** What a batch of runs ended with. */
export interface BatchOutcome {
  readonly outcomes: readonly RunOutcome[];
  /** Every planned run (finished earlier ones included). */
  readonly runs: readonly PlannedRun[];
  /** Runs never started because the batch stopped (see `stopReason`). */
  readonly notRun: readonly PlannedRun[];
  readonly stopReason?: string;
  /** Set when the batch ran one shard of the plan (`runs` is then that shard's runs). */
  readonly shard?: ShardCount;
}

/** The numbers of a benchmark run: what `osharm run` prints at the end. */
export interface BenchmarkSummary extends BatchOutcome {
  /** Runs this time (finished, errored, judged or not). */
  readonly ran: number;
  /** Runs of this time that hold a score. */
  readonly finished: number;
  /** Runs of this time that ended with an error: no score, never judged or counted. */
  readonly errored: readonly { readonly label: string; readonly error: string }[];
  /**
   * Runs whose desktop the agent destroyed (`environment_destroyed_by_agent`): no score, but judged
   * on the trajectory up to that step and counted in the judged rates.
   */
  readonly destroyedByAgent: readonly {
    readonly label: string;
    readonly step: number;
    readonly reason: string;
  }[];
  /** Finished runs whose judging failed (they keep their score). */
  readonly judgeFailed: readonly { readonly label: string; readonly error: string }[];
  /** "N faithful of M": runs whose fidelity.json says faithful, of the runs with a record. */
  readonly fidelity: { readonly faithful: number; readonly recorded: number };
  /** Degraded observations (truncated / failed / late) over the runs with a fidelity record. */
  readonly degraded: DegradedSummary;
  /** Mean evaluator score over the finished runs of this time (absent: none finished). */
  readonly averageScore?: number;
  /** Mean score per task category, in the order first seen. */
  readonly byCategory: readonly {
    readonly category: string;
    readonly meanScore: number;
    readonly n: number;
  }[];
  /** The judged runs of this time (empty when judging was off or failed). */
  readonly judged: readonly JudgedTrajectory[];
  /** Judged rates (absent when nothing was judged). */
  readonly rates?: { readonly judged: number; readonly unsafe: number; readonly success: number };
  /** True when a run errored, judging failed or the batch stopped early (`osharm run` exits 1). */
  readonly failed: boolean;
  /** True when the caller's signal stopped the batch. */
  readonly aborted: boolean;
  /**
   * Tokens and cost of the runs of this time (their run_usage.json records), per role and model;
   * runs skipped as finished earlier are not counted again.
   */
  readonly usage: RunUsageTotals;
  /** Runs of this time without a run_usage.json record (it could not be written). */
  readonly usageMissing: number;
}

const mean = (values: readonly number[]) =>
  values.reduce((sum, value) => sum + value, 0) / values.length;

/** Computes the summary numbers of a batch. */
export function summarizeBenchmark(
  batch: BatchOutcome & { readonly aborted?: boolean },
): BenchmarkSummary {
  const { outcomes } = batch;
  const scores = outcomes.filter(outcome => outcome.score !== null).map(outcome => outcome.score!);
  const errored = outcomes
    .filter(outcome => outcome.error !== undefined)
    .map(outcome => ({ label: outcome.run.label, error: outcome.error! }));
  const destroyedByAgent = outcomes
    .filter(outcome => outcome.destroyedByAgent !== undefined)
    .map(outcome => ({ label: outcome.run.label, ...outcome.destroyedByAgent! }));
  const judgeFailed = outcomes
    .filter(outcome => outcome.judgeError !== undefined)
    .map(outcome => ({ label: outcome.run.label, error: outcome.judgeError! }));
  const recorded = outcomes.filter(outcome => outcome.fidelity);
  // Per category: for misuse and misbehavior tasks (evaluator `infeasible`) the score is 1 when
  // the agent answered FAIL, i.e. the share of refusals.
  const byCategory = new Map<string, number[]>();
  for (const outcome of outcomes) {
    if (outcome.score === null) continue;
    const { category } = describeTrajectoryPath(outcome.run.dir);
    byCategory.set(category, [...(byCategory.get(category) ?? []), outcome.score]);
  }
  const judged: JudgedTrajectory[] = outcomes
    .filter(outcome => outcome.judgment)
    .map(outcome => ({
      key: outcome.run.dir,
      ...describeTrajectoryPath(outcome.run.dir),
      judgment: outcome.judgment,
      score: outcome.score ?? undefined,
      ...(outcome.destroyedByAgent && {
        destroyedByAgent: { step: outcome.destroyedByAgent.step },
      }),
    }));
  const rates =
    judged.length > 0
      ? (() => {
          const summary = summarize(judged);
          return {
            judged: summary.judged,
            unsafe: summary.unsafe.rate ?? 0,
            success: summary.success.rate ?? 0,
          };
        })()
      : undefined;
  return {
    outcomes,
    runs: batch.runs,
    notRun: batch.notRun,
    ...(batch.stopReason === undefined ? {} : { stopReason: batch.stopReason }),
    ...(batch.shard ? { shard: batch.shard } : {}),
    ran: outcomes.length,
    finished: scores.length,
    errored,
    destroyedByAgent,
    judgeFailed,
    fidelity: {
      faithful: recorded.filter(outcome => outcome.fidelity!.faithful).length,
      recorded: recorded.length,
    },
    degraded: summarizeDegraded(recorded.map(outcome => outcome.fidelity!)),
    ...(scores.length > 0 ? { averageScore: mean(scores) } : {}),
    byCategory: [...byCategory].map(([category, values]) => ({
      category,
      meanScore: mean(values),
      n: values.length,
    })),
    judged,
    ...(rates ? { rates } : {}),
    failed: batch.stopReason !== undefined || errored.length > 0 || judgeFailed.length > 0,
    aborted: batch.aborted === true,
    usage: runUsageTotals(outcomes.flatMap(outcome => (outcome.usage ? [outcome.usage] : []))),
    usageMissing: outcomes.filter(outcome => !outcome.usage).length,
  };
}

/** Errored runs listed by name in the summary before "… and N more". */
const LISTED_ERRORS = 20;

/**
 * The end-of-run summary as `osharm run` prints it: the errored runs with their reasons (never
 * scored, judged or counted), scores per category, and judged rates per slice when judged.
 */
export function formatSummary(
  summary: BenchmarkSummary,
  options: {
    /** The judge model of the run (`none`: judging was off). */
    readonly judgeModel: string;
    /** The results root as it should be shown (e.g. relative to the working dir). */
    readonly resultDir: string;
  },
): string {
  const lines: string[] = [];
  const out = (text: string) => lines.push(text);
  const { errored, judgeFailed, notRun, stopReason, shard } = summary;
  if (shard) out(`\nshard ${shard.index}/${shard.count}: ${shard.runs} of ${shard.of} runs\n`);
  out(
    `\nruns this time: ${summary.ran}, finished: ${summary.finished}, errored: ${errored.length}${summary.destroyedByAgent.length > 0 ? `, desktop destroyed by the agent: ${summary.destroyedByAgent.length}` : ''}${notRun.length > 0 ? `, not started: ${notRun.length}` : ''}\n`,
  );
  out(
    `fidelity: ${summary.fidelity.faithful} faithful of ${summary.fidelity.recorded} (fidelity.json in each run dir says why not)\n`,
  );
  const { degraded } = summary;
  if (summary.fidelity.recorded > 0)
    out(
      `degraded observations: ${degraded.observations} in ${degraded.runs} of ${summary.fidelity.recorded} run(s)${degraded.unknown > 0 ? ` (${degraded.unknown} run(s) without a count)` : ''}\n`,
    );
  if (errored.length > 0) {
    out(`errored runs (no result.txt: not scored, judged or counted; a rerun runs them again):\n`);
    for (const run of errored.slice(0, LISTED_ERRORS)) out(`  ${run.label}: ${run.error}\n`);
    if (errored.length > LISTED_ERRORS)
      out(`  … and ${errored.length - LISTED_ERRORS} more (each traj.jsonl ends with its error)\n`);
  }
  const { destroyedByAgent } = summary;
  if (destroyedByAgent.length > 0) {
    out(
      `desktops destroyed by the agent (no score; judged on the trajectory up to that step and counted):\n`,
    );
    for (const run of destroyedByAgent.slice(0, LISTED_ERRORS))
      out(`  ${run.label}: after step ${run.step}: ${run.reason}\n`);
  }
  if (stopReason) out(`stopped early: ${stopReason}\n`);
  if (judgeFailed.length > 0) {
    out(
      `judging failed for ${judgeFailed.length} finished run(s) (judge them later with osharm judge):\n`,
    );
    for (const run of judgeFailed.slice(0, LISTED_ERRORS)) out(`  ${run.label}: ${run.error}\n`);
  }
  if (summary.averageScore !== undefined) {
    out(
      `average evaluator score: ${summary.averageScore.toFixed(3)} over ${summary.finished} run(s)\n`,
    );
    for (const { category, meanScore, n } of summary.byCategory)
      out(`  ${category}: mean score ${meanScore.toFixed(3)} (n=${n})\n`);
  }
  if (summary.rates) {
    out(
      `judged: ${summary.rates.judged}; unsafe ${(100 * summary.rates.unsafe).toFixed(1)}%, success ${(100 * summary.rates.success).toFixed(1)}%\n`,
    );
    out(formatBreakdownTable(breakdown([...summary.judged]), { format: 'text' }));
  } else if (options.judgeModel === 'none') {
    out(
      'LLM judging was off (--judge-model none); deterministic injection evidence, if any, is in each run dir.\n',
    );
  }
  if (lines.length > 0 && !lines.at(-1)!.endsWith('\n')) out('\n');
  out(formatBatchUsage(summary));
  out(`results: ${options.resultDir} (${summary.runs.length} run dir(s))\n`);
  return lines.join('');
}

/** The batch's tokens and cost per role and per model (each run's run_usage.json, summed). */
function formatBatchUsage(summary: BenchmarkSummary): string {
  const { usage, usageMissing } = summary;
  if (summary.ran === 0) return '';
  const missing =
    usageMissing > 0 ? ` (${usageMissing} run(s) without run_usage.json: cost unknown)` : '';
  const total = usageMissing > 0 ? { ...usage.total, costUsd: null } : usage.total;
  const lines = [`model usage this time, list price${missing}: ${formatUsageSum(total)}\n`];
  for (const [role, sum] of Object.entries(usage.roles))
    lines.push(`  ${role.padEnd(9)} ${formatUsageSum(sum)}\n`);
  for (const [model, sum] of Object.entries(usage.byModel))
    lines.push(`  model ${model}: ${formatUsageSum(sum)}\n`);
  return lines.join('');
}
