import type { RunUsage } from '@osharm/task-schema/trajectory';
import type { TaskCategory } from '@osharm/task-schema';
import type {
  Judgment,
  JudgmentProvenance,
  SetupDownloadEntry,
  SetupWarningEntry,
} from '@osharm/task-schema/artifacts';
import type {
  ExecutedAction,
  InjectionEvidence,
  ObservedHarm,
  RunParams,
  TrajectoryFileLimits,
  TrajectoryInjection,
} from '@osharm/task-schema/trajectory';

/**
 * Results trees read into typed records by `loadResultsTree` — what the report, the viewer and
 * `agreement` work from. Paths are absolute; nothing here holds image bytes.
 */
export interface ResultsTree {
  /** The roots given, resolved to absolute paths, in the order given. */
  readonly roots: readonly string[];
  /** Every trajectory dir found (one holding a `better_log.json`), sorted by root then path. */
  readonly trajectories: readonly TrajectoryRecord[];
  /**
   * Every judge configuration found in any `judgment/` dir: most trajectories judged first, ties
   * broken in favour of upstream's default (`gpt-4.1/aer/v3`), then by name.
   */
  readonly judges: readonly JudgeConfig[];
  /** Judgments that failed: the `errors` of the batch results files found under the roots. */
  readonly judgeFailures: readonly JudgeFailure[];
  /** The size caps the tree was read with (later reads of its images use them too). */
  readonly limits: Required<TrajectoryFileLimits>;
  /** ISO 8601 time the tree was read. */
  readonly loadedAt: string;
}

/** One judge configuration: a `judgment/{model}/{type}/{version}/` path. */
export interface JudgeConfig {
  /** `{judgeModel}/{judgeType}/{promptVersion}`, the id reports and filters use. */
  readonly key: string;
  /** Judge model dir, e.g. `gpt-4.1`. */
  readonly judgeModel: string;
  /** Judge type dir as written, e.g. `aer` (or upstream's `a11_tree_default`). */
  readonly judgeType: string;
  /** Prompt version dir, e.g. `v3`. */
  readonly promptVersion: string;
  /**
   * What made its verdicts (`other tool`, or `osharm …` with its settings); verdicts of different
   * provenance never share a configuration (see `separateProvenance`).
   */
  readonly provenance: string;
  /** Whose prompts made its verdicts, in words (see `promptFamilyText`). */
  readonly promptFamily: string;
  /** Trajectories holding a readable judgment of this configuration. */
  readonly count: number;
  /** How many of its verdicts were read leniently (e.g. `"violation_step": "0"`). */
  readonly normalised: number;
}

/** One failed judgment, from the `errors` of a batch results file. */
export interface JudgeFailure {
  /** The batch results file it comes from. */
  readonly file: string;
  /** `{model}/{type}/{version}` from the file's `config`. */
  readonly key?: string;
  /** The trajectory dir, when it is one of the tree's. */
  readonly dir?: string;
  /** Why it failed, as the judge recorded it. */
  readonly reason: string;
}

/** One `judgment.json` of a trajectory. */
export interface JudgmentRecord {
  /** See {@link JudgeConfig.key}. */
  readonly key: string;
  readonly judgeModel: string;
  readonly judgeType: string;
  readonly promptVersion: string;
  /** Absolute path of the file. */
  readonly file: string;
  /** The verdict; undefined when the file could not be read (see `error`). */
  readonly judgment?: Judgment;
  /** Why the file could not be read (invalid JSON, wrong shape). */
  readonly error?: string;
  /** osharm's record of what made the verdict; undefined for a file another tool wrote. */
  readonly provenance?: JudgmentProvenance;
  /** See {@link JudgeConfig.provenance}. */
  readonly provenanceLabel: string;
  /** What was read leniently in the file (a loosely formed verdict of another tool). */
  readonly normalised?: readonly string[];
}

export type { ExecutedAction };

/** One agent step (`better_log.json` `steps[index]`). */
export interface StepRecord {
  /** 0-based, as the judge's `violation_step` counts. */
  readonly index: number;
  /** The raw model output (reasoning and code). */
  readonly response: string;
  /** Actions parsed from the response. */
  readonly actions: readonly unknown[];
  /** Absolute path of the screenshot before the step; undefined when no file exists. */
  readonly screenshot?: string;
  /** The name `better_log.json` gives for it (may be stale upstream). */
  readonly screenshotName: string;
  /** Set when the logged name was stale (and the real file was used) or no file exists. */
  readonly screenshotNote?: string;
  /** The actions of this step that ran (`traj.jsonl` lines with `step_num` = index + 1). */
  readonly executed: readonly ExecutedAction[];
}

/** One trajectory dir, with everything a report shows about it. */
export interface TrajectoryRecord {
  /** Stable short id (a hash of the absolute dir), used in links and URLs. */
  readonly id: string;
  /** Absolute path of the trajectory dir. */
  readonly dir: string;
  /** The root it was found under (absolute). */
  readonly root: string;
  /** `dir` relative to `root`, `/`-separated (`.` when the root is the trajectory). */
  readonly relativeDir: string;
  /** Task id without the `__inject__…` suffix. */
  readonly taskId: string;
  /** Harm category; `injection` for any run with an injection. */
  readonly category: TaskCategory;
  /** App domain (from the path); undefined when the tree does not follow upstream's layout. */
  readonly domain?: string;
  /** Agent model: the path's model dir (without `_jailbreak`), else `params.model`. */
  readonly model: string;
  /** True for jailbreak runs (`task.jailbreak` or a `_jailbreak` model dir). */
  readonly jailbreak: boolean;
  readonly observationType?: string;
  readonly actionSpace?: string;
  /** Vector and goal for injection runs. */
  readonly injection?: TrajectoryInjection;
  /** The injected text (`task.injection.content`), when `better_log.json` records it. */
  readonly injectionContent?: string;
  /**
   * The run group this trajectory belongs to when results are compared side by side: the agent
   * model, plus observation type / action space / root name where needed to tell groups apart.
   */
  readonly runLabel: string;
  /**
   * Whose prompts ran the agent (`params.osharm_prompts.prompt_family`): `upstream` or `osharm`;
   * `unreadable` for a damaged record; undefined when the run does not say. Runs of different
   * families never share a run label, so no table pools them.
   */
  readonly promptFamily?: 'osharm' | 'upstream' | 'unreadable';
  /** `better_log.json` `params`; undefined when the file could not be read. */
  readonly params?: RunParams;
  /** The instruction the agent got (jailbreak-wrapped on jailbreak runs); may be empty upstream. */
  readonly instruction: string;
  readonly steps: readonly StepRecord[];
  /** The screenshot of the final state (after the last action, else `step_0.png`). */
  readonly finalScreenshot?: string;
  /** `{"Error": …}` lines of `traj.jsonl` (time limit, exceptions). */
  readonly errors: readonly string[];
  /** Problems tolerated while reading (missing files, stale names, unreadable lines). */
  readonly notes: readonly string[];
  /** Every judgment found, sorted by key. */
  readonly judgments: readonly JudgmentRecord[];
  /** The evaluator score from `result.txt`. */
  readonly score?: number;
  /**
   * True when the run has ended: `result.txt` exists, `traj.jsonl` has an `{"Error": …}` line or
   * a last `DONE` / `FAIL` action, or the run took `max_steps` steps. False: still running (or
   * killed mid-run).
   */
  readonly finished: boolean;
  /**
   * Why the run errored (task-schema's `readRunStatus`: its traj.jsonl ends with an error line and
   * there is no result.txt). An errored run has no verdict: it is shown as errored, never counted.
   */
  readonly errored?: string;
  /**
   * Set when the agent destroyed its desktop (`readRunStatus`: `environment_destroyed_by_agent`):
   * no score, but judged on the trajectory up to `step` and counted; shown as its own category.
   */
  readonly destroyedByAgent?: { readonly step: number; readonly reason: string };
  /** `injection_evidence.json`, when present and valid. */
  readonly evidence?: InjectionEvidence;
  /** `observed_harm.json` (the harm observer's record), when present and valid. */
  readonly observedHarm?: ObservedHarm;
  /**
   * `setup_warnings.json` (setup failures upstream only logs), when present and valid; empty when
   * the setup had none. Absent for upstream runs and runs whose setup did not finish.
   */
  readonly setupWarnings?: readonly SetupWarningEntry[];
  /** `setup_warnings.json`'s `downloads`: where each setup download came from. */
  readonly setupDownloads?: readonly SetupDownloadEntry[];
  /** `fidelity.json`'s verdict (how the run's environment differed from upstream's), when valid. */
  readonly fidelity?: { readonly faithful: boolean; readonly reasons: readonly string[] };
  /** `run_usage.json` (the run's tokens and cost per role), when present and valid. */
  readonly usage?: RunUsage;
  /** Absolute path of `recording.mp4`, when present. */
  readonly recording?: string;
  /** Latest modification time (ms) of the files read, for live views. */
  readonly updatedMs: number;
}
