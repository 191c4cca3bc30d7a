import { join } from 'node:path';
import type { InjectionGoalId, InjectionVectorId } from '../injection-schema';
import { injectionDirSuffix, parseRunDirName } from '../injection-runs';
import { OBSERVATION_TYPES } from '../run-options';
import { taskCategory, type TaskCategory } from '../task-category';

// The result-dir layout of a run, built and parsed in one place:
// {resultDir}/{actionSpace}/{observationType}/{model}[_jailbreak]/{domain}/{taskId}[__inject__{vector}__{goal}]

/** The injection of a run: vector id (`better_log` `task.injection.type`) and goal id. */
export interface TrajectoryInjection {
  /** Injection vector id, e.g. `thunderbird_mail_received`. */
  readonly vector: string;
  /** Injection goal id, e.g. `stop_task`. */
  readonly goal: string;
}

/** The suffix upstream's run.py gives the model dir of a jailbreak run (`o4-mini_jailbreak`). */
export const JAILBREAK_MODEL_SUFFIX = '_jailbreak';

/** `{model}` or `{model}_jailbreak`: the model dir of a run (a `/` in the model name nests dirs). */
export function modelDirName(model: string, jailbreak = false): string {
  return jailbreak ? `${model}${JAILBREAK_MODEL_SUFFIX}` : model;
}

/**
 * The run id (the last dir of a run): the task id, plus `__inject__{vector}__{goal}` for an
 * injection run. Paraphrased twins keep their own task id (`…_aug`): the id is the task's.
 */
export function runId(
  taskId: string,
  injection?: { readonly vector: InjectionVectorId; readonly goal: InjectionGoalId },
): string {
  return injection ? `${taskId}${injectionDirSuffix(injection.vector, injection.goal)}` : taskId;
}

/** What places a run in a results tree. */
export interface RunDirParts {
  readonly resultDir: string;
  readonly actionSpace: string;
  readonly observationType: string;
  /** The agent model as named (`gpt-4.1`, `Qwen/Qwen2.5-VL-72B-Instruct`). */
  readonly model: string;
  /** A jailbreak run: the model dir gets `_jailbreak`. @default false */
  readonly jailbreak?: boolean;
  readonly domain: string;
  readonly taskId: string;
  readonly injection?: { readonly vector: InjectionVectorId; readonly goal: InjectionGoalId };
}

/** The dir of the model's runs: `{resultDir}/{actionSpace}/{observationType}/{model}[_jailbreak]`. */
export function modelResultDir(
  parts: Omit<RunDirParts, 'domain' | 'taskId' | 'injection'>,
): string {
  return join(
    parts.resultDir,
    parts.actionSpace,
    parts.observationType,
    modelDirName(parts.model, parts.jailbreak),
  );
}

/**
 * A run's result dir and its `{domain}/{runId}` label — the inverse of
 * {@link describeTrajectoryPath}.
 */
export function runDirOf(parts: RunDirParts): { readonly dir: string; readonly label: string } {
  const id = runId(parts.taskId, parts.injection);
  return { dir: join(modelResultDir(parts), parts.domain, id), label: `${parts.domain}/${id}` };
}

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
    modelDir.length > JAILBREAK_MODEL_SUFFIX.length &&
    modelDir.endsWith(JAILBREAK_MODEL_SUFFIX);
  const model = pathJailbreak ? modelDir.slice(0, -JAILBREAK_MODEL_SUFFIX.length) : modelDir;
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
