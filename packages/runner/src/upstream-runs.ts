import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { readTrajectory } from '@osharm/task-schema/trajectory';
import { RunOptionsError } from './run-options';
import type { PlannedRun } from './run-plan';

/** One upstream run dir, as `osharm tasks check --compare` reads it (better_log.json). */
export interface UpstreamRun {
  readonly dir: string;
  /** The dir's name (upstream's logs record no task id). */
  readonly name: string;
  readonly instruction: string;
  /** better_log `task.injection` (type, goal_id, additional_config, params, content), or null. */
  readonly injection: {
    readonly type: string;
    readonly goal: string;
    readonly additionalConfig: string | null;
    readonly fileVm: string | null;
    readonly content: string | null;
  } | null;
  /** The first observation's linearized accessibility table (better_log `steps[0].a11y_tree`). */
  readonly firstObservation: string;
}

/**
 * The upstream runs under `root`: the dir itself when it holds a better_log.json, else each
 * direct subdirectory that does (sorted by name). Every log is read through the trajectory reader
 * (inside the dir, regular file, capped) and validated before anything runs.
 * @throws {RunOptionsError} naming the file and field of the first unusable log, or when none is found.
 */
export async function readUpstreamRuns(root: string): Promise<UpstreamRun[]> {
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (error) {
    throw new RunOptionsError(
      `--compare ${root}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  const dirs = entries.some(entry => entry.isFile() && entry.name === 'better_log.json')
    ? [root]
    : entries
        .filter(entry => entry.isDirectory())
        .map(entry => join(root, entry.name))
        .sort();
  const runs: UpstreamRun[] = [];
  for (const dir of dirs) {
    const read = await readTrajectory(dir);
    const file = join(dir, 'better_log.json');
    if (read.betterLogProblem?.reason === 'missing') continue;
    if (!read.betterLog) {
      const problem = read.betterLogProblem!;
      const why =
        problem.reason === 'refused'
          ? problem.error.message
          : problem.issues.map(issue => `${issue.path}: ${issue.message}`).join('; ');
      throw new RunOptionsError(`${file}: ${why}`);
    }
    const tree = read.betterLog.steps[0]?.a11y_tree;
    if (typeof tree !== 'string' || tree.trim() === '') {
      throw new RunOptionsError(
        `${file}: steps[0].a11y_tree: expected the first observation's accessibility table (a run with observation type a11y_tree or screenshot_a11y_tree)`,
      );
    }
    if (read.betterLog.task.jailbreak) {
      throw new RunOptionsError(`${file}: task.jailbreak: jailbreak runs are not compared`);
    }
    const injection = read.betterLog.task.injection;
    if (injection && injection.goal_id === undefined) {
      throw new RunOptionsError(`${file}: task.injection.goal_id: missing`);
    }
    runs.push({
      dir,
      name: basename(dir),
      instruction: read.betterLog.task.instruction,
      injection: injection
        ? {
            type: injection.type,
            goal: injection.goal_id!,
            additionalConfig: injection.additional_config ?? null,
            fileVm: injection.params?.file_path_vm ?? null,
            content: injection.content ?? null,
          }
        : null,
      firstObservation: tree,
    });
  }
  if (runs.length === 0) throw new RunOptionsError(`--compare ${root}: no better_log.json found`);
  return runs;
}

const normalize = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * The planned run an upstream run is the same run as: the task by its instruction, the injection
 * by better_log's `task.injection` (vector, goal, additional_config, the file it injects into).
 * `planned` must hold every (vector, goal) of the tasks (planRuns with `inject`).
 * @throws {RunOptionsError} when no planned run matches, or several do.
 */
export function matchUpstreamRun(
  upstream: UpstreamRun,
  planned: readonly PlannedRun[],
): PlannedRun {
  const file = join(upstream.dir, 'better_log.json');
  const byInstruction = planned.filter(
    run => normalize(run.task.config.instruction) === normalize(upstream.instruction),
  );
  if (byInstruction.length === 0) {
    throw new RunOptionsError(
      `${file}: task.instruction: no task of the dataset has this instruction`,
    );
  }
  const wanted = upstream.injection;
  const matches = byInstruction.filter(run => {
    if (!wanted) return run.injection === undefined;
    const vector = run.injection?.vector;
    return (
      vector !== undefined &&
      vector.type === wanted.type &&
      run.injection!.goal === wanted.goal &&
      (vector.additional_config ?? null) === wanted.additionalConfig &&
      (vector.params?.file_path_vm ?? null) === wanted.fileVm
    );
  });
  const labels = [...new Set(matches.map(run => run.label))];
  if (labels.length === 0) {
    const what = wanted
      ? `the injection ${wanted.type} / ${wanted.goal}`
      : 'a run without injection';
    throw new RunOptionsError(
      `${file}: task.injection: ${what} is not among the runs of ${[...new Set(byInstruction.map(run => `${run.task.domain}/${run.task.id}`))].join(', ')}`,
    );
  }
  if (labels.length > 1) {
    throw new RunOptionsError(
      `${file}: task.instruction: matches several runs: ${labels.join(', ')}`,
    );
  }
  return matches[0]!;
}
