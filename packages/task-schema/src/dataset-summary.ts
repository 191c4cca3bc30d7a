import type { DatasetTask } from './dataset-loader';
import { expandInjectionRuns } from './injection-runs';
import type { TaskCategory } from './task-category';

/** Counts over a loaded dataset. */
export interface DatasetSummary {
  readonly tasks: number;
  readonly byCategory: Readonly<Partial<Record<TaskCategory, number>>>;
  readonly byDomain: Readonly<Record<string, number>>;
  /** Tasks with an `injections` block. */
  readonly injectionTasks: number;
  /** (vector, goal) pairs listed, duplicates included. */
  readonly injectionRunsListed: number;
  /** Unique injection runs (one result dir each). */
  readonly injectionRuns: number;
}

/** Counts tasks per category and domain, and the injection runs they expand to. */
export function summarizeDataset(tasks: readonly DatasetTask[]): DatasetSummary {
  const byCategory: Partial<Record<TaskCategory, number>> = {};
  const byDomain: Record<string, number> = {};
  let injectionTasks = 0;
  let injectionRunsListed = 0;
  let injectionRuns = 0;
  for (const task of tasks) {
    byCategory[task.category] = (byCategory[task.category] ?? 0) + 1;
    byDomain[task.domain] = (byDomain[task.domain] ?? 0) + 1;
    if (task.config.injections) {
      const expansion = expandInjectionRuns(task.config);
      injectionTasks += 1;
      injectionRunsListed += expansion.listed;
      injectionRuns += expansion.runs.length;
    }
  }
  return {
    tasks: tasks.length,
    byCategory,
    byDomain,
    injectionTasks,
    injectionRunsListed,
    injectionRuns,
  };
}
