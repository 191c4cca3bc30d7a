import { CommanderError } from 'commander';
import { normalizeArgv } from './argv';
import { batchJudgeCommand } from './command';
import { ExitCode, processIo, type BatchJudgeIo, type BatchJudgeRun } from './io';
import { VERSION } from './version';

/**
 * Runs `osharm-batch-judge` on `argv` (without the node and script entries) and returns the exit
 * code: 0 every trajectory judged, 1 some failed / none found / the run could not go on, 2 usage.
 * Never throws for user errors; only a bug rejects.
 */
export async function runBatchJudge(
  argv: readonly string[],
  io: BatchJudgeIo = processIo(),
): Promise<number> {
  const run: BatchJudgeRun = { io, exitCode: ExitCode.ok };
  const program = batchJudgeCommand(run, 'osharm-batch-judge').version(VERSION, '-V, --version');
  try {
    await program.parseAsync(normalizeArgv(argv), { from: 'user' });
    return run.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(error.code))
        return ExitCode.ok;
      // commander already printed the one-line message.
      return ExitCode.usage;
    }
    throw error;
  }
}
