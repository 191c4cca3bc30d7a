import type { GuestClient, GuestCallOptions } from './guest-client';

/** What {@link waitForWindow} saw: whether the window appeared, and how long that took. */
export interface WindowWait {
  readonly windowName: string;
  readonly found: boolean;
  /** Time from the first look to the answer, in ms. */
  readonly waitedMs: number;
  readonly deadlineMs: number;
  /** How many times the window list was read. */
  readonly polls: number;
}

/** Options of {@link waitForWindow}; `strict` and `byClass` match wmctrl's `-F` and `-x`. */
export interface WindowWaitOptions extends GuestCallOptions {
  /** Give up after this many ms. @default 10000 */
  readonly deadlineMs?: number;
  /** Pause between two reads of the window list, in ms. @default 250 */
  readonly intervalMs?: number;
  readonly strict?: boolean;
  readonly byClass?: boolean;
}

/**
 * Whether a `wmctrl -lx` line names the window the way `wmctrl -a NAME` would find it: the title
 * (or with `byClass` the WM_CLASS) contains NAME ignoring case, or with `strict` equals it exactly.
 */
function windowLineMatches(
  line: string,
  windowName: string,
  options: { readonly strict?: boolean; readonly byClass?: boolean } = {},
): boolean {
  // wmctrl -lx: <id> <desktop> <instance.class> <host> <title…>
  const fields = line.trim().split(/\s+/);
  if (fields.length < 4) return false;
  const subject = options.byClass ? (fields[2] ?? '') : fields.slice(4).join(' ');
  if (options.strict) return subject === windowName;
  return subject.toLowerCase().includes(windowName.toLowerCase());
}

/**
 * Waits until a window matching `windowName` exists in the guest (reading `wmctrl -lx` through
 * `/execute`, so it works with any guest, upstream's included), or the deadline passes. Never
 * throws for a missing window: the caller records the {@link WindowWait} (e.g. as a setup warning)
 * and decides. Guest errors other than a missing window do throw.
 */
export async function waitForWindow(
  client: Pick<GuestClient, 'execute'>,
  windowName: string,
  options: WindowWaitOptions = {},
): Promise<WindowWait> {
  const deadlineMs = options.deadlineMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 250;
  const started = performance.now();
  let polls = 0;
  for (;;) {
    polls += 1;
    const listing = await client.execute(['wmctrl', '-lx'], {
      abortSignal: options.abortSignal,
      timeoutMs: options.timeoutMs,
    });
    const found = listing.output
      .split('\n')
      .some(line => windowLineMatches(line, windowName, options));
    const waitedMs = performance.now() - started;
    if (found || waitedMs >= deadlineMs) {
      return { windowName, found, waitedMs: Math.round(waitedMs), deadlineMs, polls };
    }
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, Math.min(intervalMs, deadlineMs - waitedMs));
      options.abortSignal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(options.abortSignal!.reason as Error);
        },
        { once: true },
      );
    });
  }
}
