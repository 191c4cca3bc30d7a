import cliProgress from 'cli-progress';
import type { AssetSources } from '@osharm/desktop-env';
import type { BenchmarkEvent, PlannedRun } from '@osharm/runner';
import { escapeControlChars } from '@osharm/task-schema/artifacts';
import { missingOfflineDownloads } from './asset-options';
import type { CliIo } from './cli-io';
import { displayPath } from './dataset-options';

/**
 * `osharm run`'s progress: one listener of `runBenchmark`'s events. A bar with ETA on a terminal;
 * one line per ended run otherwise (logs, CI); the notices of the batch as they come.
 */
export function runProgress(io: CliIo): {
  onEvent: (event: BenchmarkEvent) => void;
  stop: () => void;
} {
  let bar: cliProgress.SingleBar | undefined;
  let started = 0;
  const onEvent = (event: BenchmarkEvent) => {
    switch (event.type) {
      case 'planned': {
        const { runs, pending, numEnvs, provider } = event;
        if (event.assets.offline) warnMissingDownloads(pending, event.cacheRoot, event.assets, io);
        if (event.capacityWarning) io.stderr(`warning: ${event.capacityWarning}\n`);
        const { shard } = event;
        io.stderr(
          `${shard ? `shard ${shard.index}/${shard.count}: ` : ''}${runs.length} run(s)${shard ? ` of ${shard.of}` : ''}: ${runs.length - pending.length} already finished, ${pending.length} to run on ${numEnvs} ${provider} environment(s)\n`,
        );
        started = performance.now();
        bar =
          io.isTTY && pending.length > 0
            ? new cliProgress.SingleBar(
                {
                  format: 'run |{bar}| {value}/{total} | ETA {eta_formatted} | {label}',
                  stream: process.stderr,
                  hideCursor: true,
                },
                cliProgress.Presets.shades_classic,
              )
            : undefined;
        bar?.start(pending.length, 0, { label: '' });
        return;
      }
      case 'run-finished':
      case 'run-errored': {
        const { outcome, done, total } = event;
        const label = outcome.run.label;
        const status = `${outcome.error ? 'error' : `score=${outcome.score}`}${outcome.judgment ? ` safe=${outcome.judgment.safety} success=${outcome.judgment.success}` : ''} ${label}`;
        const details = [outcome.error, outcome.judgeError && `judge: ${outcome.judgeError}`]
          .filter(Boolean)
          .join('\n  ');
        if (bar) {
          // the bar draws on stderr itself: escape what it shows
          bar.update(done, { label: escapeControlChars(status) });
          if (details) io.stderr(`\n${label}: ${details}\n`);
        } else {
          const elapsed = (performance.now() - started) / 1000;
          const eta = (elapsed / done) * (total - done);
          io.stderr(
            `[${done}/${total}] ${status}  (elapsed ${elapsed.toFixed(0)} s, eta ${eta.toFixed(0)} s)${details ? `\n  ${details}` : ''}\n`,
          );
        }
        return;
      }
      case 'notice':
        io.stderr(`${bar ? '\n' : ''}${event.message}\n`);
        return;
      default:
        return;
    }
  };
  return { onEvent, stop: () => bar?.stop() };
}

/** --offline: names the downloads the pending runs will miss (their setup fails on them). */
function warnMissingDownloads(
  pending: readonly PlannedRun[],
  cacheRoot: string,
  assets: AssetSources,
  io: CliIo,
): void {
  const unique = new Map(
    pending.map(run => [`${run.task.domain}/${run.task.config.id}`, run.task]),
  );
  const missing = missingOfflineDownloads([...unique.values()], cacheRoot, assets);
  if (missing.length === 0) return;
  const tasks = new Set(missing.map(entry => entry.task));
  io.stderr(
    `--offline: ${missing.length} download(s) of ${tasks.size} task(s) are neither in the cache nor in --asset-map; their runs will fail at setup (fetch them first: osharm assets pull, or map them with --asset-map FILE):\n${missing
      .slice(0, 10)
      .map(entry => `  ${entry.task}: ${displayPath(io, entry.cacheFile)} (${entry.url})`)
      .join('\n')}${missing.length > 10 ? `\n  … ${missing.length - 10} more` : ''}\n`,
  );
}
