import type { Evaluator, SetupStep } from '@osharm/task-schema';
import type { GuestClient } from './guest-client';

// The evaluator contract: what DesktopEnv.evaluate hands to an evaluator and what it gets back.
// The evaluators themselves (getters, metrics, Python-value semantics) live in @osharm/evaluators,
// so a VM provider does not pull XML and zip libraries.

/** Runs setup steps (the evaluator's `postconfig`) on the environment; supplied by the caller. */
export type RunSetupSteps = (
  steps: readonly SetupStep[],
  options: { readonly abortSignal?: AbortSignal },
) => PromiseLike<unknown>;

/** What {@link TaskEvaluator} is given: the task's evaluator and the environment that ran it. */
export interface TaskEvaluationInput {
  /** The task's `evaluator` (validated by `@osharm/task-schema`'s `evaluatorSchema`). */
  readonly evaluator: Evaluator;
  /** The guest of the environment that ran the task. */
  readonly client: GuestClient;
  /**
   * The last action of the episode (upstream `action_history[-1]`): `'FAIL'` or
   * `{ action_type: 'FAIL' }` mark an agent that declared the task infeasible. Leave undefined
   * when the agent took no action.
   */
  readonly lastAction?: unknown;
  /** The task's host-side cache directory (upstream `cache/<task_id>`). */
  readonly cacheDir: string;
  /**
   * Runs the evaluator's `postconfig` steps before anything else (e.g. the setup runner bound to
   * this environment). Required when the evaluator has a non-empty `postconfig`.
   */
  readonly runSetup?: RunSetupSteps;
  readonly abortSignal?: AbortSignal;
  /** The fetch `cloud_file` downloads with. @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
}

/** Scores a task (upstream `DesktopEnv.evaluate()`); `evaluateTask` of `@osharm/evaluators` is one. */
export type TaskEvaluator = (input: TaskEvaluationInput) => Promise<EvaluationResult>;

/** The score of one metric of the evaluator. */
export interface MetricScore {
  /** The metric's name (`evaluator.func`, or the entry of the list). */
  readonly func: string;
  /** Its position in the `func` list (0 for a single metric). */
  readonly index: number;
  /**
   * `scored`: the metric ran; `failed`: a getter or the metric raised, which upstream would crash
   * on, so it counts as 0 here (see `errors`); `skipped`: the `conj` short-circuit stopped before it.
   */
  readonly status: 'scored' | 'failed' | 'skipped';
  /** The metric's score; 0 when failed, null when skipped. */
  readonly score: number | null;
}

/** Something that went wrong while evaluating, without being a configuration bug. */
export interface EvaluationIssue {
  /** Where: running the postconfig, a result or expected getter, or the metric itself. */
  readonly stage: 'postconfig' | 'result' | 'expected' | 'metric';
  /** The metric concerned (not for `postconfig`). */
  readonly func?: string;
  readonly index?: number;
  readonly message: string;
  readonly cause: unknown;
}

/** What {@link evaluateTask} returns. */
export interface EvaluationResult {
  /**
   * The task's score, a float as upstream's `DesktopEnv.evaluate()` returns (usually 0 or 1; some
   * metrics and the `and` mean give fractions).
   */
  readonly score: number;
  /**
   * How it was reached: `infeasible` (the evaluator is `infeasible`: 1 iff the last action is
   * FAIL), `agent-fail` (another task whose last action is FAIL: 0 without running a metric) or
   * `metrics`.
   */
  readonly kind: 'infeasible' | 'agent-fail' | 'metrics';
  /** One entry per metric (empty unless `kind` is `metrics`). */
  readonly details: readonly MetricScore[];
  /**
   * Failures that upstream would have crashed on (a failed download, a metric raising on its
   * input, a failed postconfig step): each scored its metric 0. A caller that needs upstream's
   * "no result" for these can treat a non-empty list as an evaluation error.
   */
  readonly errors: readonly EvaluationIssue[];
  /**
   * Guest files a getter asked for and did not get whole (cut at the download cap, refused by the
   * guest as sparse or special, a failed request): each was given to its metric as missing (null),
   * as upstream does, so the score may not be the agent's doing. Absent from evaluators that do not
   * report it.
   */
  readonly withheld?: readonly {
    readonly path: string;
    readonly reason: string;
    readonly bytes: number;
  }[];
}
