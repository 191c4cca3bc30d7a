import { ExitCode, type CliIo } from './cli-io';

/**
 * Ctrl-C (SIGINT) or SIGTERM while runs are going: the first one aborts the batch (the running
 * runs end as errors, the rest are not started, every desktop is closed, the summary is printed and
 * the command exits 130; a rerun resumes); a second one exits at once (the desktops' sandboxes
 * die with this process and their state dirs are reaped by the next run).
 */
export function onInterrupt(io: CliIo): { readonly signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const handler = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      io.stderr(`\n${name} again: exiting without closing the desktops\n`);
      process.exit(ExitCode.interrupted);
    }
    io.stderr(
      `\n${name}: stopping — the running runs end as errors, no new run starts, the desktops are being closed (press Ctrl-C again to quit at once)\n`,
    );
    controller.abort(new Error(`interrupted by ${name}`));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
