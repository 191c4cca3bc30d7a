// The container engine's command line (podman or docker): the few subcommands both spell alike.
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ownerAlive } from '@osharm/desktop-env/provider-kit';

/** podman or docker; both take the same arguments for everything used here. */
export type ContainerEngine = 'podman' | 'docker';

/** Label on every container this package starts; its value is the owner (desktop-env's provider kit `ownerId`). */
export const OWNER_LABEL = 'org.osharm.vm-container.owner';

/** Runs `binary args…` and resolves with its stdout; rejects naming the command and its stderr. */
export function runEngine(
  binary: string,
  args: readonly string[],
  options: {
    env?: NodeJS.ProcessEnv;
    timeoutMs?: number;
    abortSignal?: AbortSignal;
    /** Append stderr to the result (`logs` prints the container's stderr there). */
    withStderr?: boolean;
  } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      binary,
      args,
      {
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 120_000,
        signal: options.abortSignal,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error) {
          const detail = String(stderr).trim().split('\n').slice(-3).join(' | ');
          reject(
            new Error(`${binary} ${args[0]} failed: ${detail || error.message}`, { cause: error }),
          );
        } else resolve(options.withStderr ? `${String(stdout)}${String(stderr)}` : String(stdout));
      },
    );
  });
}

/**
 * Removes this package's containers whose owner process is gone (a harness that crashed or was
 * killed); returns the names removed. Containers of live owners are left alone.
 */
export async function removeOrphans(binary: string): Promise<string[]> {
  const names = (
    await runEngine(binary, [
      'ps',
      '--all',
      '--filter',
      `label=${OWNER_LABEL}`,
      '--format',
      '{{.Names}}',
    ])
  )
    .split('\n')
    .map(name => name.trim())
    .filter(Boolean);
  if (names.length === 0) return [];
  // `inspect` spells the label lookup alike in podman and docker (`ps --format` does not).
  const owners = (
    await runEngine(binary, [
      'inspect',
      '--format',
      `{{index .Config.Labels "${OWNER_LABEL}"}}`,
      ...names,
    ])
  ).split('\n');
  const orphans = names.filter((_, index) => !ownerAlive((owners[index] ?? '').trim()));
  if (orphans.length > 0) await runEngine(binary, ['rm', '--force', ...orphans]);
  return orphans;
}

/** Synchronous removal, for the process's `exit` event (no promise can run there). */
export function removeNow(binary: string, names: readonly string[]): void {
  if (names.length === 0) return;
  try {
    execFileSync(binary, ['rm', '--force', ...names], { stdio: 'ignore', timeout: 30_000 });
  } catch {
    // the next start's orphan sweep removes what is left
  }
}

/**
 * `--ulimit` values for open files and processes at most this process's hard limits: podman's
 * defaults (1048576 / 4194304) are refused by runc where the host's hard limits are lower.
 */
export function hardLimits(): string[] {
  try {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    const hard = (label: string): string | undefined =>
      new RegExp(`^${label}\\s+\\S+\\s+(\\d+)`, 'm').exec(limits)?.[1];
    const nofile = hard('Max open files');
    // runc refused more than 32768 processes on this machine even under a higher hard limit; the
    // limit counts every process of uid 1000 on the host, so it stays high (pids caps each container).
    const nprocHard = hard('Max processes');
    const nproc = nprocHard === undefined ? undefined : String(Math.min(Number(nprocHard), 32768));
    return [
      ...(nofile ? [`nofile=${nofile}:${nofile}`] : []),
      ...(nproc ? [`nproc=${nproc}:${nproc}`] : []),
    ];
  } catch {
    return [];
  }
}
