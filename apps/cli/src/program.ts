import { Command, CommanderError } from 'commander';
import { OsharmError } from '@osharm/task-schema';
import { relativePathsIn } from '@osharm/task-schema/internal';
import { normalizeArgv } from '@osharm/judge-cli';
import { RunOptionsError } from '@osharm/runner';
import { ExitCode, UsageError, processIo, terminalSafeIo, type CliIo, type CliRun } from './cli-io';
import { agreementCommand } from './commands/agreement';
import { assetsCommand } from './commands/assets';
import { envCommand } from './commands/env';
import { judgeCommand } from './commands/judge';
import { kubeCommand } from './commands/kube';
import { mergeCommand } from './commands/merge';
import { modelsCommand } from './commands/models';
import { reportCommand } from './commands/report';
import { runCommand } from './commands/run';
import { tasksCommand } from './commands/tasks';
import { viewCommand } from './commands/view';
import { VERSION } from './version';

/**
 * Builds the `osharm` command tree for one run. `rawIo` (default: `run.io`) is what `osharm judge`
 * prints through: it escapes its own lines around its progress bar, whose drawing must stay raw.
 */
export function createProgram(run: CliRun, rawIo: CliIo = run.io): Command {
  const program = new Command('osharm')
    .description(
      'osharm: measure how safely computer-use agents behave (the OS-Harm benchmark, reproduced and extended)',
    )
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: text => run.io.stdout(text),
      writeErr: text => run.io.stderr(text),
    })
    .addHelpText(
      'after',
      `
Upstream snake_case flags (--test_config_base_dir …) are accepted too.
Exit codes: 0 ok, 1 some work failed (invalid data, a run errored, a trajectory not judged),
2 the command could not start (usage or setup: bad flag, missing path, no API key).
A .env file in the working directory is read.
Docs: docs/README.md`,
    );
  program.addCommand(runCommand(run));
  program.addCommand(tasksCommand(run));
  program.addCommand(assetsCommand(run));
  program.addCommand(envCommand(run));
  program.addCommand(
    judgeCommand({
      io: rawIo,
      get exitCode() {
        return run.exitCode;
      },
      set exitCode(code: number) {
        run.exitCode = code;
      },
    }),
  );
  program.addCommand(mergeCommand(run));
  program.addCommand(kubeCommand(run));
  program.addCommand(modelsCommand(run));
  program.addCommand(reportCommand(run));
  program.addCommand(viewCommand(run));
  program.addCommand(agreementCommand(run));
  // Subcommands added through addCommand do not inherit these settings: apply them down the tree.
  const inherit = (command: Command) => {
    for (const sub of command.commands) {
      sub
        .exitOverride()
        .showHelpAfterError('(add --help for usage)')
        .configureOutput({
          writeOut: text => run.io.stdout(text),
          writeErr: text => run.io.stderr(text),
        });
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}

/**
 * Runs the CLI on `argv` (without the node and script entries) and returns the exit code.
 * Never throws for user errors: usage problems give 2, invalid data 1, each with a one-line
 * message; only a bug prints a stack trace.
 */
export async function runCli(argv: readonly string[], rawIo: CliIo = processIo()): Promise<number> {
  const io = terminalSafeIo(rawIo);
  const run: CliRun = { io, exitCode: ExitCode.ok };
  const program = createProgram(run, rawIo);
  try {
    if (argv.length === 0) {
      program.outputHelp();
      return ExitCode.usage;
    }
    await program.parseAsync(normalizeArgv(argv), { from: 'user' });
    return run.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version')
        return ExitCode.ok;
      if (error.code === 'commander.help') return ExitCode.ok;
      // commander already printed the message.
      return ExitCode.usage;
    }
    // Paths inside the working dir print relative to it (docs/cli.md, "Paths in messages").
    if (error instanceof UsageError || error instanceof RunOptionsError) {
      io.stderr(`error: ${relativePathsIn(error.message, rawIo.cwd)}\n`);
      return ExitCode.usage;
    }
    if (OsharmError.isInstance(error)) {
      io.stderr(`error: ${relativePathsIn(error.message, rawIo.cwd)}\n`);
      return ExitCode.invalidData;
    }
    throw error;
  }
}
