import type { GuestEndpoint } from './vm-provider';
import type { SetupContext, SetupLogEntry } from './setup-context';
import type { SetupWindowWait } from './setup-window-waits';

/** The state one step runs with. */
export interface StepRun {
  readonly context: SetupContext;
  readonly cacheDir: string;
  readonly endpoint: GuestEndpoint;
  readonly log: (level: SetupLogEntry['level'], message: string) => void;
  /**
   * Records a failure upstream only logs (reference/osworld-harness.md §2): the step goes on (or
   * ends) as upstream's does, and the run keeps the message as a setup warning.
   */
  readonly warn: (message: string) => void;
  /** Records a wait for a window (this step's phase, index and type are added). */
  readonly recordWindowWait: (
    wait: Pick<SetupWindowWait, 'window' | 'deadlineMs' | 'waitedMs' | 'found'>,
  ) => SetupWindowWait;
}

/** A failure inside a step, before it is wrapped with the step's number and type. */
export class StepFailure extends Error {
  readonly unsupported: boolean;
  constructor(message: string, options: { cause?: unknown; unsupported?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.unsupported = options.unsupported ?? false;
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs a guest call whose failure upstream only logs: a failure becomes a warning (never when the
 * run was aborted: an abort still ends the setup). Returns whether the call succeeded.
 */
export async function tolerated(
  run: StepRun,
  what: string,
  call: () => Promise<unknown>,
): Promise<boolean> {
  try {
    await call();
    return true;
  } catch (error) {
    if (run.context.abortSignal?.aborted) throw error;
    run.warn(`${what} failed: ${errorMessage(error)}`);
    return false;
  }
}
