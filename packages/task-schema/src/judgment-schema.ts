import { z } from 'zod';
import type { JudgeType, ObservationType } from './run-options';

/**
 * The judge's verdict, `judgment/{judge_model}/{judge_type_dir}/{version}/judgment.json`
 * (reference/osharm-benchmark.md §5.3). `safety: true` means SAFE.
 */
export const judgmentSchema = z.looseObject({
  /** Why the judge decided as it did. */
  reasoning: z.string(),
  /** True if the agent fully completed the task it was given. */
  success: z.boolean(),
  /** True if every action was safe under the prompt's criteria. */
  safety: z.boolean(),
  /** 0-based index into `better_log.steps` of the first unsafe step; null when safe. */
  violation_step: z.number().int().nonnegative().nullable(),
});
export type Judgment = z.infer<typeof judgmentSchema>;

/**
 * The judgment directory name for a judge type. Upstream writes `a11_tree_default` (sic) for
 * observation type `a11y_tree` with judge type `default`; kept so upstream tools find our files.
 */
export function judgmentTypeDir(judgeType: JudgeType, observationType: ObservationType): string {
  return observationType === 'a11y_tree' && judgeType === 'default'
    ? 'a11_tree_default'
    : judgeType;
}

/**
 * Why a judge model name cannot name a judgment path or a batch results file, or undefined when it
 * can. Upstream joins the name into paths as it is, so `org/model` nests one dir deeper
 * (`judgment/org/model/…`, `batch_judgment_results_org/model_…`): such names are kept, each `/`
 * part a plain name. A `..` or `.` part, an empty part, a leading `/`, a backslash, a NUL or
 * control character would climb out of (or blur) the tree's scheme, and is refused.
 */
export function judgeModelNameIssue(name: string): string | undefined {
  if (name.trim() === '') return 'must not be empty';
  if ([...name].some(char => char < ' ' || char === '\x7f' || char === '\\'))
    return 'must not hold a backslash or control character';
  const parts = name.split('/');
  if (parts.some(part => part === '' || part === '.' || part === '..'))
    return "each '/'-separated part must be a plain name (no '..', '.', leading, trailing or doubled '/')";
  if (parts.some(part => part.length > 200)) return 'a part is over 200 characters';
  return undefined;
}

/** Path of `judgment.json` relative to a trajectory dir, with `/` separators. */
export function judgmentRelativePath(options: {
  judgeModel: string;
  judgeType: JudgeType;
  promptVersion: string;
  observationType: ObservationType;
}): string {
  const typeDir = judgmentTypeDir(options.judgeType, options.observationType);
  return `judgment/${options.judgeModel}/${typeDir}/${options.promptVersion}/judgment.json`;
}

/** File name of a batch results file: `batch_judgment_results_{model}_{type}_{version}.json`. */
export function batchResultsFileName(options: {
  judgeModel: string;
  judgeType: string;
  promptVersion: string;
}): string {
  return `batch_judgment_results_${options.judgeModel}_${options.judgeType}_${options.promptVersion}.json`;
}

/** A rate with its Wilson 95 % interval, as the `breakdown` key of a batch results file holds it. */
export const rateSchema = z.looseObject({
  count: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  rate: z.number().min(0).max(1).nullable(),
  low: z.number().min(0).max(1).nullable(),
  high: z.number().min(0).max(1).nullable(),
});
export type RateValue = z.infer<typeof rateSchema>;

/**
 * The batch results file of `run_judge_batch` (seeds/003), keys `config`, `results`, `errors`,
 * `timing`, `summary` in upstream's shape; osharm adds `breakdown` (rates by slice), `usage`
 * (tokens and cost) and `foreign` (verdicts of another provenance, kept), which upstream readers ignore.
 */
export const batchResultsSchema = z.looseObject({
  config: z.looseObject({
    root_dir: z.string(),
    observation_type: z.string(),
    sys_prompt_version: z.string(),
    judge_model: z.string(),
    judge_type: z.string(),
  }),
  results: z.record(z.string(), judgmentSchema),
  errors: z.record(z.string(), z.string()),
  /** Runs not judged because they errored or are unfinished: dir → reason (osharm's key). */
  errored_runs: z.record(z.string(), z.string()).optional(),
  timing: z.looseObject({
    total_duration_seconds: z.number(),
    processing_times: z.record(z.string(), z.number()),
    average_time_per_trajectory: z.number(),
    fastest_trajectory: z.number(),
    slowest_trajectory: z.number(),
  }),
  summary: z.looseObject({
    total_trajectories: z.number().int(),
    successful_evaluations: z.number().int(),
    errors: z.number().int(),
    safety_rate: z.number(),
    success_rate: z.number(),
  }),
  breakdown: z
    .record(z.string(), z.record(z.string(), z.record(z.string(), rateSchema)))
    .optional(),
  usage: z.record(z.string(), z.unknown()).optional(),
  /** osharm: trajectories kept, not judged, because their judgment path holds a verdict of another provenance (why). */
  foreign: z.record(z.string(), z.string()).optional(),
  /** osharm: judged runs without result.txt, judged by upstream's batch rule (why). */
  notes: z.record(z.string(), z.string()).optional(),
  /** osharm: verdicts made without screenshots they should have had: dir → counts. */
  missing_images: z
    .record(
      z.string(),
      z.looseObject({
        expected: z.number().int().nonnegative(),
        missing: z.number().int().nonnegative(),
      }),
    )
    .optional(),
  /** osharm: the tool version and the endpoints' origins that made the verdicts. */
  provenance: z
    .looseObject({
      tool: z.string(),
      tool_version: z.string(),
      judge_endpoint: z.string().nullable(),
      captioner_endpoint: z.string().nullable(),
    })
    .optional(),
});
export type BatchResults = z.infer<typeof batchResultsSchema>;
