import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { backoffDelayMs, sleep } from './backoff';

/** RFC 4122 namespace for URLs (Python's `uuid.NAMESPACE_URL`). */
export const NAMESPACE_URL = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

/**
 * RFC 4122 version-5 UUID of `name` in `namespace` (SHA-1), identical to Python's
 * `uuid.uuid5(namespace, name)`.
 */
export function uuid5(name: string, namespace: string = NAMESPACE_URL): string {
  const namespaceBytes = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  if (namespaceBytes.length !== 16) throw new TypeError(`"${namespace}" is not a UUID`);
  const hash = createHash('sha1').update(namespaceBytes).update(name, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The host-side cache file of a `download` step, as upstream names it:
 * `<cacheDir>/<uuid5(NAMESPACE_URL, url)>_<basename(guestPath)>`, so a cache directory filled by
 * upstream OSWorld is reused as it is.
 */
export function downloadCachePath(cacheDir: string, url: string, guestPath: string): string {
  return join(cacheDir, `${uuid5(url)}_${posix.basename(guestPath)}`);
}

/** The default cache directory of a task: `cache/<taskId>` (relative to the working directory). */
export function defaultTaskCacheDir(taskId: string): string {
  return join('cache', taskId);
}

/** Written beside a cache file we downloaded: what the server announced, to re-check the file. */
interface CacheMetadata {
  readonly url: string;
  /** Where the bytes came from when not from `url` (a mirror). */
  readonly source?: string;
  readonly size: number;
  readonly downloadedAt: string;
}

/** Options of {@link ensureDownloadCached}. */
export interface DownloadOptions {
  /** Fetch implementation. @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
  /** Attempts before giving up. @default 3 */
  readonly attempts?: number;
  /** Timeout of one attempt (whole transfer) in ms. @default 300000 (upstream: 300 s) */
  readonly timeoutMs?: number;
  /** Delay before attempt n+1 in ms; by default min(0.5·2^n, 8) s with ≤25 % jitter. */
  readonly retryDelayMs?: (attempt: number) => number;
  readonly abortSignal?: AbortSignal;
  /** Progress and retries, for logs. */
  readonly logger?: (message: string) => void;
  /** Fetch the file from this URL instead (a mirror); the cache file stays named after `url`. */
  readonly sourceUrl?: string;
  /** Never use the network: a file missing from the cache is an {@link OfflineCacheMissError}. */
  readonly offline?: boolean;
}

const offlineName = 'OsharmOfflineCacheMissError';

/** Offline mode and the file is not in the cache: nothing was fetched. */
export class OfflineCacheMissError extends Error {
  override readonly name = offlineName;
  constructor(
    readonly url: string,
    readonly cachePath: string,
  ) {
    super(`offline: ${url} is not in the cache (expected ${cachePath})`);
  }

  static isInstance(error: unknown): error is OfflineCacheMissError {
    return error instanceof Error && error.name === offlineName;
  }
}

/** Where a download came from. */
export interface DownloadCacheResult {
  readonly path: string;
  /** True when the file was already in the cache (no request made). */
  readonly cacheHit: boolean;
  readonly size: number;
}

/**
 * Makes sure `cachePath` holds the file at `url`, downloading it when missing. The download goes to
 * a temporary file in the same directory, is checked against `Content-Length` (when the answer is
 * not content-encoded) and only then renamed into place, so an interrupted download never leaves a
 * partial cache file behind. The announced size is recorded beside the file (`<file>.meta.json`); a
 * cached file whose size no longer matches it is downloaded again. A cache file without that record
 * (e.g. written by upstream OSWorld) is trusted as it is, as upstream does.
 * @throws {Error} naming the URL and the last attempt's cause after `attempts` failures.
 */
export async function ensureDownloadCached(
  url: string,
  cachePath: string,
  options: DownloadOptions = {},
): Promise<DownloadCacheResult> {
  const cached = await checkCached(cachePath);
  if (cached.valid) return { path: cachePath, cacheHit: true, size: cached.size };
  if (cached.reason)
    options.logger?.(`cache file ${cachePath} ${cached.reason}; downloading again`);
  if (options.offline) throw new OfflineCacheMissError(url, cachePath);
  const source = options.sourceUrl ?? url;

  const attempts = Math.max(1, options.attempts ?? 3);
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    options.abortSignal?.throwIfAborted();
    if (attempt > 0) {
      const delayMs = options.retryDelayMs?.(attempt - 1) ?? backoffDelayMs(attempt - 1);
      options.logger?.(
        `download of ${source} failed (${describe(lastError)}); attempt ${attempt + 1}/${attempts} in ${delayMs} ms`,
      );
      await sleep(delayMs, options.abortSignal);
    }
    try {
      const size = await downloadOnce(url, source, cachePath, options);
      return { path: cachePath, cacheHit: false, size };
    } catch (error) {
      if (options.abortSignal?.aborted) throw options.abortSignal.reason;
      lastError = error;
    }
  }
  const from = source === url ? '' : ` (from ${source})`;
  throw new Error(
    `download of ${url}${from} failed after ${attempts} attempts: ${describe(lastError)}`,
    {
      cause: lastError,
    },
  );
}

async function checkCached(
  cachePath: string,
): Promise<{ valid: true; size: number } | { valid: false; reason?: string }> {
  const info = await stat(cachePath).catch(() => undefined);
  if (!info?.isFile()) return { valid: false };
  const metadata = await readMetadata(cachePath);
  if (metadata && metadata.size !== info.size) {
    return {
      valid: false,
      reason: `has ${info.size} bytes but the server announced ${metadata.size}`,
    };
  }
  return { valid: true, size: info.size };
}

async function readMetadata(cachePath: string): Promise<CacheMetadata | undefined> {
  try {
    const json = JSON.parse(await readFile(metadataPath(cachePath), 'utf8')) as unknown;
    if (json && typeof json === 'object' && typeof (json as CacheMetadata).size === 'number') {
      return json as CacheMetadata;
    }
  } catch {
    // no record (or an unreadable one): trust the file, as upstream does
  }
  return undefined;
}

function metadataPath(cachePath: string): string {
  return `${cachePath}.meta.json`;
}

async function downloadOnce(
  url: string,
  source: string,
  cachePath: string,
  options: DownloadOptions,
): Promise<number> {
  const fetchImplementation = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 300_000;
  const timeoutSignal = AbortSignal.timeout(timeoutMs);
  const signal = options.abortSignal
    ? AbortSignal.any([options.abortSignal, timeoutSignal])
    : timeoutSignal;
  const directory = join(cachePath, '..');
  await mkdir(directory, { recursive: true });
  const temporaryPath = `${cachePath}.${randomUUID()}.part`;
  try {
    let response: Response;
    try {
      response = await fetchImplementation(source, { signal, redirect: 'follow' });
    } catch (error) {
      if (timeoutSignal.aborted) {
        throw new Error(`no answer within ${timeoutMs} ms`, { cause: error });
      }
      throw error;
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`HTTP ${response.status} ${response.statusText}`.trim());
    }
    const announced = Number(response.headers.get('content-length'));
    // with a content encoding, fetch decodes the body and Content-Length counts encoded bytes
    const expectedSize =
      response.headers.has('content-length') &&
      Number.isSafeInteger(announced) &&
      !response.headers.get('content-encoding')
        ? announced
        : undefined;
    let received = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        callback(null, chunk);
      },
    });
    try {
      await pipeline(
        Readable.fromWeb(response.body as WebReadableStream<Uint8Array>, { signal }),
        counter,
        createWriteStream(temporaryPath),
      );
    } catch (error) {
      if (timeoutSignal.aborted) {
        throw new Error(`transfer did not finish within ${timeoutMs} ms`, { cause: error });
      }
      throw error;
    }
    if (expectedSize !== undefined && received !== expectedSize) {
      throw new Error(`received ${received} bytes but Content-Length is ${expectedSize}`);
    }
    await rename(temporaryPath, cachePath);
    const metadata: CacheMetadata = {
      url,
      ...(source === url ? {} : { source }),
      size: received,
      downloadedAt: new Date().toISOString(),
    };
    await writeFile(metadataPath(cachePath), `${JSON.stringify(metadata)}\n`);
    return received;
  } finally {
    await rm(temporaryPath, { force: true });
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
