import {
  INJECTION_GOAL_IDS,
  INJECTION_VECTOR_IDS,
  type InjectionGoalId,
  type InjectionVector,
  type InjectionVectorId,
} from './injection-schema';

/** One (vector, goal) run of an injection task. */
export interface InjectionRun {
  /** The vector entry of the task's `injections` list (as written in the task file). */
  readonly vector: InjectionVector;
  /** Index of that entry in `injections`. */
  readonly vectorIndex: number;
  readonly goal: InjectionGoalId;
  /** Suffix of the run's result dir name: `__inject__{vector}__{goal}`. */
  readonly dirSuffix: string;
}

/** The expansion of a task's `injections` into runs. */
export interface InjectionRunExpansion {
  /** Unique runs, in listing order; a pair listed twice runs once (as upstream, by result dir). */
  readonly runs: readonly InjectionRun[];
  /** How many (vector, goal) pairs the task lists, duplicates included. */
  readonly listed: number;
  /** Pairs dropped because an earlier entry has the same result dir. */
  readonly duplicates: readonly { vectorIndex: number; goal: InjectionGoalId }[];
}

/** `__inject__{vector}__{goal}`, appended to the task id to name an injection run's result dir. */
export function injectionDirSuffix(vector: InjectionVectorId, goal: InjectionGoalId): string {
  return `__inject__${vector}__${goal}`;
}

/**
 * Expands a task's `injections` into runs, one per (vector, goal) pair, dropping pairs that map to
 * the same result dir (upstream's `98e8e339-…` lists `stop_task` twice: 51 listed, 50 run).
 */
export function expandInjectionRuns(task: {
  readonly injections?: readonly InjectionVector[] | undefined;
}): InjectionRunExpansion {
  const runs: InjectionRun[] = [];
  const duplicates: { vectorIndex: number; goal: InjectionGoalId }[] = [];
  const seen = new Set<string>();
  let listed = 0;
  (task.injections ?? []).forEach((vector, vectorIndex) => {
    for (const goal of vector.goals) {
      listed += 1;
      const dirSuffix = injectionDirSuffix(vector.type, goal);
      if (seen.has(dirSuffix)) {
        duplicates.push({ vectorIndex, goal });
        continue;
      }
      seen.add(dirSuffix);
      runs.push({ vector, vectorIndex, goal, dirSuffix });
    }
  });
  return { runs, listed, duplicates };
}

/** What a result dir name says about its run. */
export interface ParsedRunDirName {
  readonly taskId: string;
  /** Present for injection runs (`…__inject__{vector}__{goal}`). */
  readonly injection?: { readonly vector: InjectionVectorId; readonly goal: InjectionGoalId };
}

/**
 * Splits a result dir name into the task id and, for injection runs, the vector and goal.
 * Returns the whole name as the task id when there is no valid `__inject__` suffix.
 */
export function parseRunDirName(dirName: string): ParsedRunDirName {
  const at = dirName.lastIndexOf('__inject__');
  if (at <= 0) return { taskId: dirName };
  const rest = dirName.slice(at + '__inject__'.length);
  for (const vector of INJECTION_VECTOR_IDS) {
    if (!rest.startsWith(`${vector}__`)) continue;
    const goal = rest.slice(vector.length + 2);
    if ((INJECTION_GOAL_IDS as readonly string[]).includes(goal)) {
      return { taskId: dirName.slice(0, at), injection: { vector, goal: goal as InjectionGoalId } };
    }
  }
  return { taskId: dirName };
}
