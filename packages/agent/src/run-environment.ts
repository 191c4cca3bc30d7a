import type { SetupStep, TaskConfig } from '@osharm/task-schema';
import type { Action, ObservationQuality } from '@osharm/task-schema/trajectory';
// The observation record is part of the trajectory artifact (task-schema's).

export type { ObservationQuality };
export { isDegraded } from '@osharm/task-schema/trajectory';

/** A setup failure that upstream only logs (desktop-env's `SetupWarning`). */
export interface RunSetupWarning {
  readonly phase: 'config' | 'postconfig';
  readonly stepIndex: number;
  readonly stepType: string;
  readonly message: string;
}

/** One `download` file of a setup (desktop-env's `SetupDownloadRecord`). */
export interface RunSetupDownload {
  readonly url: string;
  readonly guestPath: string;
  readonly source: 'cache' | 'network' | 'mirror' | 'asset-map';
  readonly uploaded: boolean;
}

/** One wait of a setup step for a window (desktop-env's `SetupWindowWait`). */
export interface RunSetupWindowWait {
  readonly phase: 'config' | 'postconfig';
  readonly stepIndex: number;
  readonly stepType: string;
  readonly window: string;
  readonly deadlineMs: number;
  readonly waitedMs: number;
  readonly found: boolean;
}

/** What a setup run reports back (desktop-env's `SetupRunRecord` has more). */
export interface RunSetupOutcome {
  readonly warnings?: readonly RunSetupWarning[];
  readonly downloads?: readonly RunSetupDownload[];
  readonly windowWaits?: readonly RunSetupWindowWait[];
}

/**
 * Whether an observation is complete (osharm's; recorded beside upstream's keys). `truncated`: the
 * guest cut the accessibility walk at its deadline; `failed`: no tree came back; `late`: the
 * observation took longer than the environment's budget for one.
 */
/** An observation as the environment returns it. */
export interface RunObservation {
  readonly screenshot: Uint8Array;
  readonly accessibilityTree: string | null;
  /** How complete it is; absent when the environment does not say. */
  readonly quality?: ObservationQuality;
  /** What the agent's `prepareScreenshot` made of `screenshot` while the rest was observed. */
  readonly preparedScreenshot?: unknown;
}

/** Options of {@link RunEnvironment.observe} (and of `step`, which observes after the action). */
export interface RunObserveOptions {
  abortSignal?: AbortSignal;
  /**
   * Work on the screenshot started as soon as it arrives, while the environment still waits for the
   * rest of the observation (the accessibility walk): the agent's `prepareScreenshot`.
   * Its result is the observation's `preparedScreenshot`; a failure leaves that out.
   */
  prepareScreenshot?: (screenshot: Uint8Array) => Promise<unknown>;
}

/**
 * What {@link runTask} needs from an environment. `@osharm/desktop-env`'s `DesktopEnv` satisfies
 * it; the agent package does not depend on desktop-env (a judge or agent user pulls no VM code).
 */
export interface RunEnvironment {
  /** Reverts / starts the environment and runs the task's setup; returns the first observation. */
  reset(options: {
    task: TaskConfig;
    abortSignal?: AbortSignal;
  }): Promise<{ observation: RunObservation; setup?: RunSetupOutcome }>;
  /** Runs extra setup steps (the injection's), with `upload_file` paths resolved against `baseDir`. */
  runSetup(
    steps: readonly SetupStep[],
    options: { baseDir: string; abortSignal?: AbortSignal },
  ): Promise<RunSetupOutcome | void>;
  step(
    action: Action,
    options: RunObserveOptions & { pauseSeconds?: number },
  ): Promise<{
    observation: RunObservation;
    done: boolean;
    info: Readonly<Record<string, unknown>>;
    execution?: { readonly output: string; readonly error: string; readonly returncode: number };
  }>;
  observe(options?: RunObserveOptions): Promise<RunObservation>;
  /** The pointer position in screen pixels (the guest's `/cursor_position`), when the environment has one. */
  cursorPosition?(options?: { abortSignal?: AbortSignal }): Promise<readonly [number, number]>;
  evaluate(options?: { abortSignal?: AbortSignal }): Promise<{
    score: number;
    postconfigWarnings?: readonly RunSetupWarning[];
    /** Guest files the evaluator did not get whole (desktop-env's EvaluationResult.withheld). */
    withheld?: readonly { path: string; reason: string; bytes: number }[];
  }>;
  /**
   * Whether the desktop still answers (a cheap call, a few seconds at most). Asked after a failure
   * that followed the agent's actions: false makes the run `environment_destroyed_by_agent`.
   */
  isAlive?(): Promise<boolean>;
  /** Screen recording, when the environment supports it. */
  startRecording?(options?: { abortSignal?: AbortSignal }): Promise<void>;
  /** Ends the recording into `destination`; `truncated` when it was cut at its cap. */
  endRecording?(
    destination: string,
    options?: { abortSignal?: AbortSignal },
  ): Promise<void | { readonly bytes: number; readonly truncated: boolean; readonly cap: number }>;
}
