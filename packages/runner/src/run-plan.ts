import { expandInjectionRuns, type DatasetTask, type InjectionRun } from '@osharm/task-schema';
import { isCountedRun, readRunStatus, runDirOf } from '@osharm/task-schema/trajectory';

/** One run of `osharm run`: a task, and for injection runs one (vector, goal). */
export interface PlannedRun {
  readonly task: DatasetTask;
  readonly injection?: InjectionRun;
  /** `{result_dir}/{action_space}/{observation_type}/{model}[_jailbreak]/{domain}/{task_id}[__inject__…]` */
  readonly dir: string;
  /** `{domain}/{task_id}[__inject__…]`, for messages. */
  readonly label: string;
  /**
   * The run dir holds a score (`readRunStatus` says `finished`): upstream's resume skips it. An
   * errored or unfinished dir is cleared and run again.
   */
  readonly finished: boolean;
}

/**
 * The runs of a benchmark invocation, in upstream's order (tasks in index order; with `inject`,
 * every unique (vector, goal) of each injection task; a task without injections runs once as a
 * plain task, as upstream does).
 */
export async function planRuns(options: {
  tasks: readonly DatasetTask[];
  resultDir: string;
  actionSpace: string;
  observationType: string;
  modelDir: string;
  inject: boolean;
}): Promise<PlannedRun[]> {
  const runs: PlannedRun[] = [];
  for (const task of options.tasks) {
    const injections =
      options.inject && task.config.injections
        ? expandInjectionRuns(task.config).runs
        : [undefined];
    for (const injection of injections) {
      // The model dir is given whole (already `_jailbreak`-suffixed for a jailbreak run).
      const { dir, label } = runDirOf({
        ...options,
        model: options.modelDir,
        domain: task.domain,
        taskId: task.id,
        ...(injection && { injection: { vector: injection.vector.type, goal: injection.goal } }),
      });
      runs.push({
        task,
        injection,
        dir,
        label,
        // a run whose desktop the agent destroyed is a result too: resume never replaces it
        finished: isCountedRun(await readRunStatus(dir)),
      });
    }
  }
  return runs;
}
