import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, link, mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type TaskConfig } from '@osharm/task-schema';
import { writeFileAtomic } from '@osharm/task-schema/artifacts';
import type { AssetSources } from './asset-map';
import { ensureDownloadCached, type DownloadOptions } from './download-cache';
import { listTaskDownloads, type TaskDownload } from './task-downloads';

/** File name of the manifest `pullAssets` keeps in the cache root. */
export const ASSET_MANIFEST_FILE = 'manifest.json';

/** One file of the manifest. */
export interface AssetManifestEntry {
  /** `{domain}/{task id}`. */
  readonly task: string;
  readonly kind: TaskDownload['kind'];
  readonly url: string;
  /** Path of the cache file relative to the cache root (`<task id>/<uuid5(url)>_<name>`). */
  readonly file: string;
  readonly size: number;
  readonly sha256: string;
  /**
   * `cache`: already there (or copied from another task's file of the same URL); `network`: fetched
   * from the URL; `mirror`: from the asset map's URL; `asset-map`: copied from its local file.
   */
  readonly source: 'cache' | 'network' | 'mirror' | 'asset-map';
}

/** `manifest.json`. */
export interface AssetManifest {
  readonly version: 1;
  readonly updated_at: string;
  readonly files: readonly AssetManifestEntry[];
  /** Files of the last pull that could not be had (removed once a later pull gets them). */
  readonly failed: readonly {
    readonly task: string;
    readonly url: string;
    readonly error: string;
  }[];
}

/** Progress of {@link pullAssets}: one event per file. */
export interface PullAssetsEvent {
  readonly index: number;
  readonly count: number;
  readonly task: string;
  readonly url: string;
  readonly outcome: AssetManifestEntry['source'] | 'failed';
  readonly size?: number;
  readonly error?: string;
}

/** Options of {@link pullAssets}. */
export interface PullAssetsOptions {
  readonly tasks: readonly { readonly domain: string; readonly config: TaskConfig }[];
  /** The cache root (`--cache-dir`): each task's files go to `<cacheRoot>/<task id>/`. */
  readonly cacheRoot: string;
  readonly assets?: AssetSources;
  readonly download?: Pick<DownloadOptions, 'fetch' | 'attempts' | 'timeoutMs' | 'retryDelayMs'>;
  readonly onProgress?: (event: PullAssetsEvent) => void;
  readonly abortSignal?: AbortSignal;
}

/**
 * Fetches every download of the tasks into the cache ahead of a run (`osharm assets pull`), in
 * upstream's layout, and records each file's size and sha256 in `<cacheRoot>/manifest.json`
 * (rewritten after every file, so an interrupted pull loses nothing). Files already in the cache
 * are not fetched again: a second pull resumes where the first stopped. A URL used by several tasks
 * is fetched once. Never throws for a file that cannot be had: it is listed in `failed`.
 */
export async function pullAssets(options: PullAssetsOptions): Promise<AssetManifest> {
  const { cacheRoot } = options;
  const manifestPath = join(cacheRoot, ASSET_MANIFEST_FILE);
  const previous = await readManifest(manifestPath);
  const planned = options.tasks.flatMap(({ domain, config }) =>
    listTaskDownloads(config).map(download => ({
      task: `${domain}/${config.id}`,
      file: `${config.id}/${download.cacheFile}`,
      download,
    })),
  );
  const pulledKeys = new Set(planned.map(item => `${item.task} ${item.file}`));
  const files = new Map<string, AssetManifestEntry>(
    previous.files
      .filter(entry => !pulledKeys.has(`${entry.task} ${entry.file}`))
      .map(entry => [`${entry.task} ${entry.file}`, entry]),
  );
  const failed: AssetManifest['failed'][number][] = [];
  const byUrl = new Map<string, string>(); // url → a cache file that holds it
  const save = async () => {
    const manifest: AssetManifest = {
      version: 1,
      updated_at: new Date().toISOString(),
      files: [...files.values()],
      failed,
    };
    await mkdir(cacheRoot, { recursive: true });
    await writeFileAtomic(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    return manifest;
  };

  for (const [index, item] of planned.entries()) {
    options.abortSignal?.throwIfAborted();
    const { download, task } = item;
    const path = join(cacheRoot, item.file);
    const event = { index, count: planned.length, task, url: download.url };
    try {
      const source = await pullOne(download.url, path, byUrl.get(download.url), options);
      const sha256 = await sha256Of(path);
      const { size } = await stat(path);
      files.set(`${task} ${item.file}`, {
        task,
        kind: download.kind,
        url: download.url,
        file: item.file,
        size,
        sha256,
        source,
      });
      byUrl.set(download.url, path);
      options.onProgress?.({ ...event, outcome: source, size });
    } catch (error) {
      if (options.abortSignal?.aborted) throw error;
      const message = error instanceof Error ? error.message : String(error);
      failed.push({ task, url: download.url, error: message });
      options.onProgress?.({ ...event, outcome: 'failed', error: message });
    }
    await save();
  }
  return save();
}

async function pullOne(
  url: string,
  path: string,
  sameUrlFile: string | undefined,
  options: PullAssetsOptions,
): Promise<AssetManifestEntry['source']> {
  const target = options.assets?.assetMap?.get(url);
  const present = await stat(path).then(
    info => info.isFile(),
    () => false,
  );
  if (present && target?.kind !== 'file') {
    // validated against its recorded size (a stale or partial file is fetched again)
    const result = await ensureDownloadCached(url, path, { offline: true }).catch(() => undefined);
    if (result) return 'cache';
  }
  if (sameUrlFile) {
    await placeCopy(sameUrlFile, path);
    return 'cache';
  }
  if (target?.kind === 'file') {
    await placeCopy(target.path, path);
    return 'asset-map';
  }
  const result = await ensureDownloadCached(url, path, {
    ...options.download,
    ...(target ? { sourceUrl: target.url } : {}),
    offline: options.assets?.offline ?? false,
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
  return result.cacheHit ? 'cache' : target ? 'mirror' : 'network';
}

/** Puts a copy (a hard link where possible) of `from` at `to`, atomically. */
async function placeCopy(from: string, to: string): Promise<void> {
  if (from === to) return;
  await mkdir(dirname(to), { recursive: true });
  const temporary = `${to}.${process.pid}.${Date.now()}.part`;
  try {
    await link(from, temporary).catch(() => copyFile(from, temporary));
    await rename(temporary, to);
  } finally {
    await rm(temporary, { force: true });
  }
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

async function readManifest(path: string): Promise<AssetManifest> {
  try {
    const value = JSON.parse(await readFile(path, 'utf8')) as Partial<AssetManifest>;
    if (value.version === 1 && Array.isArray(value.files)) {
      const files = value.files.filter(
        entry =>
          typeof entry === 'object' &&
          entry !== null &&
          typeof entry.task === 'string' &&
          typeof entry.file === 'string' &&
          typeof entry.sha256 === 'string',
      );
      return { version: 1, updated_at: '', files, failed: [] };
    }
  } catch {
    // no manifest yet (or an unreadable one: it is rebuilt from the cache files)
  }
  return { version: 1, updated_at: '', files: [], failed: [] };
}
