import { Command } from 'commander';
import { ASSET_MANIFEST_FILE, pullAssets } from '@osharm/desktop-env';
import { loadDataset } from '@osharm/task-schema';
import { addAssetOptions, resolveAssetOptions, type AssetFlags } from '../asset-options';
import { ExitCode, handle, type CliIo, type CliRun } from '../cli-io';
import {
  addDatasetOptions,
  displayPath,
  resolveDataset,
  type DatasetFlags,
} from '../dataset-options';
import { resolve } from 'node:path';

function pullCommand(run: CliRun): Command {
  const io = run.io;
  return addAssetOptions(addDatasetOptions(new Command('pull')))
    .description(
      'fetch every download of the selected tasks into the cache ahead of a run (resumes; writes <cache-dir>/manifest.json with sha256)',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ osharm assets pull --test-config-base-dir evaluation_examples
  $ osharm assets pull --asset-map mirror.json --cache-dir ~/.cache/osharm/downloads
  $ osharm run … --cache-dir ~/.cache/osharm/downloads --offline

Files already in the cache are not fetched again; a URL used by several tasks is fetched once.
Exit code 1 when any file could not be had (listed, and in the manifest's "failed").`,
    )
    .action(handle(run, (flags: DatasetFlags & AssetFlags) => pull(flags, io)));
}

async function pull(flags: DatasetFlags & AssetFlags, io: CliIo): Promise<number> {
  const dataset = await resolveDataset(flags, io);
  const { cacheRoot, assets } = await resolveAssetOptions(flags, io.cwd);
  const { tasks } = await loadDataset({
    baseDir: resolve(io.cwd, dataset.baseDir),
    indexPaths: dataset.indexPaths.map(path => resolve(io.cwd, path)),
    domain: dataset.domain,
  });
  const started = performance.now();
  const manifest = await pullAssets({
    tasks: tasks.map(task => ({ domain: task.domain, config: task.config })),
    cacheRoot,
    assets,
    onProgress: event => {
      const size = event.size === undefined ? '' : ` (${event.size} bytes)`;
      io.stderr(
        `[${event.index + 1}/${event.count}] ${event.task} ${event.outcome}${size} ${event.url}${event.error ? `\n  ${event.error}` : ''}\n`,
      );
    },
  });
  const pulled = new Set(tasks.map(task => `${task.domain}/${task.id}`));
  const mine = manifest.files.filter(file => pulled.has(file.task));
  const count = (source: string) => mine.filter(file => file.source === source).length;
  io.stdout(
    `${mine.length + manifest.failed.length} file(s) of ${tasks.length} task(s): ${count('network')} fetched, ${count('mirror')} from mirrors, ${count('asset-map')} from asset-map files, ${count('cache')} already cached, ${manifest.failed.length} failed (${((performance.now() - started) / 1000).toFixed(1)} s)\nmanifest: ${displayPath(io, resolve(cacheRoot, ASSET_MANIFEST_FILE))}\n`,
  );
  if (manifest.failed.length > 0) {
    io.stderr(
      `${manifest.failed.length} file(s) could not be had; map their URLs to local files or a mirror with --asset-map FILE, or run again to retry\n`,
    );
    return ExitCode.invalidData;
  }
  return ExitCode.ok;
}

/** `osharm assets`: the downloads tasks need (the host-side cache). */
export function assetsCommand(run: CliRun): Command {
  return new Command('assets')
    .description("the files tasks download at setup (the host-side cache, upstream's layout)")
    .addCommand(pullCommand(run));
}
