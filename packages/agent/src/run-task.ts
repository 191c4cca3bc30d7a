import { setTimeout as sleep } from 'node:timers/promises';
import type { InjectionVector, SetupStep, TaskConfig } from '@osharm/task-schema';
import { recordTruncatedTransfer } from '@osharm/task-schema/artifacts';
import type {
  SetupDownloadEntry,
  SetupWarningEntry,
  SetupWindowWaitEntry,
} from '@osharm/task-schema/artifacts';
import { actionTimestamp, TrajectoryWriter } from '@osharm/task-schema/trajectory';
import type { Action } from '@osharm/task-schema/trajectory';
import type { AgentActionOutcome, AgentModelFailure, AgentV1 } from './agent';
import { AgentModelCallError, AgentObservationError } from './agent-errors';
import { describeModelFailure } from './model-failure';
import { finishRecording } from './run-recording';
import type { RunEnvironment, RunSetupOutcome } from './run-environment';
import { addUsage, type TokenUsage } from '@osharm/models';

/** The injection of an injection run, prepared by `@osharm/injection`'s `prepareInjection`. */
export interface RunInjection {
  /** The vector object with `content` and `goal_id` (recorded as better_log `task.injection`). */
  readonly injection: InjectionVector;
  /** Setup steps that plant the injection, run after the task's own setup. */
  readonly steps: readonly SetupStep[];
  /** Where the steps' `upload_file` paths resolve. */
  readonly assetRoot: string;
}

/** Events of a run, for progress output and logs. */
export type RunTaskEvent =
  | { readonly type: 'reset-end'; readonly seconds: number }
  | {
      readonly type: 'step-end';
      readonly step: number;
      readonly actions: number;
      readonly done: boolean;
    }
  | { readonly type: 'run-end'; readonly score: number | null; readonly error?: string };

/** Options of {@link runTask}. */
export interface RunTaskOptions {
  readonly env: RunEnvironment;
  readonly agent: AgentV1;
  readonly task: TaskConfig;
  /** The task's domain (for error lines). */
  readonly domain: string;
  /** The run's result dir (with the `__inject__…` suffix for injection runs). */
  readonly resultDir: string;
  /** The instruction the agent gets. @default task.instruction (pass the jailbreak-wrapped one on jailbreak runs) */
  readonly instruction?: string;
  /** Recorded as better_log `task.jailbreak`. @default false */
  readonly jailbreak?: boolean;
  readonly injection?: RunInjection;
  /** @default 15 */
  readonly maxSteps?: number;
  /** Seconds to sleep after each action (`--sleep_after_execution`). @default 0 */
  readonly sleepAfterExecution?: number;
  /** Seconds to wait after the task's setup (upstream 5) and after the injection (upstream 10). */
  readonly settleSeconds?: { readonly afterSetup?: number; readonly afterInjection?: number };
  /** Wall-clock limit of the whole run in seconds. @default 1800 */
  readonly timeLimitSeconds?: number;
  /** Record the screen (from the guest, else assembled from the step screenshots). @default true */
  readonly record?: boolean;
  /**
   * Called after the last step, before evaluation (whose postconfig may change the environment):
   * e.g. collecting injection evidence.
   */
  readonly beforeEvaluate?: (context: {
    readonly lastAction: Action | undefined;
    readonly steps: readonly { readonly response: string; readonly actions: readonly Action[] }[];
  }) => Promise<void>;
  readonly onEvent?: (event: RunTaskEvent) => void;
  /**
   * Watches what the agent's actions do (e.g. `@osharm/harm`'s observer): `baseline()` right
   * before the first step, `mark(step)` after each action (traj.jsonl's `step_num`). Neither may
   * throw: an observer records its own failures.
   */
  readonly observer?: {
    baseline(): Promise<void>;
    mark(step: number): Promise<void>;
  };
  readonly abortSignal?: AbortSignal;
  /**
   * Applied to an error message before it is written to traj.jsonl and returned (e.g. to replace
   * API keys a provider's error text echoes). @default unchanged
   */
  readonly redact?: (text: string) => string;
}

/** What a run produced. */
export interface RunTaskResult {
  /** The evaluator's score (result.txt), or null when the run failed before evaluation. */
  readonly score: number | null;
  readonly steps: number;
  /** The run ended with DONE or FAIL (not the step limit). */
  readonly done: boolean;
  readonly lastAction: Action | undefined;
  /** Why the run failed (also appended to traj.jsonl as an Error line). */
  readonly error?: string;
  /** Set when the run failed because the agent's model call failed (after the SDK's retries). */
  readonly modelFailure?: AgentModelFailure;
  /**
   * Set when the desktop stopped answering after the agent's actions of this step (1-based): the
   * run is `environment_destroyed_by_agent` (task-schema's RunStatus), judged and counted, not an
   * uncounted error. `error` holds why.
   */
  readonly destroyedAtStep?: number;
  readonly recording: 'guest' | 'assembled' | 'none';
  /** Observations the agent got that were cut, missing a tree or late (see better_log `observations`). */
  readonly degradedObservations: number;
  /** The agent's model calls of this run and the tokens they used (summed from each step's usage). */
  readonly agentUsage: { readonly calls: number; readonly usage: TokenUsage };
}

class TimeLimitError extends Error {
  override readonly name = 'TimeLimitError';
}

/**
 * Runs one task end to end, writing the trajectory dir exactly as upstream's `run_single_example`
 * (reference/osharm-benchmark.md §2.5, §4): reset (setup), the injection when given, `step_0.png`,
 * recording, up to `maxSteps` agent steps (better_log.json rewritten before each step's actions,
 * one traj.jsonl line and one `step_{n}_{timestamp}.png` per action), then evaluation and
 * `result.txt` last. A failure (a desktop error, the agent's model call failing after the SDK's
 * retries: see `modelFailure`) or the time limit appends an `{"Error": …}` line and leaves no
 * result.txt, so the run is never scored or judged and a resumed run tries again — unless the agent
 * broke the desktop: a failure after the agent's actions ran, with the environment no longer
 * answering (`env.isAlive()`), ends the run as `environment_destroyed_by_agent` at that step.
 */
export async function runTask(options: RunTaskOptions): Promise<RunTaskResult> {
  const { env, agent, task } = options;
  const instruction = options.instruction ?? task.instruction;
  const writer = new TrajectoryWriter(options.resultDir, {
    params: { ...agent.params, max_steps: options.maxSteps ?? 15 },
    instruction,
    jailbreak: options.jailbreak ?? false,
    injection: options.injection?.injection ?? null,
  });
  await writer.prepare();
  const limit = new AbortController();
  const timer = setTimeout(
    () =>
      limit.abort(
        new TimeLimitError(`time limit of ${options.timeLimitSeconds ?? 1800} s exceeded`),
      ),
    (options.timeLimitSeconds ?? 1800) * 1000,
  );
  const signal = options.abortSignal
    ? AbortSignal.any([options.abortSignal, limit.signal])
    : limit.signal;
  const stepsDone: { response: string; actions: Action[] }[] = [];
  let lastAction: Action | undefined;
  let done = false;
  let recording: RunTaskResult['recording'] = 'none';
  let guestRecording = false;
  /** The last step (1-based) whose actions started to run in the desktop. */
  let actedStep = 0;
  let agentUsage: RunTaskResult['agentUsage'] = {
    calls: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
  };
  try {
    agent.reset();
    const started = performance.now();
    const reset = await env.reset({ task, abortSignal: signal });
    let observation = reset.observation;
    const warnings = setupWarnings('task', reset.setup);
    const downloads = setupDownloads('task', reset.setup);
    const windowWaits = setupWindowWaits('task', reset.setup);
    await sleep((options.settleSeconds?.afterSetup ?? 5) * 1000, undefined, { signal });
    if (options.injection) {
      const injected = await env.runSetup(options.injection.steps, {
        baseDir: options.injection.assetRoot,
        abortSignal: signal,
      });
      warnings.push(...setupWarnings('injection', injected));
      downloads.push(...setupDownloads('injection', injected));
      windowWaits.push(...setupWindowWaits('injection', injected));
      await sleep((options.settleSeconds?.afterInjection ?? 10) * 1000, undefined, { signal });
    }
    await writer.writeSetupWarnings(warnings, downloads, windowWaits);
    // The agent's work on each screenshot runs while the env observes the rest (native agents).
    const prepareScreenshot = agent.prepareScreenshot?.bind(agent);
    const observeOptions = { abortSignal: signal, ...(prepareScreenshot && { prepareScreenshot }) };
    const cursorPosition = env.cursorPosition
      ? () => env.cursorPosition!({ abortSignal: signal })
      : undefined;
    observation = await env.observe(observeOptions);
    options.onEvent?.({ type: 'reset-end', seconds: (performance.now() - started) / 1000 });
    await writer.writeScreenshot('step_0.png', observation.screenshot);
    let lastScreenshot = 'step_0.png';
    if (options.record !== false && env.startRecording) {
      guestRecording = await env.startRecording({ abortSignal: signal }).then(
        () => true,
        () => false,
      );
    }

    await options.observer?.baseline();
    let previousActions: AgentActionOutcome[] | undefined;
    for (let stepIndex = 0; stepIndex < (options.maxSteps ?? 15) && !done; stepIndex += 1) {
      signal.throwIfAborted();
      const prediction = await predictStep(agent, {
        instruction,
        observation,
        abortSignal: signal,
        ...(previousActions ? { previousActions } : {}),
        ...(cursorPosition && { cursorPosition }),
      });
      agentUsage = {
        calls: agentUsage.calls + 1,
        usage: addUsage(agentUsage.usage, prediction.usage),
      };
      const actions = prediction.actions ?? [];
      // Unlike upstream, a step after one with no actions names the real last screenshot.
      await writer.addStep({
        a11yTree: prediction.linearizedTree,
        screenshotFile: lastScreenshot,
        response: prediction.response,
        actions,
        observation: observation.quality,
        ...(prediction.native ? { native: prediction.native } : {}),
      });
      stepsDone.push({ response: prediction.response, actions });
      previousActions = [];
      for (const action of actions) {
        signal.throwIfAborted();
        if (previousActions.some(outcome => outcome.status === 'failed')) {
          previousActions.push({ status: 'skipped' });
          continue;
        }
        const timestamp = actionTimestamp();
        actedStep = stepIndex + 1;
        const result = await env.step(action, {
          ...observeOptions,
          pauseSeconds: options.sleepAfterExecution ?? 0,
        });
        lastAction = action;
        await options.observer?.mark(stepIndex + 1);
        observation = result.observation;
        const file = `step_${stepIndex + 1}_${timestamp}.png`;
        await writer.writeScreenshot(file, observation.screenshot);
        lastScreenshot = file;
        await writer.addAction({
          stepNum: stepIndex + 1,
          timestamp,
          action,
          done: result.done,
          info: result.info,
          screenshotFile: file,
          execution: result.execution,
          observation: observation.quality,
        });
        const failed =
          prediction.stopAtFailedAction === true &&
          result.execution !== undefined &&
          result.execution.returncode !== 0;
        previousActions.push(
          failed
            ? {
                status: 'failed',
                error: result.execution!.error.trim() || `exit ${result.execution!.returncode}`,
              }
            : { status: 'done' },
        );
        if (result.done) {
          done = true;
          break;
        }
      }
      options.onEvent?.({ type: 'step-end', step: stepIndex, actions: actions.length, done });
    }

    signal.throwIfAborted();
    await options.beforeEvaluate?.({ lastAction, steps: stepsDone });
    recording = await finishRecording(env, options, guestRecording, signal);
    const evaluation = await env.evaluate({ abortSignal: signal });
    // A guest file the evaluator did not get whole scored as missing: the run's fidelity says so.
    for (const file of evaluation.withheld ?? []) {
      await recordTruncatedTransfer(options.resultDir, {
        file: `evaluator:${file.path}`,
        bytes: file.bytes,
        cap: 0,
        reason: file.reason,
      });
    }
    const postconfig = setupWarnings('task', { warnings: evaluation.postconfigWarnings ?? [] });
    if (postconfig.length > 0) {
      await writer.writeSetupWarnings([...warnings, ...postconfig], downloads, windowWaits);
    }
    await writer.writeResult(evaluation.score);
    options.onEvent?.({ type: 'run-end', score: evaluation.score });
    return {
      score: evaluation.score,
      steps: stepsDone.length,
      done,
      lastAction,
      recording,
      degradedObservations: writer.observationCounts.degraded_observations,
      agentUsage,
    };
  } catch (error) {
    const timedOut = limit.signal.aborted && !options.abortSignal?.aborted;
    const modelFailure = AgentModelCallError.isInstance(error) ? error.failure : undefined;
    const raw = timedOut
      ? `Time limit exceeded in ${options.domain}/${task.id}`
      : `${options.domain}/${task.id} - ${(error as Error).message ?? String(error)}`;
    const message = options.redact ? options.redact(raw) : raw;
    // The agent acted, then the desktop stopped answering: its doing, not a harness fault.
    const destroyedAtStep =
      !timedOut && !modelFailure && !options.abortSignal?.aborted && actedStep > 0 && env.isAlive
        ? (await env.isAlive().catch(() => false))
          ? undefined
          : actedStep
        : undefined;
    if (recording === 'none' && !options.abortSignal?.aborted && destroyedAtStep === undefined) {
      recording = await finishRecording(env, options, guestRecording, undefined).catch(
        () => 'none' as const,
      );
    }
    await writer.addError(message, destroyedAtStep !== undefined ? { destroyedAtStep } : {});
    options.onEvent?.({ type: 'run-end', score: null, error: message });
    if (options.abortSignal?.aborted) throw error;
    return {
      score: null,
      steps: stepsDone.length,
      done,
      lastAction,
      error: message,
      ...(modelFailure ? { modelFailure } : {}),
      ...(destroyedAtStep !== undefined ? { destroyedAtStep } : {}),
      recording,
      degradedObservations: writer.observationCounts.degraded_observations,
      agentUsage,
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One agent step. A failed model call ends the run as an error (upstream's exception path), never
 * as a step: whether predict throws it or reports it in `modelError` (upstream turned it into an
 * empty response, which then looked like a refusal and was scored and judged).
 */
async function predictStep(agent: AgentV1, options: Parameters<AgentV1['predict']>[0]) {
  let prediction;
  try {
    prediction = await agent.predict(options);
  } catch (error) {
    if (options.abortSignal?.aborted || AgentObservationError.isInstance(error)) throw error;
    throw new AgentModelCallError({ failure: describeModelFailure(error), cause: error });
  }
  if (prediction.modelError) throw new AgentModelCallError({ failure: prediction.modelError });
  return prediction;
}

function setupWarnings(
  source: SetupWarningEntry['source'],
  outcome: RunSetupOutcome | void,
): SetupWarningEntry[] {
  return (outcome?.warnings ?? []).map(warning => ({
    source,
    phase: warning.phase,
    step_index: warning.stepIndex,
    step_type: warning.stepType,
    message: warning.message,
  }));
}

function setupDownloads(
  source: SetupDownloadEntry['source'],
  outcome: RunSetupOutcome | void,
): SetupDownloadEntry[] {
  return (outcome?.downloads ?? []).map(download => ({
    source,
    url: download.url,
    guest_path: download.guestPath,
    origin: download.source,
    uploaded: download.uploaded,
  }));
}

function setupWindowWaits(
  source: SetupWindowWaitEntry['source'],
  outcome: RunSetupOutcome | void,
): SetupWindowWaitEntry[] {
  return (outcome?.windowWaits ?? []).map(wait => ({
    source,
    phase: wait.phase,
    step_index: wait.stepIndex,
    step_type: wait.stepType,
    window: wait.window,
    deadline_ms: Math.round(wait.deadlineMs),
    waited_ms: Math.round(wait.waitedMs),
    found: wait.found,
  }));
}
