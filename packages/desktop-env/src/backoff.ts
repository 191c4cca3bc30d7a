// Waiting between attempts: exponential backoff with jitter, and an abortable sleep.

/** Backoff before retry `retry` (0-based): min(0.5·2^n, cap) s, minus up to 25 % jitter. */
export function backoffDelayMs(retry: number, capMs = 8_000): number {
  const base = Math.min(500 * 2 ** retry, capMs);
  return Math.round(base * (1 - Math.random() * 0.25));
}

/** Sleeps `ms`, rejecting with the signal's reason when it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
