import { Command } from 'commander';
import { createViewServer, type ViewServer } from '@osharm/report';
import { ExitCode, handle, UsageError, type CliIo, type CliRun } from '../cli-io';
import { readLabelsFile } from './agreement';
import { fileLimitOptions, fileLimits, type FileLimitFlags } from '../file-limit-flags';

/** Flags of `osharm view`. */
export interface ViewFlags extends Partial<FileLimitFlags> {
  host: string;
  port: string;
  labels?: string;
  judge?: string;
  title: string;
}

const loopback = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * Starts the viewer for `osharm view` and prints where it listens; resolves with the server
 * (stop it with `close()`).
 */
export async function startView(
  results: readonly string[],
  flags: ViewFlags,
  io: CliIo,
): Promise<ViewServer> {
  const port = Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be an integer from 0 to 65535, got ${flags.port}`);
  const labels = flags.labels ? await readLabelsFile(flags.labels, io) : undefined;
  let server: ViewServer;
  try {
    server = await createViewServer({
      roots: results,
      cwd: io.cwd,
      host: flags.host,
      port,
      title: flags.title,
      ...(flags.judge !== undefined && { judge: flags.judge }),
      ...(labels && { labels }),
      ...(flags.maxImageMb !== undefined &&
        flags.maxLogMb !== undefined && {
          limits: fileLimits({ maxImageMb: flags.maxImageMb, maxLogMb: flags.maxLogMb }),
        }),
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (!loopback.has(flags.host))
    io.stderr(
      `warning: listening on ${flags.host}: anyone who can reach this address sees the trajectories (agent output, screenshots)\n`,
    );
  io.stdout(
    `osharm view: ${server.tree.trajectories.length} trajectories, live at ${server.url} (Ctrl-C to stop)\n`,
  );
  return server;
}

/**
 * `osharm view RESULTS…`: the report's interface as a local web server, updating live. Runs until
 * SIGINT / SIGTERM, or until `stop` settles (tests).
 */
export function viewCommand(run: CliRun, { stop }: { stop?: Promise<void> } = {}): Command {
  const io = run.io;
  const command = new Command('view')
    .description(
      'serve the report interface for results dirs on a local web server; the page updates live while a run or a judge writes files',
    )
    .argument('<results...>', 'results dirs; several (e.g. one per model) compare side by side')
    .option('--host <address>', 'address to listen on (loopback by default)', '127.0.0.1')
    .option('--port <port>', 'port (0: any free port)', '8765')
    .option('--labels <file>', 'human labels (CSV or JSON): adds the judge agreement table')
    .option('--judge <key>', 'judge configuration shown first, e.g. gpt-4.1/aer/v3')
    .option('--title <title>', 'page title', 'osharm viewer');
  for (const option of fileLimitOptions()) command.addOption(option);
  return command
    .addHelpText(
      'after',
      `
Filters: run (model), category, domain, safe / unsafe, judge (model / type / version).

Examples:
  osharm view results/
  osharm view results-gpt/ results-claude/ --port 9000`,
    )
    .action(
      handle(run, async (results: string[], flags: ViewFlags) => {
        const server = await startView(results, flags, io);
        await new Promise<void>(resolvePromise => {
          const done = () => {
            process.off('SIGINT', done);
            process.off('SIGTERM', done);
            resolvePromise();
          };
          process.on('SIGINT', done);
          process.on('SIGTERM', done);
          void stop?.then(done, done);
        });
        await server.close();
        io.stdout('osharm view: stopped\n');
        return ExitCode.ok;
      }),
    );
}
