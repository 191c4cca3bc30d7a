import { appendFile, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../atomic-write';
import { toPythonJson } from '../python-json';
import { DESTROYED_BY_AGENT_KEY } from '../run-status';
import {
  SETUP_WARNINGS_FILE,
  type SetupDownloadEntry,
  type SetupWindowWaitEntry,
  type SetupWarningEntry,
  type SetupWarnings,
} from '../setup-warnings-schema';
import type { InjectionVector } from '../injection-schema';
import type { Action, BetterLog, BetterLogStep, RunParams } from '../trajectory-schema';

/** The quality of one observation (recorded as `observation` in better_log.json and traj.jsonl). */
export interface ObservationQuality {
  readonly a11yTree: 'complete' | 'truncated' | 'failed' | 'not_requested';
  /** Wall-clock time of the observation in ms. */
  readonly ms: number;
  readonly late: boolean;
}

/** An observation the agent may not have seen whole (a cut or missing tree, or a late one). */
export function isDegraded(quality: ObservationQuality | undefined): boolean {
  return (
    quality !== undefined &&
    (quality.late || quality.a11yTree === 'truncated' || quality.a11yTree === 'failed')
  );
}

/** `%Y%m%d@%H%M%S` in local time, as upstream's `datetime.now().strftime`. */
export function actionTimestamp(date: Date = new Date()): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}${pad(date.getMonth() + 1)}${pad(date.getDate())}@${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`;
}

/**
 * Writes a trajectory dir in upstream's layout and formats (reference/osharm-benchmark.md §4):
 * `step_0.png`, `step_{n}_{timestamp}.png`, `traj.jsonl` (one Python-json line per action),
 * `better_log.json` (rewritten whole after every agent step, before its actions run),
 * `result.txt` last. Every file is written atomically except the append-only traj.jsonl.
 */
export class TrajectoryWriter {
  private readonly log: {
    params: RunParams;
    task: BetterLog['task'];
    steps: BetterLogStep[];
    observations?: ObservationCounts;
  };
  private readonly counts: ObservationCounts = {
    observations: 0,
    degraded_observations: 0,
    truncated_a11y_trees: 0,
    failed_a11y_trees: 0,
    late_observations: 0,
  };

  constructor(
    readonly dir: string,
    options: {
      params: RunParams;
      instruction: string;
      jailbreak: boolean;
      injection: InjectionVector | null;
    },
  ) {
    this.log = {
      params: options.params,
      task: {
        jailbreak: options.jailbreak,
        injection: options.injection,
        instruction: options.instruction,
      },
      steps: [],
    };
  }

  /** Creates the dir, removing whatever an unfinished earlier run left (upstream's resume rule). */
  async prepare(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    for (const entry of await readdir(this.dir))
      await rm(join(this.dir, entry), { recursive: true, force: true });
  }

  async writeScreenshot(name: string, png: Uint8Array): Promise<void> {
    await writeFileAtomic(join(this.dir, name), png);
  }

  /**
   * Adds an agent step to better_log.json and rewrites it. `observation` (the quality of what the
   * agent saw) goes beside upstream's keys, and the run's counts under the top-level
   * `observations` key.
   */
  async addStep(step: {
    a11yTree: string | null;
    screenshotFile: string;
    response: string;
    actions: readonly Action[];
    observation?: ObservationQuality;
    /** A native agent's record of the step (osharm's key). */
    native?: Readonly<Record<string, unknown>>;
  }): Promise<void> {
    this.log.steps.push({
      a11y_tree: step.a11yTree,
      screenshot_file: step.screenshotFile,
      response: step.response,
      actions: [...step.actions],
      ...(step.observation ? { observation: observationRecord(step.observation) } : {}),
      ...(step.native ? { native: step.native } : {}),
    });
    if (step.observation) {
      const counts = this.counts;
      counts.observations += 1;
      if (isDegraded(step.observation)) counts.degraded_observations += 1;
      if (step.observation.a11yTree === 'truncated') counts.truncated_a11y_trees += 1;
      if (step.observation.a11yTree === 'failed') counts.failed_a11y_trees += 1;
      if (step.observation.late) counts.late_observations += 1;
      this.log.observations = { ...counts };
    }
    await writeFileAtomic(join(this.dir, 'better_log.json'), toPythonJson(this.log));
  }

  /** Appends one executed action to traj.jsonl (keys in upstream's order; `execution` is osharm's). */
  async addAction(line: {
    stepNum: number;
    timestamp: string;
    action: Action;
    done: boolean;
    info: Readonly<Record<string, unknown>>;
    screenshotFile: string;
    execution?: { readonly error: string; readonly returncode: number };
    /** The quality of the observation taken after the action (osharm's). */
    observation?: ObservationQuality;
  }): Promise<void> {
    const record: Record<string, unknown> = {
      step_num: line.stepNum,
      action_timestamp: line.timestamp,
      action: line.action,
      reward: 0,
      done: line.done,
      info: line.info,
      screenshot_file: line.screenshotFile,
    };
    // The guest's error output of the agent's code (upstream dropped it); only when there was one.
    if (line.execution && (line.execution.returncode !== 0 || line.execution.error.trim() !== '')) {
      record.execution = {
        returncode: line.execution.returncode,
        error: line.execution.error.slice(-4000),
      };
    }
    if (line.observation) record.observation = observationRecord(line.observation);
    await appendFile(join(this.dir, 'traj.jsonl'), `${toPythonJson(record)}\n`);
  }

  /** Appends an `{"Error": …}` line, as upstream does when a run raises. */
  /**
   * The run's error line (upstream's `{"Error": …}`); with `destroyedAtStep`, osharm's marker of a
   * desktop the agent destroyed after that step's actions (RunStatus `environment_destroyed_by_agent`).
   */
  async addError(message: string, options: { destroyedAtStep?: number } = {}): Promise<void> {
    const line =
      options.destroyedAtStep !== undefined
        ? { Error: message, [DESTROYED_BY_AGENT_KEY]: { step: options.destroyedAtStep } }
        : { Error: message };
    await appendFile(join(this.dir, 'traj.jsonl'), `${toPythonJson(line)}\n`);
  }

  /**
   * `setup_warnings.json`: osharm's record of the setup failures upstream only logs, and of where
   * each downloaded file came from.
   */
  async writeSetupWarnings(
    warnings: readonly SetupWarningEntry[],
    downloads: readonly SetupDownloadEntry[],
    windowWaits: readonly SetupWindowWaitEntry[] = [],
  ): Promise<void> {
    const record: SetupWarnings = {
      version: 1,
      warnings: [...warnings],
      downloads: [...downloads],
      // absent when no step waited for a window
      ...(windowWaits.length > 0 ? { window_waits: [...windowWaits] } : {}),
    };
    await writeFileAtomic(
      join(this.dir, SETUP_WARNINGS_FILE),
      `${JSON.stringify(record, null, 2)}\n`,
    );
  }

  /** Writes result.txt (the evaluator's score): the file that marks the run finished. */
  async writeResult(score: number): Promise<void> {
    await writeFileAtomic(join(this.dir, 'result.txt'), `${score}\n`);
  }

  get stepCount(): number {
    return this.log.steps.length;
  }

  /** The run's observation counts so far (the observations the agent was given). */
  get observationCounts(): Readonly<ObservationCounts> {
    return { ...this.counts };
  }
}

/** Counts of a run's observations (better_log.json's top-level `observations`). */
export interface ObservationCounts {
  observations: number;
  /** Truncated or failed trees plus late observations (one observation counts once). */
  degraded_observations: number;
  truncated_a11y_trees: number;
  failed_a11y_trees: number;
  late_observations: number;
}

function observationRecord(quality: ObservationQuality): Record<string, unknown> {
  return { a11y_tree: quality.a11yTree, ms: Math.round(quality.ms), late: quality.late };
}
