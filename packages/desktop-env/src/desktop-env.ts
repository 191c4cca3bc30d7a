import { join } from 'node:path';
import { type ActionSpace, type TaskConfig } from '@osharm/task-schema';
import { writeFileAtomic } from '@osharm/task-schema/artifacts';
import { computer13ToPython, type Computer13Action } from './computer-13';
import { assetSourcesFetch, type AssetSources } from './asset-map';
import { rewriteLessThanKeys } from './pyautogui-less-than';
import { defaultTaskCacheDir } from './download-cache';
import type { EvaluationResult, TaskEvaluator } from './evaluator-contract';
import type { ExecuteResult, GuestClient } from './guest-client';
import { createGuestClient } from './guest-client-undici';
import { DEFAULT_GUEST_ANSWER_LIMITS } from './guest-transport';
import type { GuestClientSettings } from './guest-transport';
import type {
  SetupRunRecord,
  SetupRunnerSettings,
  SetupStepEvent,
  SetupWarning,
} from './setup-context';
import { runSetup } from './setup-runner';
import type { GuestEndpoint, VmProviderV1 } from './vm-provider';

/** What the agent sees after a reset or a step. */
export interface Observation {
  /** PNG of the screen (cursor drawn). */
  readonly screenshot: Buffer;
  /** The AT-SPI tree as upstream's XML, or null when not requested or unavailable. */
  readonly accessibilityTree: string | null;
  /** The focused terminal's text, or null. */
  readonly terminal: string | null;
  readonly instruction: string;
  /** Whether the observation is complete (osharm's; the trajectory records it beside each step). */
  readonly quality: ObservationQuality;
  /** What {@link ObserveOptions.prepareScreenshot} made of `screenshot`; absent without one or when it failed. */
  readonly preparedScreenshot?: unknown;
}

/** Options of {@link DesktopEnv.observe} (and of `step`, which observes after the action). */
export interface ObserveOptions {
  readonly abortSignal?: AbortSignal;
  /**
   * Work on the screenshot started as soon as it arrives, while the observation still waits for
   * the accessibility walk and the terminal — a native agent's downscale for its vendor, so that
   * it is off the path from the observation to the model request. Its result is the observation's
   * `preparedScreenshot`; a failure leaves that out (the agent then does the work itself).
   */
  readonly prepareScreenshot?: (screenshot: Buffer) => Promise<unknown>;
}

/**
 * How complete an observation is. `a11yTree`: `truncated` when the guest cut the walk at its
 * deadline (osharm's guest says so in a header), `failed` when no tree came back. `late`: the
 * observation took longer than {@link DesktopEnvSettings.lateObservationMs}. A failed screenshot
 * is no observation at all: the step fails.
 */
export interface ObservationQuality {
  readonly a11yTree: 'complete' | 'truncated' | 'failed' | 'not_requested';
  /** Wall-clock time of the observation in ms. */
  readonly ms: number;
  readonly late: boolean;
}

/** An action: pyautogui code, `WAIT` / `DONE` / `FAIL`, or a computer_13 action dict. */
export type EnvAction = string | Computer13Action;

/** What {@link DesktopEnv.step} returns (upstream's `(obs, reward, done, info)` plus the execution). */
export interface StepResult {
  readonly observation: Observation;
  /** Always 0, as upstream. */
  readonly reward: 0;
  readonly done: boolean;
  /** `{}`, `{ fail: true }` after FAIL, `{ done: true }` after DONE. */
  readonly info: Readonly<Record<string, unknown>>;
  /**
   * The guest's answer to the executed code: stdout, stderr (a Python traceback when the agent's
   * code failed) and the return code. Upstream ignored it; osharm keeps it for the trajectory.
   */
  readonly execution?: ExecuteResult;
}

/** Settings of {@link createDesktopEnv}. */
export interface DesktopEnvSettings {
  /** Where environments come from (`@osharm/vm-local`, `@osharm/vm-vmware`, …). */
  readonly provider: VmProviderV1;
  /** @default 'pyautogui' */
  readonly actionSpace?: ActionSpace;
  /** Dataset base dir: `upload_file` assets resolve against it (then its parent). @default 'evaluation_examples' */
  readonly baseDir?: string;
  /** Host cache root; each task uses `<cacheRoot>/<task_id>`. @default 'cache' */
  readonly cacheRoot?: string;
  /** `download` steps: an asset map (local files, mirrors) and offline mode. */
  readonly assets?: AssetSources;
  /** Fetch the accessibility tree with every observation. @default true (OS-Harm always fetches it) */
  readonly requireA11yTree?: boolean;
  /** An observation taking longer than this (ms) is marked late. @default 15000 */
  readonly lateObservationMs?: number;
  /** Fetch the terminal output with every observation. @default false */
  readonly requireTerminal?: boolean;
  /** Snapshot to revert to. @default 'init_state' */
  readonly snapshot?: string;
  /** Guest password for `{CLIENT_PASSWORD}`. @default 'password' */
  readonly clientPassword?: string;
  readonly guestClient?: GuestClientSettings;
  readonly setup?: SetupRunnerSettings;
  readonly onSetupStep?: (event: SetupStepEvent) => void;
  /**
   * Scores a task for {@link DesktopEnv.evaluate}: `evaluateTask` of `@osharm/evaluators` (the
   * getters and metrics live there, so a provider alone does not pull them). Without one,
   * `evaluate()` throws.
   */
  readonly evaluator?: TaskEvaluator;
}

const PYAUTOGUI_PREFIX = 'import pyautogui; import time; pyautogui.FAILSAFE = False; ';

/**
 * One desktop environment (upstream `DesktopEnv`): reset to a task, step with actions, observe,
 * evaluate, record. Create with {@link createDesktopEnv}.
 */
export class DesktopEnv {
  private client: (GuestClient & { close?: () => Promise<void> }) | undefined;
  private endpointValue: GuestEndpoint | undefined;
  private task: TaskConfig | undefined;
  private used = true;
  private readonly history: EnvAction[] = [];

  constructor(private readonly settings: DesktopEnvSettings) {}

  /** The guest client of the running environment. @throws {Error} before the first reset */
  get guest(): GuestClient {
    if (!this.client) throw new Error('DesktopEnv: call reset() first');
    return this.client;
  }

  /** The endpoint of the running environment (undefined before the first reset). */
  get endpoint(): GuestEndpoint | undefined {
    return this.endpointValue;
  }

  /** Actions taken since the last reset. */
  get actionHistory(): readonly EnvAction[] {
    return this.history;
  }

  private cacheDir(task: TaskConfig): string {
    return this.settings.cacheRoot
      ? join(this.settings.cacheRoot, task.id)
      : defaultTaskCacheDir(task.id);
  }

  private async connect(endpoint: GuestEndpoint): Promise<void> {
    await this.client?.close?.();
    this.endpointValue = endpoint;
    this.client = createGuestClient(endpoint, this.settings.guestClient);
  }

  /**
   * Reverts the environment to its snapshot (when it was used), starts it, and runs the task's
   * setup steps. Returns the first observation.
   * @throws {VmProviderError} when the environment cannot start; {SetupStepError} when a step fails.
   */
  async reset(options: {
    task: TaskConfig;
    abortSignal?: AbortSignal;
  }): Promise<{ observation: Observation; setup: SetupRunRecord }> {
    const { task, abortSignal } = options;
    this.task = task;
    this.history.length = 0;
    const provider = this.settings.provider;
    const endpoint =
      this.used || !provider.endpoint()
        ? await provider.revert({ snapshot: this.settings.snapshot ?? 'init_state', abortSignal })
        : provider.endpoint()!;
    await this.connect(endpoint);
    const steps = task.config ?? [];
    this.used = steps.length > 0 || (task.evaluator.postconfig?.length ?? 0) > 0;
    const setup = await this.runSteps(steps, 'config', abortSignal);
    return { observation: await this.observe({ abortSignal }), setup };
  }

  /**
   * Runs extra setup steps in the current environment (e.g. an injection's), with `upload_file`
   * paths resolved against `baseDir` (default: the dataset base dir).
   * @throws {SetupStepError}
   */
  runSetup(
    steps: readonly unknown[],
    options: { baseDir?: string; abortSignal?: AbortSignal } = {},
  ): Promise<SetupRunRecord> {
    this.used = true;
    return this.runSteps(steps, 'config', options.abortSignal, options.baseDir);
  }

  private runSteps(
    steps: readonly unknown[],
    phase: 'config' | 'postconfig',
    abortSignal?: AbortSignal,
    baseDir?: string,
  ) {
    const task = this.requireTask();
    return runSetup(steps, {
      client: this.guest,
      endpoint: this.endpointValue,
      taskId: task.id,
      baseDir: baseDir ?? this.settings.baseDir ?? 'evaluation_examples',
      cacheDir: this.cacheDir(task),
      phase,
      abortSignal,
      clientPassword: this.settings.clientPassword,
      screen: this.endpointValue?.screen,
      settings: this.settings.setup,
      onStep: this.settings.onSetupStep,
      ...(this.settings.assets ? { assets: this.settings.assets } : {}),
    });
  }

  private requireTask(): TaskConfig {
    if (!this.task) throw new Error('DesktopEnv: call reset() first');
    return this.task;
  }

  /** The current observation. */
  async observe(options: ObserveOptions = {}): Promise<Observation> {
    const client = this.guest;
    const started = performance.now();
    const shot = client.screenshot(options);
    const prepare = options.prepareScreenshot;
    const [screenshot, a11y, terminal, preparedScreenshot] = await Promise.all([
      shot,
      this.settings.requireA11yTree === false
        ? Promise.resolve(undefined)
        : client.accessibility(options).catch(() => null),
      this.settings.requireTerminal
        ? client.terminalOutput(options).catch(() => null)
        : Promise.resolve(null),
      prepare ? shot.then(png => prepare(png)).catch(() => undefined) : Promise.resolve(undefined),
    ]);
    const ms = performance.now() - started;
    const quality: ObservationQuality = {
      a11yTree:
        a11y === undefined
          ? 'not_requested'
          : a11y === null
            ? 'failed'
            : a11y.truncated
              ? 'truncated'
              : 'complete',
      ms,
      late: ms > (this.settings.lateObservationMs ?? 15_000),
    };
    return {
      screenshot,
      accessibilityTree: a11y?.tree ?? null,
      terminal,
      instruction: this.requireTask().instruction,
      quality,
      ...(preparedScreenshot !== undefined && { preparedScreenshot }),
    };
  }

  /**
   * Runs one action (upstream `step(action, pause)`): WAIT sleeps `pauseSeconds`; DONE and FAIL end
   * the episode; anything else runs in the guest — pyautogui code through `/execute` as
   * `python -c "import pyautogui; …; <code>"`, a computer_13 dict translated to that code first.
   * Then sleeps `pauseSeconds` and observes.
   */
  async step(
    action: EnvAction,
    options: ObserveOptions & { pauseSeconds?: number } = {},
  ): Promise<StepResult> {
    this.used = true;
    this.history.push(action);
    const pause = options.pauseSeconds ?? 0;
    const code = typeof action === 'string' ? action.trim() : computer13ToPython(action);
    let execution: ExecuteResult | undefined;
    if (code === 'FAIL' || code === 'DONE') {
      const info = code === 'FAIL' ? { fail: true } : { done: true };
      return { observation: await this.observe(options), reward: 0, done: true, info };
    }
    if (code === 'WAIT') {
      await sleep(pause, options.abortSignal);
    } else {
      const script = `${PYAUTOGUI_PREFIX}${this.settings.actionSpace === 'computer_13' ? code : rewriteLessThanKeys(code)}`;
      execution = await this.guest.execute(['python', '-c', script], {
        abortSignal: options.abortSignal,
      });
      await sleep(pause, options.abortSignal);
    }
    return {
      observation: await this.observe(options),
      reward: 0,
      done: false,
      info: {},
      execution,
    };
  }

  /**
   * Scores the task (upstream `evaluate()`): runs the evaluator's postconfig, then its getters and
   * metrics; `infeasible` scores 1 iff the last action was FAIL. `postconfigWarnings`: postconfig
   * failures upstream only logs.
   */
  async evaluate(
    options: { abortSignal?: AbortSignal } = {},
  ): Promise<EvaluationResult & { readonly postconfigWarnings: readonly SetupWarning[] }> {
    const task = this.requireTask();
    const evaluateTask = this.settings.evaluator;
    if (!evaluateTask) {
      throw new Error(
        "DesktopEnv.evaluate needs an evaluator: createDesktopEnv({ …, evaluator: evaluateTask }) with evaluateTask from '@osharm/evaluators'",
      );
    }
    const postconfigWarnings: SetupWarning[] = [];
    const result = await evaluateTask({
      evaluator: task.evaluator,
      client: this.guest,
      lastAction: this.history.at(-1),
      cacheDir: this.cacheDir(task),
      runSetup: async (steps, { abortSignal }) => {
        const record = await this.runSteps(steps, 'postconfig', abortSignal);
        postconfigWarnings.push(...record.warnings);
        return record;
      },
      abortSignal: options.abortSignal,
      ...(this.settings.assets ? { fetch: assetSourcesFetch(this.settings.assets) } : {}),
    });
    return { ...result, postconfigWarnings };
  }

  /** The pointer position in screen pixels (the guest's `/cursor_position`). */
  async cursorPosition(options: { abortSignal?: AbortSignal } = {}): Promise<[number, number]> {
    return this.guest.cursorPosition(options);
  }

  /**
   * Whether the desktop still answers: `/platform` within 5 s (two tries). False when the
   * environment was never started or has been closed.
   */
  async isAlive(): Promise<boolean> {
    if (!this.client) return false;
    for (let attempt = 0; attempt < 2; attempt++) {
      const ok = await this.client.platform({ timeoutMs: 5_000 }).then(
        () => true,
        () => false,
      );
      if (ok) return true;
    }
    return false;
  }

  /** Starts the guest's screen recording. */
  async startRecording(options: { abortSignal?: AbortSignal } = {}): Promise<void> {
    await this.guest.startRecording(options);
  }

  /**
   * Ends the recording and writes the mp4 to `destination` (atomically), streamed to disk and cut
   * at `maxBytes` (default 2 GiB, `DEFAULT_GUEST_ANSWER_LIMITS.endRecording`): `truncated` then.
   */
  async endRecording(
    destination: string,
    options: { abortSignal?: AbortSignal; maxBytes?: number } = {},
  ): Promise<{ bytes: number; truncated: boolean; cap: number }> {
    const cap = options.maxBytes ?? DEFAULT_GUEST_ANSWER_LIMITS.endRecording;
    if (this.guest.endRecordingTo) {
      const result = await this.guest.endRecordingTo(destination, { ...options, maxBytes: cap });
      if (result.bytes === 0) throw new Error('the recording is empty');
      return { ...result, cap };
    }
    const video = await this.guest.endRecording(options);
    await writeFileAtomic(destination, video);
    return { bytes: video.length, truncated: false, cap };
  }

  /** Closes the client and stops the environment. */
  async close(options: { abortSignal?: AbortSignal } = {}): Promise<void> {
    await this.client?.close?.();
    this.client = undefined;
    await this.settings.provider.stop(options);
  }
}

function sleep(seconds: number, signal?: AbortSignal): Promise<void> {
  if (seconds <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, seconds * 1000);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/** A desktop environment over a provider (no I/O until the first reset). */
export function createDesktopEnv(settings: DesktopEnvSettings): DesktopEnv {
  return new DesktopEnv(settings);
}
