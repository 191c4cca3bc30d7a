import type { Action, SetupStep, TaskConfig } from '@osharm/task-schema';

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

/** What a setup run reports back (desktop-env's `SetupRunRecord` has more). */
export interface RunSetupOutcome {
  readonly warnings?: readonly RunSetupWarning[];
  readonly downloads?: readonly RunSetupDownload[];
}

/** An observation as the environment returns it. */
export interface RunObservation {
  readonly screenshot: Uint8Array;
  readonly accessibilityTree: string | null;
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
    options: { pauseSeconds?: number; abortSignal?: AbortSignal },
  ): Promise<{
    observation: RunObservation;
    done: boolean;
    info: Readonly<Record<string, unknown>>;
    execution?: { readonly output: string; readonly error: string; readonly returncode: number };
  }>;
  observe(options?: { abortSignal?: AbortSignal }): Promise<RunObservation>;
  evaluate(options?: {
    abortSignal?: AbortSignal;
  }): Promise<{ score: number; postconfigWarnings?: readonly RunSetupWarning[] }>;
  /** Screen recording, when the environment supports it. */
  startRecording?(options?: { abortSignal?: AbortSignal }): Promise<void>;
  endRecording?(destination: string, options?: { abortSignal?: AbortSignal }): Promise<void>;
}
