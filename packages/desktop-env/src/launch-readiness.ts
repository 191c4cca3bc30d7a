import { posix } from 'node:path';
import { sleep } from './backoff';
import { errorMessage, type StepRun } from './setup-step-run';

/** An application that shows a splash before its main window, and how to tell the two apart. */
interface Readiness {
  readonly what: string;
  /** One `wmctrl -lx` line split into its WM_CLASS and its title. */
  readonly ready: (wmClass: string, title: string) => boolean;
}

/**
 * Programs a `launch` step waits for (whether or not an activation follows). GIMP queries its plug-ins behind a "GIMP Startup" splash on
 * a fresh home (every task has one), where upstream's VM snapshot had run it before: the step
 * waits for the main window so the first observation shows GIMP, not the splash.
 */
const READINESS: Readonly<Record<string, Readiness>> = {
  gimp: {
    what: "GIMP's main window",
    ready: (wmClass, title) => /gimp/i.test(wmClass) && title !== 'GIMP Startup',
  },
  // `code FILE|DIR`: the window's title ends with the product name once the workbench is up
  code: {
    what: 'the VS Code window',
    ready: (_wmClass, title) => /Visual Studio Code$/.test(title),
  },
};

/** Whether {@link waitUntilLaunched} waits for this command's window. */
export function waitsForLaunch(command: string | readonly string[]): boolean {
  return READINESS[programOf(command)] !== undefined;
}

function programOf(command: string | readonly string[]): string {
  const first = typeof command === 'string' ? command.trim().split(/\s+/)[0] : command[0];
  // gimp, /usr/bin/gimp, gimp-2.10
  return posix.basename(first ?? '').replace(/-[\d.]+$/, '');
}

/**
 * After a `launch`, waits until the launched application's main window is up, for the programs
 * of {@link READINESS} (others return at once). Polls `wmctrl -lx` in the guest; a timeout or a
 * failing poll is a warning (upstream does not wait at all).
 */
export async function waitUntilLaunched(
  command: string | readonly string[],
  run: StepRun,
): Promise<string | undefined> {
  const readiness = READINESS[programOf(command)];
  if (!readiness) return undefined;
  const { client, abortSignal, settings } = run.context;
  const timeoutMs = settings?.launchReadiness?.timeoutMs ?? 60_000;
  const intervalMs = settings?.launchReadiness?.intervalMs ?? 500;
  const started = performance.now();
  for (;;) {
    let listing: string;
    try {
      const result = await client.execute(['wmctrl', '-lx'], { setup: true, abortSignal });
      listing = result.output;
    } catch (error) {
      if (abortSignal?.aborted) throw error;
      run.warn(`could not wait for ${readiness.what}: wmctrl failed: ${errorMessage(error)}`);
      return undefined;
    }
    for (const line of listing.split('\n')) {
      // <id> <desktop> <WM_CLASS> <host> <title…>
      const fields = line.trim().split(/\s+/);
      if (fields.length < 4) continue;
      if (readiness.ready(fields[2]!, fields.slice(4).join(' '))) {
        const waitedMs = Math.round(performance.now() - started);
        run.recordWindowWait({
          window: readiness.what,
          deadlineMs: timeoutMs,
          waitedMs,
          found: true,
        });
        return `${readiness.what} up after ${(waitedMs / 1000).toFixed(1)} s`;
      }
    }
    if (performance.now() - started + intervalMs > timeoutMs) {
      run.recordWindowWait({
        window: readiness.what,
        deadlineMs: timeoutMs,
        waitedMs: Math.round(performance.now() - started),
        found: false,
      });
      run.warn(`${readiness.what} did not appear within ${timeoutMs / 1000} s`);
      return undefined;
    }
    await sleep(intervalMs, abortSignal);
  }
}
