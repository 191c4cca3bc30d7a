import { readFile } from 'node:fs/promises';
import { type SetupStepOf } from '@osharm/task-schema';
import { resolveTaskAsset } from '@osharm/task-schema/internal';
import { downloadHint } from './asset-map';
import { GuestRequestError } from './desktop-env-errors';
import { downloadCachePath, ensureDownloadCached } from './download-cache';
import { sleep } from './backoff';
import { errorMessage, StepFailure, type StepRun } from './setup-step-run';

/** Where one `download` file came from. */
export interface SetupDownloadRecord {
  readonly url: string;
  /** The file's path in the guest. */
  readonly guestPath: string;
  /**
   * `cache`: already in the cache dir; `network`: fetched from `url`; `mirror`: fetched from the
   * asset map's URL; `asset-map`: read from the asset map's local file.
   */
  readonly source: 'cache' | 'network' | 'mirror' | 'asset-map';
  /** The host file that was uploaded. */
  readonly localPath: string;
  /** False when the upload failed (a warning, as upstream). */
  readonly uploaded: boolean;
}

/**
 * `download`: each file from the asset map's local file, else the host cache
 * (`<cacheDir>/<uuid5(url)>_<basename>`, fetched from the URL or its mirror when missing), then
 * uploaded. A file that cannot be had is fatal (upstream raises); a failed upload is a warning
 * (upstream only logs it).
 */
export async function downloadStep(
  step: SetupStepOf<'download'>,
  run: StepRun,
  record: (download: SetupDownloadRecord) => void,
): Promise<string> {
  const { context } = run;
  const settings = context.settings?.download;
  const sources = context.assets ?? {};
  let cacheHits = 0;
  for (const file of step.parameters.files) {
    const cachePath = downloadCachePath(run.cacheDir, file.url, file.path);
    const target = sources.assetMap?.get(file.url);
    let localPath = cachePath;
    let source: SetupDownloadRecord['source'];
    if (target?.kind === 'file') {
      localPath = target.path;
      source = 'asset-map';
    } else {
      let cached;
      try {
        cached = await ensureDownloadCached(file.url, cachePath, {
          ...(context.fetch ? { fetch: context.fetch } : {}),
          ...(settings?.attempts === undefined ? {} : { attempts: settings.attempts }),
          ...(settings?.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
          ...(settings?.retryDelayMs ? { retryDelayMs: settings.retryDelayMs } : {}),
          ...(context.abortSignal ? { abortSignal: context.abortSignal } : {}),
          ...(target ? { sourceUrl: target.url } : {}),
          offline: sources.offline ?? false,
          logger: message => run.log('warn', message),
        });
      } catch (cause) {
        if (context.abortSignal?.aborted) throw cause;
        throw new StepFailure(`failed: ${errorMessage(cause)}; ${downloadHint(cachePath)}`, {
          cause,
        });
      }
      if (cached.cacheHit) cacheHits++;
      source = cached.cacheHit ? 'cache' : target ? 'mirror' : 'network';
    }
    let data: Buffer;
    try {
      data = await readFile(localPath);
    } catch (cause) {
      throw new StepFailure(
        `cannot read ${localPath} (the asset map's file for ${file.url}): ${errorMessage(cause)}`,
        { cause },
      );
    }
    run.log('debug', `${source}: ${file.url} → ${localPath} (${data.length} bytes)`);
    const uploaded = await uploadWithRetry(file.path, data, run);
    record({ url: file.url, guestPath: file.path, source, localPath, uploaded });
  }
  return `${step.parameters.files.length} file(s), ${cacheHits} from the cache`;
}

/**
 * `upload_file`: uploads dataset assets. An asset path that leaves the dataset is fatal (a crafted
 * task); a missing asset ends the step with a warning and a failed upload is a warning, as
 * upstream only logs both.
 */
export async function uploadFileStep(
  step: SetupStepOf<'upload_file'>,
  run: StepRun,
): Promise<string> {
  let uploaded = 0;
  for (const [fileIndex, file] of step.parameters.files.entries()) {
    const resolved = resolveTaskAsset(file.local_path, { baseDir: run.context.baseDir });
    if (!resolved.ok) {
      const message = `cannot upload files[${fileIndex}].local_path "${file.local_path}": ${resolved.message}`;
      if (resolved.reason === 'unsafe') throw new StepFailure(message);
      // upstream logs a missing local file and returns: the files after it are not uploaded either
      run.warn(`${message}; the step ends here, as upstream's`);
      break;
    }
    if (await uploadWithRetry(file.path, await readFile(resolved.path), run)) uploaded++;
  }
  return `${uploaded} of ${step.parameters.files.length} file(s) uploaded`;
}

/**
 * Uploads with a few attempts: writing the same bytes to the same path again is harmless, so a
 * refused connection or a 5xx is retried at this level (the client itself never retries uploads).
 * The last failure is a warning, as upstream only logs it. Returns whether the upload went up.
 */
async function uploadWithRetry(
  guestPath: string,
  data: Uint8Array,
  run: StepRun,
): Promise<boolean> {
  const { client, abortSignal, settings } = run.context;
  const attempts = Math.max(1, settings?.uploadAttempts ?? 3);
  for (let attempt = 1; ; attempt++) {
    try {
      await client.uploadFile(guestPath, data, { abortSignal });
      return true;
    } catch (error) {
      if (abortSignal?.aborted) throw error;
      const retryable =
        GuestRequestError.isInstance(error) &&
        (error.isRetryable || (error.status !== undefined && error.status >= 500));
      if (attempt >= attempts || !retryable) {
        run.warn(`upload of ${guestPath} failed: ${errorMessage(error)}`);
        return false;
      }
      const delayMs = settings?.uploadRetryDelayMs?.(attempt) ?? 1000 * 2 ** (attempt - 1);
      run.log('warn', `upload of ${guestPath} failed (${errorMessage(error)}); retrying`);
      await sleep(delayMs, abortSignal);
    }
  }
}
