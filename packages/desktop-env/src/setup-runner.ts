import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import {
  SETUP_STEP_TYPES,
  isKnownSetupStepType,
  knownSetupStepSchema,
  resolveTaskAsset,
  toJsonPath,
} from '@osharm/task-schema';
import type { KnownSetupStep, SetupStepOf, SetupStepType } from '@osharm/task-schema';
import { closeChromeTabs, openChromeTabs } from './chrome-tabs';
import { GuestRequestError } from './desktop-env-errors';
import { defaultTaskCacheDir, downloadCachePath, ensureDownloadCached } from './download-cache';
import type { ExecuteResult, GuestClient } from './guest-client';
import { sleep } from './guest-client-undici';
import { substituteSetupPlaceholders } from './setup-placeholders';
import { SetupStepError } from './setup-step-error';
import type { GuestEndpoint } from './vm-provider';

/** A log line of the setup runner. */
export interface SetupLogEntry {
  readonly level: 'debug' | 'info' | 'warn';
  readonly message: string;
}

/** Progress of {@link runSetup}, one event at the start and one at the end of every step. */
export type SetupStepEvent =
  | {
      readonly type: 'step-start';
      readonly phase: 'config' | 'postconfig';
      readonly index: number;
      readonly count: number;
      readonly stepType: string;
    }
  | {
      readonly type: 'step-end';
      readonly phase: 'config' | 'postconfig';
      readonly index: number;
      readonly count: number;
      readonly stepType: string;
      readonly durationMs: number;
      readonly error?: SetupStepError;
    };

/** Tuning of the steps; every value has upstream's default. */
export interface SetupRunnerSettings {
  /** `download`: attempts and per-attempt timeout of the host-side download. */
  readonly download?: {
    /** @default 3 */
    readonly attempts?: number;
    /** @default 300000 */
    readonly timeoutMs?: number;
    /** Delay before attempt n+1; by default min(0.5·2^n, 8) s with ≤25 % jitter. */
    readonly retryDelayMs?: (attempt: number) => number;
  };
  /**
   * Attempts of one upload (`download`, `upload_file`) after a connection error or HTTP 5xx; the
   * pause before attempt n+1 is 2^(n-1) s, as upstream's `upload_file`. @default 3
   */
  readonly uploadAttempts?: number;
  /** Pause before upload attempt n+1 in ms. @default 1000·2^(n-1) */
  readonly uploadRetryDelayMs?: (attempt: number) => number;
  /** `execute` / `command` with `until`: polling. */
  readonly until?: {
    /** Pause between polls in ms. @default 300 */
    readonly intervalMs?: number;
    /** Give up (and fail the step) when the condition has not held after this long. @default 120000 */
    readonly timeoutMs?: number;
    /** Give up after this many failed requests. @default 5 (upstream) */
    readonly maxFailures?: number;
  };
  /** `chrome_open_tabs` / `chrome_close_tabs`: the CDP connection. */
  readonly chrome?: {
    /** @default 15 */
    readonly connectAttempts?: number;
    /** @default 5000 */
    readonly connectIntervalMs?: number;
    /** @default 30000 */
    readonly connectTimeoutMs?: number;
    /** @default 60000 */
    readonly gotoTimeoutMs?: number;
  };
}

/** What {@link runSetup} needs besides the steps. */
export interface SetupContext {
  /** The guest protocol client of the running environment. */
  readonly client: GuestClient;
  /** The environment's endpoint (Chrome DevTools URL, screen size). @default client.endpoint */
  readonly endpoint?: GuestEndpoint;
  /** The task's id: names the default cache directory. */
  readonly taskId: string;
  /** The dataset's base directory: `upload_file` assets resolve against it, then its parent. */
  readonly baseDir: string;
  /** Host directory of downloads and `execute` outputs. @default `cache/<taskId>` */
  readonly cacheDir?: string;
  /** Which list runs: named in errors and events. @default 'config' */
  readonly phase?: 'config' | 'postconfig';
  readonly abortSignal?: AbortSignal;
  readonly logger?: (entry: SetupLogEntry) => void;
  /** Called at the start and the end of each step. */
  readonly onStep?: (event: SetupStepEvent) => void;
  /** Value of `{CLIENT_PASSWORD}`. @default 'password' (the guest account of the upstream images) */
  readonly clientPassword?: string;
  /** Value of the `{SCREEN_*}` placeholders. @default endpoint.screen, else 1920×1080 */
  readonly screen?: { readonly width: number; readonly height: number };
  /** Fetch used by `download`. @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
  readonly settings?: SetupRunnerSettings;
}

/** One step that ran. */
export interface SetupStepRecord {
  readonly index: number;
  readonly type: string;
  /** ISO time the step started. */
  readonly startedAt: string;
  readonly durationMs: number;
  /** A short account of what the step did (e.g. which downloads came from the cache). */
  readonly detail?: string;
}

/** What {@link runSetup} ran. */
export interface SetupRunRecord {
  readonly phase: 'config' | 'postconfig';
  readonly steps: readonly SetupStepRecord[];
  readonly durationMs: number;
}

/** Why each step type osharm does not run is refused. */
const UNSUPPORTED_REASONS: Partial<Record<SetupStepType, string>> = {
  googledrive:
    'it changes a real Google Drive account with OAuth credentials, which a reproducible offline run does not have; leave Google Drive tasks out (upstream ships test_nogdrive.json for this)',
  login:
    "it signs a real Google account in to Google Drive in the guest's Chrome, which a reproducible offline run does not have; leave Google Drive tasks out",
  update_browse_history:
    "upstream builds Chrome's History database from a template it downloads from the Hugging Face file cache at run time; osharm does not fetch it",
  proxy:
    "it installs tinyproxy with apt in the guest and routes traffic through upstream's paid proxy pool; osharm runs without a proxy",
  tidy_desktop: 'upstream declares this step type but never implemented it',
  act: 'upstream declares this step type but never implemented it',
  replay: 'upstream declares this step type but never implemented it',
};

interface StepRun {
  readonly context: SetupContext;
  readonly cacheDir: string;
  readonly endpoint: GuestEndpoint;
  readonly log: (level: SetupLogEntry['level'], message: string) => void;
}

/**
 * Runs a task's `config` list or an evaluator's `postconfig` list against a running environment
 * (reference/osworld-harness.md §2), step by step. Each step is validated against its schema first.
 * Unlike upstream, a step whose request fails never passes silently (upstream only logged failures
 * of `launch`, `activate_window`, `close_window`, `change_wallpaper` and of `execute` without
 * `until`); a command's non-zero exit code is not a failure, as upstream.
 * @throws {SetupStepError} naming the step's number and type and the cause, at the first failure;
 * also for step types osharm does not run (`googledrive`, `login`, `update_browse_history`, `proxy`,
 * `tidy_desktop`, `act`, `replay`) and unknown ones.
 */
export async function runSetup(
  steps: readonly unknown[],
  context: SetupContext,
): Promise<SetupRunRecord> {
  const phase = context.phase ?? 'config';
  const run: StepRun = {
    context,
    cacheDir: context.cacheDir ?? defaultTaskCacheDir(context.taskId),
    endpoint: context.endpoint ?? context.client.endpoint,
    log: (level, message) => context.logger?.({ level, message }),
  };
  const started = performance.now();
  const records: SetupStepRecord[] = [];
  for (const [index, rawStep] of steps.entries()) {
    const stepType = stepTypeOf(rawStep);
    const startedAt = new Date();
    const stepStarted = performance.now();
    context.onStep?.({ type: 'step-start', phase, index, count: steps.length, stepType });
    run.log('info', `${phase} step ${index + 1}/${steps.length}: ${stepType}`);
    let detail: string | undefined;
    try {
      if (context.abortSignal?.aborted) throw context.abortSignal.reason;
      const step = validateStep(rawStep, stepType);
      detail = await runStep(step, run);
    } catch (cause) {
      const error = toStepError(cause, {
        index,
        stepType,
        phase,
        abortSignal: context.abortSignal,
      });
      context.onStep?.({
        type: 'step-end',
        phase,
        index,
        count: steps.length,
        stepType,
        durationMs: performance.now() - stepStarted,
        error,
      });
      throw error;
    }
    const durationMs = performance.now() - stepStarted;
    records.push({
      index,
      type: stepType,
      startedAt: startedAt.toISOString(),
      durationMs,
      ...(detail === undefined ? {} : { detail }),
    });
    context.onStep?.({ type: 'step-end', phase, index, count: steps.length, stepType, durationMs });
  }
  return { phase, steps: records, durationMs: performance.now() - started };
}

/** A failure inside a step, before it is wrapped with the step's number and type. */
class StepFailure extends Error {
  readonly unsupported: boolean;
  constructor(message: string, options: { cause?: unknown; unsupported?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.unsupported = options.unsupported ?? false;
  }
}

function stepTypeOf(step: unknown): string {
  if (step && typeof step === 'object' && typeof (step as { type?: unknown }).type === 'string') {
    return (step as { type: string }).type;
  }
  return '<no type>';
}

function validateStep(step: unknown, stepType: string): KnownSetupStep {
  if (!isKnownSetupStepType(stepType)) {
    throw new StepFailure(
      `is not a setup step type osharm knows (known: ${SETUP_STEP_TYPES.join(', ')})`,
      { unsupported: true },
    );
  }
  const reason = UNSUPPORTED_REASONS[stepType];
  if (reason) throw new StepFailure(`is not supported by osharm: ${reason}`, { unsupported: true });
  const parsed = knownSetupStepSchema.safeParse(step);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map(issue => `${toJsonPath(issue.path)}: ${issue.message}`)
      .join('; ');
    throw new StepFailure(`has invalid parameters: ${issues}`);
  }
  return parsed.data;
}

function toStepError(
  cause: unknown,
  where: {
    index: number;
    stepType: string;
    phase: 'config' | 'postconfig';
    abortSignal?: AbortSignal;
  },
): SetupStepError {
  if (SetupStepError.isInstance(cause)) return cause;
  const base = { stepIndex: where.index, stepType: where.stepType, phase: where.phase };
  if (where.abortSignal?.aborted) {
    return new SetupStepError({ ...base, message: 'was aborted', cause: where.abortSignal.reason });
  }
  if (cause instanceof StepFailure) {
    return new SetupStepError({
      ...base,
      message: cause.message,
      cause: cause.cause,
      unsupported: cause.unsupported,
      isRetryable: GuestRequestError.isInstance(cause.cause) && cause.cause.isRetryable,
    });
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return new SetupStepError({
    ...base,
    message: `failed: ${message}`,
    cause,
    isRetryable: GuestRequestError.isInstance(cause) && cause.isRetryable,
  });
}

async function runStep(step: KnownSetupStep, run: StepRun): Promise<string | undefined> {
  const { client, abortSignal } = run.context;
  switch (step.type) {
    case 'download':
      return downloadStep(step, run);
    case 'upload_file':
      return uploadFileStep(step, run);
    case 'open':
      await client.openFile(step.parameters.path, { abortSignal });
      return undefined;
    case 'launch':
      await client.launch(step.parameters.command, {
        shell: step.parameters.shell ?? false,
        abortSignal,
      });
      return undefined;
    case 'execute':
    case 'command':
      return executeStep(step, run);
    case 'execute_with_verification':
      return executeWithVerificationStep(step, run);
    case 'sleep':
      await sleep(step.parameters.seconds * 1000, abortSignal);
      return undefined;
    case 'activate_window':
    case 'close_window': {
      const { window_name: windowName, strict, by_class: byClass } = step.parameters;
      const options = { strict: strict ?? false, byClass: byClass ?? false, abortSignal };
      if (step.type === 'activate_window') await client.activateWindow(windowName, options);
      else await client.closeWindow(windowName, options);
      return undefined;
    }
    case 'change_wallpaper':
      await client.changeWallpaper(step.parameters.path, { abortSignal });
      return undefined;
    case 'chrome_open_tabs': {
      const result = await openChromeTabs(step.parameters.urls_to_open, chromeOptions(run));
      return `opened ${result.opened.length} tab(s)${
        result.timedOut.length > 0 ? `, ${result.timedOut.length} past the navigation timeout` : ''
      }`;
    }
    case 'chrome_close_tabs': {
      const closed = await closeChromeTabs(step.parameters.urls_to_close, chromeOptions(run));
      return `closed ${closed.length} tab(s)`;
    }
    default:
      // validateStep refused every other type already
      throw new StepFailure('is not supported by osharm', { unsupported: true });
  }
}

async function downloadStep(step: SetupStepOf<'download'>, run: StepRun): Promise<string> {
  const { context } = run;
  const settings = context.settings?.download;
  let cacheHits = 0;
  for (const file of step.parameters.files) {
    const cachePath = downloadCachePath(run.cacheDir, file.url, file.path);
    let cached;
    try {
      cached = await ensureDownloadCached(file.url, cachePath, {
        ...(context.fetch ? { fetch: context.fetch } : {}),
        ...(settings?.attempts === undefined ? {} : { attempts: settings.attempts }),
        ...(settings?.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
        ...(settings?.retryDelayMs ? { retryDelayMs: settings.retryDelayMs } : {}),
        ...(context.abortSignal ? { abortSignal: context.abortSignal } : {}),
        logger: message => run.log('warn', message),
      });
    } catch (cause) {
      throw new StepFailure(`failed: ${errorMessage(cause)}`, { cause });
    }
    if (cached.cacheHit) cacheHits++;
    run.log(
      'debug',
      `${cached.cacheHit ? 'cached' : 'downloaded'} ${file.url} → ${cachePath} (${cached.size} bytes)`,
    );
    await uploadWithRetry(file.path, await readFile(cachePath), run);
  }
  return `${step.parameters.files.length} file(s), ${cacheHits} from the cache`;
}

async function uploadFileStep(step: SetupStepOf<'upload_file'>, run: StepRun): Promise<string> {
  for (const [fileIndex, file] of step.parameters.files.entries()) {
    const resolved = resolveTaskAsset(file.local_path, { baseDir: run.context.baseDir });
    if (!resolved.ok) {
      throw new StepFailure(
        `cannot upload files[${fileIndex}].local_path "${file.local_path}": ${resolved.message}`,
      );
    }
    await uploadWithRetry(file.path, await readFile(resolved.path), run);
  }
  return `${step.parameters.files.length} file(s)`;
}

/**
 * Uploads with a few attempts: writing the same bytes to the same path again is harmless, so a
 * refused connection or a 5xx is retried at this level (the client itself never retries uploads).
 */
async function uploadWithRetry(guestPath: string, data: Uint8Array, run: StepRun): Promise<void> {
  const { client, abortSignal, settings } = run.context;
  const attempts = Math.max(1, settings?.uploadAttempts ?? 3);
  for (let attempt = 1; ; attempt++) {
    try {
      await client.uploadFile(guestPath, data, { abortSignal });
      return;
    } catch (error) {
      const retryable =
        GuestRequestError.isInstance(error) &&
        (error.isRetryable || (error.status !== undefined && error.status >= 500));
      if (attempt >= attempts || !retryable || abortSignal?.aborted) {
        throw new StepFailure(`failed to upload ${guestPath}: ${errorMessage(error)}`, {
          cause: error,
        });
      }
      const delayMs = settings?.uploadRetryDelayMs?.(attempt) ?? 1000 * 2 ** (attempt - 1);
      run.log('warn', `upload of ${guestPath} failed (${errorMessage(error)}); retrying`);
      await sleep(delayMs, abortSignal);
    }
  }
}

async function executeStep(
  step: SetupStepOf<'execute'> | SetupStepOf<'command'>,
  run: StepRun,
): Promise<string> {
  const { client, abortSignal } = run.context;
  const parameters = step.parameters;
  const screen = run.context.screen ?? run.endpoint.screen ?? { width: 1920, height: 1080 };
  const command = substituteSetupPlaceholders(parameters.command, {
    clientPassword: run.context.clientPassword ?? 'password',
    screenWidth: screen.width,
    screenHeight: screen.height,
  });
  const outputFiles = {
    stdout: parameters.stdout ? cacheOutputPath(run.cacheDir, parameters.stdout, 'stdout') : '',
    stderr: parameters.stderr ? cacheOutputPath(run.cacheDir, parameters.stderr, 'stderr') : '',
  };
  const until =
    parameters.until && Object.keys(parameters.until).length > 0 ? parameters.until : undefined;
  const untilSettings = run.context.settings?.until;
  const intervalMs = untilSettings?.intervalMs ?? 300;
  const deadline = performance.now() + (untilSettings?.timeoutMs ?? 120_000);
  const maxFailures = untilSettings?.maxFailures ?? 5;
  let failures = 0;
  let polls = 0;
  let last: ExecuteResult | undefined;
  for (;;) {
    polls++;
    let result: ExecuteResult | undefined;
    try {
      result = await client.execute(command, {
        shell: parameters.shell ?? false,
        setup: true,
        abortSignal,
      });
    } catch (error) {
      failures++;
      if (!until || failures >= maxFailures || abortSignal?.aborted) {
        throw new StepFailure(
          `failed: ${errorMessage(error)}${until ? ` (${failures} failed request(s) while polling)` : ''}`,
          { cause: error },
        );
      }
      run.log('warn', `execute request failed (${errorMessage(error)}); polling again`);
    }
    if (result) {
      last = result;
      await writeOutputs(outputFiles, result);
      if (!until) return `exit code ${result.returncode}`;
      if (untilHolds(until, result)) return `condition held after ${polls} poll(s)`;
    }
    if (performance.now() + intervalMs > deadline) {
      throw new StepFailure(
        `failed: the until condition ${JSON.stringify(until)} did not hold within ${
          untilSettings?.timeoutMs ?? 120_000
        } ms (${polls} poll(s)${
          last
            ? `; last exit code ${last.returncode}, stdout ${JSON.stringify(excerpt(last.output))}`
            : ''
        })`,
      );
    }
    await sleep(intervalMs, abortSignal);
  }
}

function untilHolds(
  until: { returncode?: number; stdout?: string; stderr?: string },
  result: ExecuteResult,
): boolean {
  return (
    (until.returncode !== undefined && result.returncode === until.returncode) ||
    (until.stdout !== undefined && result.output.includes(until.stdout)) ||
    (until.stderr !== undefined && result.error.includes(until.stderr))
  );
}

/** `stdout` / `stderr` name a file in the cache dir; refuse names that would leave it. */
function cacheOutputPath(cacheDir: string, name: string, field: string): string {
  if (isAbsolute(name) || name.split(/[\\/]/).includes('..')) {
    throw new StepFailure(
      `cannot write ${field} to "${name}": the name must be a relative path inside the cache directory`,
    );
  }
  return join(cacheDir, name);
}

async function writeOutputs(
  files: { stdout: string; stderr: string },
  result: ExecuteResult,
): Promise<void> {
  for (const [path, text] of [
    [files.stdout, result.output],
    [files.stderr, result.error],
  ] as const) {
    if (!path) continue;
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, text);
  }
}

async function executeWithVerificationStep(
  step: SetupStepOf<'execute_with_verification'>,
  run: StepRun,
): Promise<string> {
  const { client, abortSignal } = run.context;
  if (!client.executeWithVerification) {
    throw new StepFailure(
      'cannot run: the guest client has no executeWithVerification (an older guest protocol)',
    );
  }
  const parameters = step.parameters;
  const result = await client.executeWithVerification(parameters.command, {
    shell: parameters.shell ?? false,
    ...(parameters.verification ? { verification: parameters.verification } : {}),
    ...(parameters.max_wait_time === undefined ? {} : { maxWaitTime: parameters.max_wait_time }),
    ...(parameters.check_interval === undefined
      ? {}
      : { checkInterval: parameters.check_interval }),
    abortSignal,
  });
  return `verification ${result.verification || 'done'} after ${result.wait_time} s`;
}

function chromeOptions(run: StepRun) {
  const cdpUrl = run.endpoint.chromiumUrl;
  if (!cdpUrl) {
    throw new StepFailure(
      'cannot run: the environment exposes no Chrome DevTools endpoint (GuestEndpoint.chromiumUrl)',
    );
  }
  const settings = run.context.settings?.chrome;
  return {
    cdpUrl,
    ...settings,
    ...(run.context.abortSignal ? { abortSignal: run.context.abortSignal } : {}),
    logger: (message: string) => run.log('warn', message),
  };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function excerpt(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
