import {
  SETUP_STEP_TYPES,
  isKnownSetupStepType,
  knownSetupStepSchema,
  toJsonPath,
} from '@osharm/task-schema';
import type { KnownSetupStep, SetupStepType } from '@osharm/task-schema';
import type { AssetSources } from './asset-map';
import { closeChromeTabs, openChromeTabs } from './chrome-tabs';
import { GuestRequestError } from './desktop-env-errors';
import { defaultTaskCacheDir } from './download-cache';
import type { GuestClient } from './guest-client';
import { sleep } from './backoff';
import { waitUntilLaunched } from './launch-readiness';
import { executeStep, executeWithVerificationStep } from './setup-execute';
import { SetupStepError } from './setup-step-error';
import { StepFailure, tolerated, type StepRun } from './setup-step-run';
import { downloadStep, uploadFileStep, type SetupDownloadRecord } from './setup-transfer';
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
  /** `launch` of an app with a splash (GIMP): waiting for its main window. */
  readonly launchReadiness?: {
    /** @default 60000 */
    readonly timeoutMs?: number;
    /** @default 500 */
    readonly intervalMs?: number;
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
  /** `download`: an asset map (local files, mirrors) and offline mode. */
  readonly assets?: AssetSources;
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

/**
 * A step failure that upstream only logs (reference/osworld-harness.md §2): the setup went on, and
 * the run may differ from upstream's where upstream's step succeeded.
 */
export interface SetupWarning {
  readonly phase: 'config' | 'postconfig';
  /** 0-based index of the step in its list. */
  readonly stepIndex: number;
  readonly stepType: string;
  readonly message: string;
}

/** What {@link runSetup} ran. */
export interface SetupRunRecord {
  readonly phase: 'config' | 'postconfig';
  readonly steps: readonly SetupStepRecord[];
  readonly durationMs: number;
  /** Tolerated failures, in order (empty when every step succeeded). */
  readonly warnings: readonly SetupWarning[];
  /** Where each `download` file came from. */
  readonly downloads: readonly SetupDownloadRecord[];
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

/**
 * Runs a task's `config` list or an evaluator's `postconfig` list against a running environment
 * (reference/osworld-harness.md §2), step by step. Each step is validated against its schema first.
 * Failures are fatal or tolerated as in upstream OS-Harm's setup controller (docs/packages/
 * desktop-env.md, "Setup semantics"): what upstream only logs (a failed `open`, `launch`,
 * `activate_window`, `close_window`, `change_wallpaper`, upload, `execute` request, page load of
 * `chrome_open_tabs`) is returned in `warnings` and the setup goes on; a command's non-zero exit
 * code is not a failure, as upstream.
 * @throws {SetupStepError} naming the step's number and type and the cause, at the first fatal
 * failure (a download that cannot be had, invalid parameters, no Chrome connection, …); also for
 * step types osharm does not run (`googledrive`, `login`, `update_browse_history`, `proxy`,
 * `tidy_desktop`, `act`, `replay`) and unknown ones.
 */
export async function runSetup(
  steps: readonly unknown[],
  context: SetupContext,
): Promise<SetupRunRecord> {
  const phase = context.phase ?? 'config';
  const warnings: SetupWarning[] = [];
  const downloads: SetupDownloadRecord[] = [];
  const started = performance.now();
  const records: SetupStepRecord[] = [];
  for (const [index, rawStep] of steps.entries()) {
    const stepType = stepTypeOf(rawStep);
    const run: StepRun = {
      context,
      cacheDir: context.cacheDir ?? defaultTaskCacheDir(context.taskId),
      endpoint: context.endpoint ?? context.client.endpoint,
      log: (level, message) => context.logger?.({ level, message }),
      warn: message => {
        warnings.push({ phase, stepIndex: index, stepType, message });
        context.logger?.({
          level: 'warn',
          message: `${phase} step ${index + 1} (${stepType}): ${message}`,
        });
      },
    };
    const startedAt = new Date();
    const stepStarted = performance.now();
    context.onStep?.({ type: 'step-start', phase, index, count: steps.length, stepType });
    run.log('info', `${phase} step ${index + 1}/${steps.length}: ${stepType}`);
    let detail: string | undefined;
    try {
      if (context.abortSignal?.aborted) throw context.abortSignal.reason;
      const step = validateStep(rawStep, stepType);
      detail = await runStep(step, run, download => downloads.push(download));
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
  return { phase, steps: records, durationMs: performance.now() - started, warnings, downloads };
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

async function runStep(
  step: KnownSetupStep,
  run: StepRun,
  recordDownload: (download: SetupDownloadRecord) => void,
): Promise<string | undefined> {
  const { client, abortSignal } = run.context;
  const failed = (ok: boolean) => (ok ? undefined : 'failed (a warning, as upstream)');
  switch (step.type) {
    case 'download':
      return downloadStep(step, run, recordDownload);
    case 'upload_file':
      return uploadFileStep(step, run);
    case 'open':
      return failed(
        await tolerated(run, `opening ${step.parameters.path}`, () =>
          client.openFile(step.parameters.path, { abortSignal }),
        ),
      );
    case 'launch': {
      const { command, shell } = step.parameters;
      const launched = await tolerated(run, `launching ${JSON.stringify(command)}`, () =>
        client.launch(command, { shell: shell ?? false, abortSignal }),
      );
      return launched ? waitUntilLaunched(command, run) : failed(false);
    }
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
      const verb = step.type === 'activate_window' ? 'activating' : 'closing';
      return failed(
        await tolerated(run, `${verb} the window "${windowName}"`, () =>
          step.type === 'activate_window'
            ? client.activateWindow(windowName, options)
            : client.closeWindow(windowName, options),
        ),
      );
    }
    case 'change_wallpaper':
      return failed(
        await tolerated(run, `setting the wallpaper ${step.parameters.path}`, () =>
          client.changeWallpaper(step.parameters.path, { abortSignal }),
        ),
      );
    case 'chrome_open_tabs': {
      const result = await openChromeTabs(step.parameters.urls_to_open, chromeOptions(run));
      for (const { url, error } of result.failedLoads) run.warn(`loading ${url} failed: ${error}`);
      return `opened ${result.opened.length} tab(s)${
        result.failedLoads.length > 0 ? `, ${result.failedLoads.length} failed to load` : ''
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
