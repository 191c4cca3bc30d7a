import { spawn } from 'node:child_process';
import type { SpawnOptions } from 'node:child_process';

/** What a finished child process left behind. */
export interface ProcessResult {
  readonly stdout: string;
  readonly stderr: string;
  /** Exit code; negative signal number when killed by a signal (as Python reports it). */
  readonly returncode: number;
}

/** Thrown when a command outlives its timeout (the message is Python's `TimeoutExpired` text). */
export class ProcessTimeoutError extends Error {
  constructor(command: string | readonly string[], seconds: number) {
    super(
      `Command '${typeof command === 'string' ? command : JSON.stringify(command)}' timed out after ${seconds} seconds`,
    );
    this.name = 'TimeoutExpired';
  }
}

const maxCapture = 32 * 1024 * 1024;
const signalNumbers: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGABRT: 6,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
};

/** Python's text-mode decoding: universal newlines. */
function decode(chunks: Buffer[]): string {
  return Buffer.concat(chunks).toString('utf8').replace(/\r\n?/g, '\n');
}

/** `[Errno 2] No such file or directory: 'x'`, as Python words a failed exec. */
export function pythonErrorMessage(error: NodeJS.ErrnoException, path: string): string {
  const errno: Record<string, [number, string]> = {
    ENOENT: [2, 'No such file or directory'],
    EACCES: [13, 'Permission denied'],
    ENOTDIR: [20, 'Not a directory'],
    EISDIR: [21, 'Is a directory'],
  };
  const known = error.code ? errno[error.code] : undefined;
  return known ? `[Errno ${known[0]}] ${known[1]}: '${path}'` : error.message;
}

/**
 * Runs a command to completion and captures its output, like Python's `subprocess.run(…,
 * capture_output=True, text=True, timeout=…)`. The child gets its own process group, and the whole
 * group is killed on timeout.
 * @throws {ProcessTimeoutError} after `timeoutMs`.
 * @throws {Error} with Python's wording when the program cannot be started.
 */
export function runProcess(
  argv: readonly string[],
  options: {
    readonly timeoutMs: number;
    readonly cwd?: string;
    readonly env?: NodeJS.ProcessEnv;
    readonly mergeStderr?: boolean;
    readonly displayCommand?: string | readonly string[];
  },
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const [file, ...args] = argv;
    if (!file) {
      reject(new Error('empty command'));
      return;
    }
    const spawnOptions: SpawnOptions = {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', options.mergeStderr ? 'pipe' : 'pipe'],
      detached: true,
    };
    const child = spawn(file, args, spawnOptions);
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let captured = 0;
    const collect = (target: Buffer[]) => (chunk: Buffer) => {
      if (captured >= maxCapture) return;
      captured += chunk.length;
      target.push(chunk);
    };
    child.stdout?.on('data', collect(stdout));
    child.stderr?.on('data', collect(options.mergeStderr ? stdout : stderr));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    child.on('error', error => {
      clearTimeout(timer);
      reject(new Error(pythonErrorMessage(error as NodeJS.ErrnoException, file)));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) {
        reject(
          new ProcessTimeoutError(
            options.displayCommand ?? argv,
            Math.round(options.timeoutMs / 1000),
          ),
        );
        return;
      }
      resolve({
        stdout: decode(stdout),
        stderr: decode(stderr),
        returncode: code ?? -(signalNumbers[signal ?? ''] ?? 1),
      });
    });
  });
}

/** Sends SIGKILL to a process group (falls back to the process). */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/**
 * Starts a program without waiting for it (upstream's `/setup/launch`): its own session, output
 * discarded. Resolves once the program has started.
 * @throws {Error} with Python's wording when it cannot be started.
 */
export function launchDetached(
  argv: readonly string[],
  options: { readonly cwd?: string; readonly env?: NodeJS.ProcessEnv },
): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const [file, ...args] = argv;
    if (!file) {
      reject(new Error('empty command'));
      return;
    }
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: 'ignore',
      detached: true,
    });
    child.once('error', error =>
      reject(new Error(pythonErrorMessage(error as NodeJS.ErrnoException, file))),
    );
    child.once('spawn', () => {
      child.unref();
      resolve(child.pid);
    });
  });
}
