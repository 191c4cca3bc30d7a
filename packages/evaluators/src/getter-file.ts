import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, isAbsolute } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { EvaluationError } from './evaluator-error';
import { pythonSplitext, pythonStrftime } from './evaluator-python-text';
import { throwIfAborted } from './getter-types';
import type { Getter, GetterConfigInput, GetterContext } from './getter-types';

/** `os.path.join(cache_dir, dest)`, refusing a destination that escapes the cache directory. */
function cachePath(cacheDir: string, dest: string, getter: string): string {
  const root = resolve(cacheDir);
  const path = resolve(root, dest);
  const inside = relative(root, path);
  if (dest === '' || inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
    throw new EvaluationError({
      message: `${getter}: "${dest}" is not a file name inside the cache directory`,
      subject: getter,
    });
  }
  return path;
}

const temporaryName = (path: string) =>
  `${path}.${process.pid}.${randomBytes(4).toString('hex')}.part`;

/** Writes a file atomically (temporary file + rename), creating its directory. */
async function writeAtomically(path: string, data: Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = temporaryName(path);
  try {
    await writeFile(temporary, data);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

interface FileList {
  readonly paths: string[];
  readonly dests: string[];
  readonly gives: ReadonlySet<number>;
}

/** The `path`/`dest`/`multi`/`gives` fields shared by `vm_file` and `cloud_file`. */
function fileList(config: GetterConfigInput): FileList {
  const type = config.type;
  const multi = config['multi'] === true;
  const path = config['path'];
  const dest = config['dest'];
  const isStringList = (value: unknown): value is string[] =>
    Array.isArray(value) && value.every(item => typeof item === 'string');
  if (
    multi
      ? !isStringList(path) || !isStringList(dest)
      : typeof path !== 'string' || typeof dest !== 'string'
  ) {
    throw new EvaluationError({
      message: multi
        ? `${type} with multi: true needs "path" and "dest" lists of strings`
        : `${type} needs "path" and "dest" strings (set multi: true for lists)`,
      subject: type,
    });
  }
  const gives = config['gives'] ?? [0];
  if (!Array.isArray(gives) || !gives.every(index => Number.isInteger(index))) {
    throw new EvaluationError({
      message: `${type}: "gives" must be a list of indices`,
      subject: type,
    });
  }
  return {
    paths: multi ? [...(path as string[])] : [path as string],
    dests: multi ? [...(dest as string[])] : [dest as string],
    gives: new Set(gives as number[]),
  };
}

/** Upstream's return shape: the single given path, or the list of given paths. */
const giveResult = <T>(given: T[]): T | T[] => (given.length === 1 ? (given[0] as T) : given);

/**
 * `vm_file` (upstream `getters/file.py`, U26): fetches guest files into the cache directory.
 *
 * Config: `path` and `dest` (strings, or parallel lists with `multi: true`), `gives` (indices of
 * the files handed to the metric, default `[0]`), and, for a single file, `time_suffix` /
 * `time_format` (default `%Y%m%d_%H%M%S`): `_<now formatted>` is inserted before the extension
 * of `dest` only (U26; U25 used `%Y_%m_%d` and changed the guest path too).
 *
 * Each file is fetched with `/file` and written to `cacheDir/dest` atomically; the local path is
 * given. A file the guest does not have (404), or any failure fetching or writing it, gives
 * `null` in its place, as upstream. Returns the single given entry when `gives` has one index,
 * else the list (in file order).
 */
export const getVmFile: Getter = async (context, config) => {
  const files = fileList(config);
  let dests = files.dests;
  if (config['multi'] !== true && config['time_suffix'] === true) {
    const format =
      typeof config['time_format'] === 'string' ? config['time_format'] : '%Y%m%d_%H%M%S';
    const stamp = pythonStrftime((context.now ?? (() => new Date()))(), format);
    dests = dests.map(dest => {
      const [stem, extension] = pythonSplitext(dest);
      return `${stem}_${stamp}${extension}`;
    });
  }
  const given: Array<string | null> = [];
  const count = Math.min(files.paths.length, dests.length);
  for (let index = 0; index < count; index++) {
    const local = cachePath(context.cacheDir, dests[index] as string, 'vm_file');
    let saved: string | null = null;
    try {
      const path = files.paths[index] as string;
      if (context.client.downloadFile) {
        // streamed to disk and capped; a file cut at its cap is no file (as a failed fetch)
        await mkdir(dirname(local), { recursive: true });
        const got = await context.client.downloadFile(path, local, {
          abortSignal: context.abortSignal,
        });
        if (got?.truncated) {
          await rm(local, { force: true });
          context.onWithheld?.({ path, reason: 'cut at its cap', bytes: got.bytes });
        } else if (got) saved = local;
      } else {
        const data = await context.client.getFile(path, { abortSignal: context.abortSignal });
        if (data !== null) {
          await writeAtomically(local, data);
          saved = local;
        }
      }
    } catch (error) {
      throwIfAborted(context);
      saved = null;
      const reason = ((error as Error).message ?? String(error)).split('\n')[0]!.slice(0, 300);
      context.onWithheld?.({ path: files.paths[index] as string, reason, bytes: 0 });
    }
    if (files.gives.has(index)) given.push(saved);
  }
  return giveResult(given);
};

/**
 * `cloud_file` (upstream `getters/file.py`): downloads `path` (a URL) into `cacheDir/dest` once;
 * a file already at that place is reused without re-validation (upstream quirk 15). `multi`,
 * `gives` and the return shape as `vm_file`. A failed download (network error or non-2xx)
 * throws, as upstream's `raise_for_status` does. Downloads go to a temporary file and are renamed
 * into place, so an interrupted download is never reused. TLS certificates are verified
 * (upstream U26 passes `verify=False`).
 */
export const getCloudFile: Getter = async (context, config) => {
  const files = fileList(config);
  const fetchImpl = context.fetch ?? globalThis.fetch;
  const given: string[] = [];
  const count = Math.min(files.paths.length, files.dests.length);
  for (let index = 0; index < count; index++) {
    const local = cachePath(context.cacheDir, files.dests[index] as string, 'cloud_file');
    if (files.gives.has(index)) given.push(local);
    if (existsSync(local)) continue;
    const url = files.paths[index] as string;
    const response = await fetchImpl(url, { signal: context.abortSignal, redirect: 'follow' });
    if (!response.ok || response.body === null) {
      await response.body?.cancel();
      throw new Error(`cloud_file: downloading ${url} failed with HTTP ${response.status}`);
    }
    await mkdir(dirname(local), { recursive: true });
    const temporary = temporaryName(local);
    try {
      await pipeline(
        Readable.fromWeb(response.body as WebReadableStream<Uint8Array>),
        createWriteStream(temporary),
        { signal: context.abortSignal },
      );
      await rename(temporary, local);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }
  return giveResult(given);
};

/**
 * `cache_file` (upstream `getters/file.py`): `cacheDir/path`, which must exist (upstream asserts;
 * here a missing file throws an `Error` that names it).
 */
export const getCacheFile: Getter = async (context: GetterContext, config) => {
  const path = config['path'];
  if (typeof path !== 'string') {
    throw new EvaluationError({
      message: 'cache_file needs a "path" string',
      subject: 'cache_file',
    });
  }
  const local = cachePath(context.cacheDir, path, 'cache_file');
  if (!existsSync(local))
    throw new Error(`cache_file: ${join(context.cacheDir, path)} does not exist`);
  return local;
};
