import { errorMessage, type StepRun } from './setup-step-run';
import { waitForWindow } from './window-readiness';

/**
 * One wait of the setup for a window (readiness instead of a fixed sleep): which step waited, for
 * which window, its deadline, and what happened. Recorded in the run's setup_warnings.json.
 */
export interface SetupWindowWait {
  readonly phase: 'config' | 'postconfig';
  /** 0-based index of the step that waited. */
  readonly stepIndex: number;
  readonly stepType: string;
  /** The window waited for: an `activate_window` name, or a description (GIMP's main window). */
  readonly window: string;
  readonly deadlineMs: number;
  readonly waitedMs: number;
  /** False: the deadline passed without the window. */
  readonly found: boolean;
}

/** The window an `activate_window` step names, as waitForWindow matches it. */
export interface WindowTarget {
  readonly windowName: string;
  readonly strict: boolean;
  readonly byClass: boolean;
}

/** Default deadline of a setup step's wait for a window (VS Code's cold start under load ≈ 6 s). */
const DEFAULT_WINDOW_DEADLINE_MS = 20_000;

/** The window of an `activate_window` step, when `step` is one with a usable `window_name`. */
function activationTarget(step: unknown): WindowTarget | undefined {
  if (!step || typeof step !== 'object') return undefined;
  const { type, parameters } = step as { type?: unknown; parameters?: unknown };
  if (type !== 'activate_window' || !parameters || typeof parameters !== 'object') return undefined;
  const {
    window_name: windowName,
    strict,
    by_class: byClass,
  } = parameters as Record<string, unknown>;
  if (typeof windowName !== 'string' || windowName === '') return undefined;
  return { windowName, strict: strict === true, byClass: byClass === true };
}

/**
 * The activation that follows step `index` (the next step that is not a `sleep`: upstream's
 * explicit sleeps still sleep, in their place), or undefined.
 */
export function followingActivation(
  steps: readonly unknown[],
  index: number,
): WindowTarget | undefined {
  for (const step of steps.slice(index + 1)) {
    if ((step as { type?: unknown } | null)?.type === 'sleep') continue;
    return activationTarget(step);
  }
  return undefined;
}

/**
 * Waits, as a person would, until `target`'s window exists in the guest or the deadline
 * (`settings.windowReadiness.deadlineMs`) passes, and records the wait. A wait that times out is
 * recorded (found: false) but is not itself a warning: the activation that follows reports its own
 * failure. A guest that cannot list its windows is a warning and the setup goes on.
 */
export async function awaitWindow(
  run: StepRun,
  target: WindowTarget,
): Promise<SetupWindowWait | undefined> {
  const settings = run.context.settings?.windowReadiness;
  const deadlineMs = settings?.deadlineMs ?? DEFAULT_WINDOW_DEADLINE_MS;
  try {
    const wait = await waitForWindow(run.context.client, target.windowName, {
      deadlineMs,
      intervalMs: settings?.intervalMs ?? 250,
      strict: target.strict,
      byClass: target.byClass,
      abortSignal: run.context.abortSignal,
    });
    const record = run.recordWindowWait({
      window: target.windowName,
      deadlineMs,
      waitedMs: wait.waitedMs,
      found: wait.found,
    });
    run.log(
      wait.found ? 'info' : 'warn',
      wait.found
        ? `the window "${target.windowName}" is up after ${wait.waitedMs} ms`
        : `the window "${target.windowName}" did not appear within ${deadlineMs} ms`,
    );
    return record;
  } catch (error) {
    if (run.context.abortSignal?.aborted) throw error;
    run.warn(`could not wait for the window "${target.windowName}": ${errorMessage(error)}`);
    return undefined;
  }
}
