import { escapeControlChars, redactSecrets } from '@osharm/task-schema/artifacts';

/** Where the CLI reads and writes; tests pass their own to capture output. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Directory relative paths are resolved against. */
  readonly cwd: string;
  /** True when stdout is a terminal (progress bars, colour). */
  readonly isTTY: boolean;
  /** Environment variables (API keys, settings). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

export function processIo(): CliIo {
  return {
    stdout: text => process.stdout.write(text),
    stderr: text => process.stderr.write(text),
    cwd: process.cwd(),
    isTTY: Boolean(process.stdout.isTTY),
    env: process.env,
  };
}

/**
 * The io every osharm command prints through (except `osharm judge`, which escapes its lines
 * itself around its progress bar): control characters in what is written become visible escapes
 * (`\u001b`), so a crafted dir name, task id or error body cannot clear the screen, move the
 * cursor or forge a line; API keys are redacted.
 */
export function terminalSafeIo(io: CliIo): CliIo {
  const clean = (text: string) =>
    redactSecrets(escapeControlChars(text, { keepNewlines: true }), io.env);
  return {
    ...io,
    stdout: text => io.stdout(clean(text)),
    stderr: text => io.stderr(clean(text)),
  };
}

/** Exit codes of every osharm command. */
export const ExitCode = {
  /** Everything valid / done. */
  ok: 0,
  /** The data given (task files, trajectories, results) is invalid. */
  invalidData: 1,
  /** The command line itself is wrong (unknown flag, bad value, unknown domain). */
  usage: 2,
  /** Stopped by Ctrl-C / SIGTERM after closing what it had started (128 + SIGINT, as shells report it). */
  interrupted: 130,
} as const;

/** A problem with the command line: printed without a stack trace, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** One invocation of the CLI: its io and the exit code its command settles on. */
export interface CliRun {
  readonly io: CliIo;
  exitCode: number;
}

/** Wraps a command action that returns an exit code, recording it on the run. */
export function handle<A extends unknown[]>(
  run: CliRun,
  action: (...args: A) => Promise<number>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    run.exitCode = Math.max(run.exitCode, await action(...args));
  };
}
