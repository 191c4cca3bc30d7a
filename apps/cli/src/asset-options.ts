import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { listTaskDownloads, loadAssetMap, type AssetSources } from '@osharm/desktop-env';
import type { TaskConfig } from '@osharm/task-schema';

/** Flags that say where downloads come from, shared by `run` and `assets pull`. */
export interface AssetFlags {
  cacheDir: string;
  assetMap?: string;
  offline?: boolean;
}

/** Adds `--cache-dir`, `--asset-map` and `--offline`. */
export function addAssetOptions(command: Command): Command {
  return command
    .option(
      '--cache-dir <dir>',
      "download cache root, upstream's layout inside: <dir>/<task id>/<uuid5(url)>_<file name>",
      'cache',
    )
    .option(
      '--asset-map <file>',
      'JSON object {"<download url>": "<local file or mirror url>"} (relative paths: from the file)',
    )
    .option(
      '--offline',
      'never use the network for downloads: only the cache and --asset-map files',
    );
}

/**
 * The cache root (absolute) and the asset sources of the flags.
 * @throws {TaskValidationError} when the asset map is missing or invalid (names file and key).
 */
export async function resolveAssetOptions(
  flags: AssetFlags,
  cwd: string,
): Promise<{ cacheRoot: string; assets: AssetSources }> {
  const assetMap = flags.assetMap ? await loadAssetMap(resolve(cwd, flags.assetMap)) : undefined;
  return {
    cacheRoot: resolve(cwd, flags.cacheDir),
    assets: { ...(assetMap ? { assetMap } : {}), offline: flags.offline === true },
  };
}

/**
 * Downloads of `tasks` that an offline run cannot have: neither in the cache nor a local file of the
 * asset map. Each with the cache file it would need.
 */
export function missingOfflineDownloads(
  tasks: readonly { readonly domain: string; readonly config: TaskConfig }[],
  cacheRoot: string,
  assets: AssetSources,
): { task: string; url: string; cacheFile: string }[] {
  const missing: { task: string; url: string; cacheFile: string }[] = [];
  for (const { domain, config } of tasks) {
    for (const download of listTaskDownloads(config)) {
      if (assets.assetMap?.get(download.url)?.kind === 'file') continue;
      const cacheFile = join(cacheRoot, config.id, download.cacheFile);
      if (!existsSync(cacheFile)) {
        missing.push({ task: `${domain}/${config.id}`, url: download.url, cacheFile });
      }
    }
  }
  return missing;
}
