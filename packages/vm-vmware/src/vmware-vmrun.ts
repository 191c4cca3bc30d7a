import { execFile } from 'node:child_process';
import { isAbsolute, resolve } from 'node:path';
import { VmProviderError } from '@osharm/desktop-env';
import type { VmwareProviderEvent } from './vmware-provider-settings';

/** The outcome of one vmrun call that ran (exit codes are not errors here; callers judge them). */
export interface VmrunResult {
  /** The full argv, vmrun first. */
  readonly argv: readonly string[];
  /** Exit code; null when vmrun was killed by the command timeout. */
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** vmrun ran longer than its timeout and was killed. */
  readonly timedOut: boolean;
  readonly durationMs: number;
}

/** Options of {@link runVmrun}. */
export interface RunVmrunOptions {
  /** The vmrun executable (name on PATH or path). */
  readonly vmrunPath: string;
  /** `-T` host type: `ws` or `fusion`. */
  readonly hostType: string;
  /** Arguments after `-T <hostType>`, e.g. `['start', '/vms/a.vmx', 'nogui']`. */
  readonly args: readonly string[];
  /** Kill vmrun after this many ms and report `timedOut`. */
  readonly timeoutMs: number;
  /** Kills vmrun and rejects with the signal's reason. */
  readonly abortSignal?: AbortSignal;
  readonly logger?: (event: VmwareProviderEvent) => void;
}

/** Calls the logger, ignoring anything it throws (a broken logger must not break a run). */
export function emit(
  logger: ((event: VmwareProviderEvent) => void) | undefined,
  event: VmwareProviderEvent,
): void {
  if (!logger) return;
  try {
    logger(event);
  } catch {
    // ignored on purpose
  }
}

/**
 * Runs `vmrun -T <hostType> ...args` once: the single place every vmrun call goes through.
 *
 * vmrun is killed (SIGKILL: a hung vmrun ignores nothing else reliably) after `timeoutMs` or when
 * the signal aborts; stdout and stderr are captured in full.
 * @throws {VmProviderError} when vmrun cannot be run at all (not found, not executable).
 * @throws the abort reason when `abortSignal` aborts.
 */
export function runVmrun(options: RunVmrunOptions): Promise<VmrunResult> {
  const argv = [options.vmrunPath, '-T', options.hostType, ...options.args];
  const signal = options.abortSignal;
  if (signal?.aborted) return Promise.reject(signal.reason);
  emit(options.logger, { type: 'vmrun-start', argv });
  const startedAt = Date.now();
  return new Promise<VmrunResult>((resolvePromise, reject) => {
    execFile(
      options.vmrunPath,
      argv.slice(1),
      {
        timeout: Math.max(1, Math.ceil(options.timeoutMs)),
        killSignal: 'SIGKILL',
        signal,
        encoding: 'utf8',
        maxBuffer: 16 * 1024 * 1024,
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        const durationMs = Date.now() - startedAt;
        const failure = error as (NodeJS.ErrnoException & { killed?: boolean }) | null;
        if (failure && signal?.aborted) {
          reject(signal.reason);
          return;
        }
        if (failure && (failure.code === 'ENOENT' || failure.code === 'EACCES')) {
          reject(vmrunNotRunnable(options.vmrunPath, failure));
          return;
        }
        const timedOut = failure?.killed === true;
        const exitCode = !failure ? 0 : typeof failure.code === 'number' ? failure.code : null;
        const result: VmrunResult = {
          argv,
          exitCode: timedOut ? null : exitCode,
          stdout: String(stdout ?? ''),
          stderr: String(stderr ?? ''),
          timedOut,
          durationMs,
        };
        emit(options.logger, { type: 'vmrun-end', ...result });
        resolvePromise(result);
      },
    );
  });
}

function vmrunNotRunnable(vmrunPath: string, error: NodeJS.ErrnoException): VmProviderError {
  const where = isAbsolute(vmrunPath) || /[\\/]/.test(vmrunPath) ? resolve(vmrunPath) : vmrunPath;
  const message =
    error.code === 'EACCES'
      ? `vmrun at ${where} is not executable (setting vmrunPath or env OSHARM_VMRUN_PATH)`
      : `vmrun not found: "${where}" ${
          where === vmrunPath && !/[\\/]/.test(vmrunPath) ? 'is not on PATH' : 'does not exist'
        }. Install VMware Workstation or Fusion, or set vmrunPath / env OSHARM_VMRUN_PATH (e.g. "/Applications/VMware Fusion.app/Contents/Library/vmrun")`;
  return new VmProviderError({ providerId: 'vmware', message, cause: error });
}

/** What a vmrun call answered, in one line for error messages: output, else exit code or timeout. */
export function describeVmrunResult(result: VmrunResult): string {
  const output = `${result.stdout.trim()}\n${result.stderr.trim()}`
    .trim()
    .replace(/\s*\n\s*/g, ' | ');
  if (result.timedOut) {
    return `vmrun ${result.argv[3] ?? ''} was killed after ${formatSeconds(result.durationMs)}${
      output ? `: ${output}` : ''
    }`;
  }
  if (output) return output;
  return result.exitCode === 0 ? '(no output)' : `(no output, exit code ${result.exitCode})`;
}

/** The running .vmx paths in the output of `vmrun list` (the `Total running VMs: N` line skipped). */
export function parseVmrunList(stdout: string): string[] {
  return stdout
    .split(/\r?\n/)
    .map(line => line.trim())
    .filter(line => line !== '' && !/^Total running VMs:/i.test(line));
}

/** `300000` → `300 s`, `250` → `0.25 s`. */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}
