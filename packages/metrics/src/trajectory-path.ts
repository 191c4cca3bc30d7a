import {
  OBSERVATION_TYPES,
  parseRunDirName,
  taskCategory,
  type TaskCategory,
} from '@osharm/task-schema';
import type { TrajectoryInjection } from './judged-trajectory';

/** The run facts encoded in a result path (see {@link describeTrajectoryPath}). */
export interface TrajectoryPathDescription {
  /** Task id without any `__inject__…` suffix. */
  readonly taskId: string;
  /** `taskCategory(taskId)`, or `injection` when the run has an injection. */
  readonly category: TaskCategory;
  /** Second-to-last segment. */
  readonly domain?: string;
  /**
   * The model dir without its `_jailbreak` suffix: the third-to-last segment, or — when the model
   * name has a `/` and upstream nested it (`…/screenshot_a11y_tree/Qwen/Qwen2.5-VL-72B-Instruct/…`) —
   * every segment between the observation type and the domain, joined with `/`.
   */
  readonly model?: string;
  /** True when the model segment ends in `_jailbreak` (or the override says so). */
  readonly jailbreak: boolean;
  /** Fourth-to-last segment. */
  readonly observationType?: string;
  /** Fifth-to-last segment. */
  readonly actionSpace?: string;
  /** From the `__inject__{vector}__{goal}` suffix of the task dir (or the override). */
  readonly injection?: TrajectoryInjection;
}

/** Facts from `better_log.json` that win over what the path says. */
export interface TrajectoryPathOverrides {
  /**
   * `task.injection` as `{ vector: type, goal: goal_id }`; `null` means the run had no injection
   * (the path's suffix is then ignored); `undefined` keeps what the path says.
   */
  readonly injection?: TrajectoryInjection | null;
  /** `task.jailbreak`; `undefined` keeps what the path says. */
  readonly jailbreak?: boolean;
}

const jailbreakSuffix = '_jailbreak';

/**
 * Reads the run facts from an upstream result path
 * `{result_dir}/{action_space}/{observation_type}/{model}[_jailbreak]/{domain}/{task_id}[__inject__{vector}__{goal}]`.
 * Segments count from the end: the last is the task dir, then domain, model, observation type and
 * action space; a shorter (relative) path yields only the facts it holds. A model name with `/`
 * (upstream nests it in dirs) is found by the observation-type segment before it: every segment
 * between that one and the domain is the model. `/` and `\` both
 * separate, and a trailing separator is ignored. `overrides` (from `better_log.json`) win over the
 * path.
 */
export function describeTrajectoryPath(
  path: string,
  overrides: TrajectoryPathOverrides = {},
): TrajectoryPathDescription {
  const segments = path.split(/[\\/]+/).filter(segment => segment !== '');
  const fromEnd = (index: number): string | undefined => segments[segments.length - 1 - index];
  const parsed = parseRunDirName(fromEnd(0) ?? '');
  // The nearest observation-type segment before the model dir: model names with `/` nest.
  // (One `/` at most, as in `org/name` model-hub ids: a deeper search would misread other layouts.)
  let observationAt = segments.length - 4;
  while (
    observationAt >= Math.max(0, segments.length - 5) &&
    !(OBSERVATION_TYPES as readonly string[]).includes(segments[observationAt]!)
  )
    observationAt -= 1;
  const nested =
    observationAt >= Math.max(0, segments.length - 5) && observationAt < segments.length - 4;
  const modelDir = nested
    ? segments.slice(observationAt + 1, segments.length - 2).join('/')
    : fromEnd(2);
  const pathJailbreak =
    modelDir !== undefined &&
    modelDir.length > jailbreakSuffix.length &&
    modelDir.endsWith(jailbreakSuffix);
  const model = pathJailbreak ? modelDir.slice(0, -jailbreakSuffix.length) : modelDir;
  const injection =
    overrides.injection === undefined
      ? parsed.injection && { vector: parsed.injection.vector, goal: parsed.injection.goal }
      : (overrides.injection ?? undefined);
  const domain = fromEnd(1);
  const observationType = nested ? segments[observationAt] : fromEnd(3);
  const actionSpace = nested ? segments[observationAt - 1] : fromEnd(4);
  return {
    taskId: parsed.taskId,
    category: injection ? 'injection' : taskCategory(parsed.taskId),
    ...(domain !== undefined && { domain }),
    ...(model !== undefined && { model }),
    jailbreak: overrides.jailbreak ?? pathJailbreak,
    ...(observationType !== undefined && { observationType }),
    ...(actionSpace !== undefined && { actionSpace }),
    ...(injection && { injection }),
  };
}
