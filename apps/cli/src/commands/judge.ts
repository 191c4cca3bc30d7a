import type { Command } from 'commander';
import { batchJudgeCommand } from '@osharm/judge-cli';
import type { CliRun } from '../cli-io';

/**
 * `osharm judge …`: the batch judge of apps/batch-judge (`osharm-batch-judge`), the same command
 * object under another name. Its action reports its own errors and sets `run.exitCode`; CliRun's
 * io has the shape it expects (stderr's terminal state falls back to `isTTY`).
 */
export function judgeCommand(run: CliRun): Command {
  return batchJudgeCommand(run, 'judge');
}
