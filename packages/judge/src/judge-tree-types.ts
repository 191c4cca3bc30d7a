/** The shapes of a tree judging: its options, its progress events and its batch results file. */
import type { JudgeType, ObservationType, PromptVersion } from '@osharm/task-schema';
import type { Judgment } from '@osharm/task-schema/artifacts';
import type { ModelPrice } from '@osharm/models';
import type { JudgeTrajectoryOptions } from './judge-trajectory';
import type { summarizeTree } from './tree-summary';

/** Progress of a tree judging, for bars and logs. */
export type JudgeTreeEvent =
  | {
      readonly type: 'start';
      readonly total: number;
      readonly skipped: number;
      readonly pending: number;
      /** Runs not judged because they errored or are unfinished (see `errored_runs`). */
      readonly errored: number;
    }
  | {
      readonly type: 'trajectory-end';
      readonly dir: string;
      readonly judgment?: Judgment;
      readonly error?: string;
      /** The error itself, for callers that react to its kind (e.g. stop on an authentication error). */
      readonly cause?: unknown;
      readonly seconds: number;
      readonly done: number;
      readonly pending: number;
    }
  | {
      readonly type: 'batch-status';
      readonly batchId: string;
      readonly status: string;
      readonly completed: number;
      readonly failed: number;
      readonly total: number;
    }
  | { readonly type: 'note'; readonly message: string };

/**
 * Options of {@link judgeTree}: the judging settings of {@link JudgeTrajectoryOptions} (same
 * defaults), applied to every trajectory under `rootDir`.
 */
export interface JudgeTreeOptions extends Pick<
  JudgeTrajectoryOptions,
  | 'judgeType'
  | 'promptVersion'
  | 'model'
  | 'captioner'
  | 'observationType'
  | 'images'
  | 'limits'
  | 'upstream'
  | 'abortSignal'
> {
  /** Root of a results tree; every dir below holding better_log.json is judged. */
  readonly rootDir: string;
  /** Trajectories judged at once. @default 8 */
  readonly concurrency?: number;
  /**
   * Re-judge trajectories that already have a valid judgment for this model / type / version, and
   * make their captions again instead of reading the caption cache.
   */
  readonly force?: boolean;
  /**
   * Judge trajectories whose judgment path holds a verdict of another provenance (upstream's, or
   * osharm's with other settings) again. The old file stays where it is; the new verdict goes to
   * a provenance-qualified sibling version dir (`qualifiedVersionDir`). Without it such a
   * trajectory is kept as it is and listed under `foreign`.
   */
  readonly rejudgeForeign?: boolean;
  /**
   * Wall-clock limit on judging one trajectory (captions + judge calls), in ms; past it the
   * trajectory is recorded in `errors` and the batch goes on. Not applied with `batchApi`.
   * @default 900000 (15 min)
   */
  readonly trajectoryTimeoutMs?: number;
  /**
   * Also judge unfinished runs: no result.txt and no error line (e.g. published traces copied
   * without their result.txt). Runs that ended with an error line are never judged. @default false
   */
  readonly includeUnfinished?: boolean;
  /** Submit through the provider's batch API (half price) instead of live calls. */
  readonly batchApi?:
    boolean | { readonly pollIntervalMs?: number; readonly maxRequestsPerBatch?: number };
  /** Write the batch results file. @default true */
  readonly write?: boolean;
  /** Price table for cost totals. @default MODEL_PRICES */
  readonly prices?: Readonly<Record<string, ModelPrice>>;
  readonly onProgress?: (event: JudgeTreeEvent) => void;
}

/** Token and cost totals of a tree judging (the `usage` key of the results file). */
export type TreeUsage = {
  judge_model: string;
  captioner_model: string | null;
  judge_input_tokens: number;
  judge_output_tokens: number;
  captioner_input_tokens: number;
  captioner_output_tokens: number;
  model_calls: number;
  cached_captions: number;
  skipped_already_judged: number;
  batch_api: boolean;
  /** USD at list price (half for batch APIs); null when a model's price is unknown. */
  estimated_cost_usd: number | null;
};

/**
 * The batch results file: upstream's keys (`config`, `results`, `errors`, `timing`, `summary`) plus
 * `breakdown` (rates per category, domain, vector, goal, model) and `usage` (tokens and cost).
 * It parses with task-schema's `batchResultsSchema`.
 */
export type JudgeTreeResult = {
  config: {
    root_dir: string;
    observation_type: ObservationType;
    sys_prompt_version: PromptVersion;
    judge_model: string;
    judge_type: JudgeType;
  };
  results: Record<string, Judgment>;
  errors: Record<string, string>;
  /**
   * Runs not judged because they have no verdict to give: the run errored (its traj.jsonl error
   * line) or is unfinished (no result.txt). Trajectory dir → reason. osharm's key.
   */
  errored_runs: Record<string, string>;
  /**
   * Trajectories not judged because their judgment path holds a verdict of another provenance
   * (kept, never overwritten, and not counted in `results` or `summary`): why, and what was read
   * leniently in it.
   */
  foreign: Record<string, string>;
  usage: TreeUsage;
} & ReturnType<typeof summarizeTree>;
