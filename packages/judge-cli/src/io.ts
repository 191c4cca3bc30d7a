/**
 * Where the command reads and writes. Structurally the same as apps/cli's `CliIo` (so `osharm
 * judge` passes its own io unchanged), plus two optional facts about stderr for the progress bar.
 * Kept here rather than shared: apps must not import each other, and the shape is five fields.
 */
export interface BatchJudgeIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Directory relative paths are resolved against. */
  readonly cwd: string;
  /** True when stdout is a terminal. */
  readonly isTTY: boolean;
  /** Environment variables (API keys, base URLs); handed to the model clients. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** True when stderr is a terminal (the progress bar). @default isTTY */
  readonly stderrIsTTY?: boolean;
  /** Width of the stderr terminal. @default 80 */
  readonly columns?: number;
}

/** The io of the real process. */
export function processIo(): BatchJudgeIo {
  return {
    stdout: text => process.stdout.write(text),
    stderr: text => process.stderr.write(text),
    cwd: process.cwd(),
    isTTY: Boolean(process.stdout.isTTY),
    env: process.env,
    stderrIsTTY: Boolean(process.stderr.isTTY),
    columns: process.stderr.columns,
  };
}

/** One invocation: its io and the exit code its command settles on (apps/cli's `CliRun`). */
export interface BatchJudgeRun {
  readonly io: BatchJudgeIo;
  exitCode: number;
}

/** Exit codes, the same as every osharm command's. */
export const ExitCode = {
  /** Every trajectory was judged. */
  ok: 0,
  /** Some trajectory ended in `errors`, none was found, or the run could not go on (API key, auth). */
  failed: 1,
  /** The command line is wrong (unknown flag, bad value, traj_dir missing). */
  usage: 2,
} as const;

/**
 * A reader that stops early (`… --help | head`) closes the pipe: the process then ends quietly with
 * its exit code so far, as Unix tools do, instead of crashing on EPIPE. For the bins.
 */
export function endQuietlyOnClosedStdout(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}
