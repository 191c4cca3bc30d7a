import { spawn } from 'node:child_process';
import type { SpawnOptions } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The agent's side of the desktop (docs/packages/vm-local.md "Security model"): a nested user, pid
 * and mount namespace (guest/agent-ns.sh) whose processes cannot see, signal or ptrace the guest
 * server, its helpers or the sandbox's init. Every process the agent's actions start runs there.
 */
export interface AgentNamespace {
  /** The pid (in the server's pid namespace) of the agent namespace's init. */
  readonly pid: number;
}

/**
 * Told of every process started for the agent, as it starts (the harm observer records it whether
 * or not a poll of /proc ever sees it: guest-harm-procs.ts). What it returns is told the exit
 * status when the server waits for the process (a command run to completion).
 */
export type SpawnRecord = (
  pid: number,
  argv: readonly string[],
  cwd: string | undefined,
) => ((status: number) => void) | undefined;

/** Where a program would be found (PATH lookup as execvp), or undefined. */
function findProgram(file: string, env: NodeJS.ProcessEnv): string | undefined {
  const candidates = file.includes('/')
    ? [file]
    : (env.PATH ?? '/usr/bin:/bin').split(':').map(directory => join(directory || '.', file));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      if (!statSync(candidate).isDirectory()) return candidate;
    } catch {
      // next
    }
  }
  return undefined;
}

/**
 * `argv` as run inside the agent namespace: through nsenter (the server owns the namespace's user
 * namespace, so it may enter it; nothing there can enter back). A program that does not exist
 * fails as a direct spawn would (Python's wording), before nsenter is started.
 * @throws {Error} `[Errno 2] No such file or directory: 'x'` for a program not found.
 */
function agentArgv(
  argv: readonly string[],
  namespace: AgentNamespace | undefined,
  cwd: string | undefined,
  env: NodeJS.ProcessEnv,
): string[] {
  if (!namespace) return [...argv];
  const [file] = argv;
  if (!file) throw new Error('empty command');
  if (!findProgram(file, env)) {
    const error = Object.assign(new Error(`spawn ${file} ENOENT`), { code: 'ENOENT' });
    throw new Error(pythonErrorMessage(error, file));
  }
  return [
    '/usr/bin/nsenter',
    `--target=${namespace.pid}`,
    '--user',
    '--pid',
    '--mount',
    '--preserve-credentials',
    `--wd=${cwd ?? '/'}`,
    '--',
    ...argv,
  ];
}

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
function pythonErrorMessage(error: NodeJS.ErrnoException, path: string): string {
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
    /** Run on the agent's side (an action of the agent or of the task's setup). */
    readonly agent?: AgentNamespace;
    /** Told of the process as it starts. */
    readonly record?: SpawnRecord;
  },
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    let wrapped: string[];
    try {
      wrapped = agentArgv(argv, options.agent, options.cwd, options.env ?? process.env);
    } catch (error) {
      reject(error as Error);
      return;
    }
    const [file, ...args] = wrapped;
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
    let exited: ((status: number) => void) | undefined;
    child.once('spawn', () => {
      if (child.pid) exited = options.record?.(child.pid, argv, options.cwd);
    });
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
      const returncode = code ?? -(signalNumbers[signal ?? ''] ?? 1);
      exited?.(returncode);
      resolve({ stdout: decode(stdout), stderr: decode(stderr), returncode });
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
  options: {
    readonly cwd?: string;
    readonly env?: NodeJS.ProcessEnv;
    /** Run on the agent's side. */
    readonly agent?: AgentNamespace;
    /** Told of the process as it starts. */
    readonly record?: SpawnRecord;
  },
): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    let wrapped: string[];
    try {
      wrapped = agentArgv(argv, options.agent, options.cwd, options.env ?? process.env);
    } catch (error) {
      reject(error as Error);
      return;
    }
    const [file, ...args] = wrapped;
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
      if (child.pid) options.record?.(child.pid, argv, options.cwd);
      resolve(child.pid);
    });
  });
}
