import type { TaskCategory } from '@osharm/task-schema';
import type { TrajectoryInjection } from '@osharm/task-schema/trajectory';
import type { TokenCounts } from '@osharm/model-spec';
import type { ObservedVerdict } from './observer-agreement';

export type { TrajectoryInjection };

/** The verdict fields metrics read from a `judgment.json` (`safety: true` means SAFE). */
export interface TrajectoryVerdict {
  /** True if the agent fully completed its task. */
  readonly success: boolean;
  /** True if every action was safe. */
  readonly safety: boolean;
  /** 0-based index into `better_log.steps` of the first unsafe step; null when safe. */
  readonly violation_step: number | null;
}

/**
 * The deterministic evidence for a run's own injection goal (`injection_evidence.json`
 * `goals[].triggered`; see `runEvidence`).
 */
export interface TrajectoryEvidence {
  /** True: a check found the injected action; false: every check ran and found nothing; null: unknown. */
  readonly triggered: boolean | null;
}

/** Tokens a trajectory cost, per role; {@link usageTotals} prices them. */
export interface TrajectoryUsage {
  /** Tokens of the agent's model calls during the run. */
  readonly agent?: TokenCounts;
  /** Agent model id for pricing. @default the trajectory's `model` */
  readonly agentModel?: string;
  /** Tokens of the judge's model calls. */
  readonly judge?: TokenCounts;
  /** Judge model id for pricing. @default the trajectory's `judgeModel` */
  readonly judgeModel?: string;
  /** True when the judge ran through a batch API (half price). @default false */
  readonly judgeBatch?: boolean;
  /** Tokens of the screenshot captioner (captioned judge types). */
  readonly captioner?: TokenCounts;
  /** Captioner model id for pricing; captioner tokens without it have no price. */
  readonly captionerModel?: string;
}

/**
 * One trajectory as metrics see it: where it came from, the run facts that slice it, and its
 * judgment. Build one from a path with `describeTrajectoryPath(key)` plus the judgment.
 */
export interface JudgedTrajectory {
  /** The trajectory dir as given (e.g. a key of a batch results file's `results`). */
  readonly key: string;
  /** Task id without any `__inject__…` suffix. */
  readonly taskId: string;
  /** Harm category; `injection` for every run with an injection. */
  readonly category: TaskCategory;
  /** App domain dir, e.g. `thunderbird`. */
  readonly domain?: string;
  /** Agent model, without the `_jailbreak` suffix. */
  readonly model?: string;
  /** True for `--jailbreak` runs (`{model}_jailbreak` dirs). */
  readonly jailbreak?: boolean;
  /** Observation type of the run, e.g. `screenshot_a11y_tree`. */
  readonly observationType?: string;
  /** Action space of the run, e.g. `pyautogui`. */
  readonly actionSpace?: string;
  /** Present for injection runs. */
  readonly injection?: TrajectoryInjection;
  /** The harm observer's verdict (`observed_harm.json`; see `observedVerdict`). */
  readonly observed?: ObservedVerdict;
  /** The judge's verdict; trajectories without one are counted but not rated. */
  readonly judgment?: TrajectoryVerdict;
  /**
   * Why the run has no verdict: it errored (its traj.jsonl error line) or is unfinished
   * (task-schema's `readRunStatus`). An errored trajectory is never rated, even with a judgment.
   */
  readonly errored?: string;
  /**
   * Set when the agent destroyed its desktop (RunStatus `environment_destroyed_by_agent`): the run
   * has no score but its judgment counts in every rate like any other; reports show it apart.
   */
  readonly destroyedByAgent?: { readonly step: number };
  /** The OSWorld evaluator score from `result.txt`. */
  readonly score?: number;
  /** Judge model that produced `judgment`, e.g. `gpt-4.1` (the `judgment/{model}/…` dir). */
  readonly judgeModel?: string;
  /** Judge type that produced `judgment`, e.g. `aer`. */
  readonly judgeType?: string;
  /** Judge system prompt version, e.g. `v3`. */
  readonly promptVersion?: string;
  /** Number of agent steps (`better_log.steps.length`); gives the relative violation position. */
  readonly steps?: number;
  /** Deterministic injection evidence for the run's goal; absent when none was collected. */
  readonly evidence?: TrajectoryEvidence;
  /** Token usage of the run and its judging. */
  readonly usage?: TrajectoryUsage;
  /** The run's `fidelity.json` verdict; absent when the run has none (e.g. upstream's runs). */
  readonly faithful?: boolean;
}
