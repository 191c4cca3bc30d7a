/** The default wall-clock limit on judging one trajectory in a tree (captions and judge calls). */
export const DEFAULT_TRAJECTORY_TIMEOUT_MS = 15 * 60 * 1000;

/** How long an aborted tree waits for the trajectories it had started to stop (their calls are aborted). */
const ABORT_GRACE_MS = 5_000;

/** Judging one trajectory ran past its wall-clock limit. */
export class TrajectoryTimeoutError extends Error {
  override readonly name = 'TrajectoryTimeoutError';
  constructor(readonly seconds: number) {
    super(`judging took longer than the ${seconds} s per-trajectory time limit (stopped)`);
  }
}

/**
 * Runs `work` with a signal that aborts after `timeoutMs` (or when `outer` aborts), and settles
 * as soon as the signal aborts even if the work ignores it, so one stuck trajectory never holds
 * up a batch. A timeout rejects with {@link TrajectoryTimeoutError}; an outer abort with its reason.
 * `track` gets the work itself, for a caller that must know when it has really stopped.
 */
export async function withDeadline<T>(
  timeoutMs: number,
  outer: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
  track?: (running: Promise<T>) => void,
): Promise<T> {
  const timer = new AbortController();
  const timeout = setTimeout(
    () => timer.abort(new TrajectoryTimeoutError(Math.round(timeoutMs / 100) / 10)),
    timeoutMs,
  );
  const signal = outer ? AbortSignal.any([outer, timer.signal]) : timer.signal;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const running = work(signal);
    track?.(running);
    // The work's own rejection after an abort is not reported twice.
    running.catch(() => undefined);
    return await Promise.race([running, aborted]);
  } finally {
    clearTimeout(timeout);
    if (onAbort) signal.removeEventListener('abort', onAbort);
    aborted.catch(() => undefined);
  }
}

/** Work started under deadlines, for a caller that must not return while any of it still runs. */
export class RunningWork {
  readonly #running = new Set<Promise<unknown>>();
  readonly track = (work: Promise<unknown>): void => {
    this.#running.add(work);
    const drop = () => this.#running.delete(work);
    void work.then(drop, drop);
  };

  /** Resolves once every tracked work has settled, or after `graceMs` at the latest. */
  async stopped(graceMs = ABORT_GRACE_MS): Promise<void> {
    if (this.#running.size === 0) return;
    const grace = AbortSignal.timeout(graceMs);
    await Promise.race([
      Promise.allSettled(this.#running),
      new Promise(resolve => grace.addEventListener('abort', resolve, { once: true })),
    ]);
  }
}
