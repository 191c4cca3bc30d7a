import { SETUP_STEP_TYPES, isKnownSetupStepType, knownSetupStepSchema } from '@osharm/task-schema';
import { toJsonPath } from '@osharm/task-schema/internal';
import type { KnownSetupStep, SetupStepType } from '@osharm/task-schema';
import { closeChromeTabs, openChromeTabs } from './chrome-tabs';
import { GuestRequestError } from './desktop-env-errors';
import { defaultTaskCacheDir } from './download-cache';
import { sleep } from './backoff';
import { waitsForLaunch, waitUntilLaunched } from './launch-readiness';
import { executeStep, executeWithVerificationStep } from './setup-execute';
import { SetupStepError } from './setup-step-error';
import { StepFailure, tolerated, type StepRun } from './setup-step-run';
import type { SetupContext, SetupRunRecord, SetupStepRecord, SetupWarning } from './setup-context';
import { downloadStep, uploadFileStep, type SetupDownloadRecord } from './setup-transfer';
import {
  awaitWindow,
  followingActivation,
  type SetupWindowWait,
  type WindowTarget,
} from './setup-window-waits';

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
  const windowWaits: SetupWindowWait[] = [];
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
      recordWindowWait: wait => {
        const record = { phase, stepIndex: index, stepType, ...wait };
        windowWaits.push(record);
        return record;
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
      detail = await runStep(step, run, {
        recordDownload: download => downloads.push(download),
        next: followingActivation(steps, index),
        lastWait: windowWaits.at(-1),
      });
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
  return {
    phase,
    steps: records,
    durationMs: performance.now() - started,
    warnings,
    downloads,
    windowWaits,
  };
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

/** What a step sees of the steps around it. */
interface StepSurroundings {
  readonly recordDownload: (download: SetupDownloadRecord) => void;
  /** The activation that follows this step (sleeps skipped), if one does. */
  readonly next: WindowTarget | undefined;
  /** The latest wait for a window in this list, if any. */
  readonly lastWait: SetupWindowWait | undefined;
}

async function runStep(
  step: KnownSetupStep,
  run: StepRun,
  around: StepSurroundings,
): Promise<string | undefined> {
  const { client, abortSignal } = run.context;
  const failed = (ok: boolean) => (ok ? undefined : 'failed (a warning, as upstream)');
  const waited = (wait: SetupWindowWait | undefined) =>
    wait &&
    (wait.found
      ? `the window "${wait.window}" up after ${wait.waitedMs} ms`
      : `no window "${wait.window}" within ${wait.deadlineMs} ms`);
  switch (step.type) {
    case 'download':
      return downloadStep(step, run, around.recordDownload);
    case 'upload_file':
      return uploadFileStep(step, run);
    case 'open': {
      const opened = await tolerated(run, `opening ${step.parameters.path}`, () =>
        client.openFile(step.parameters.path, { abortSignal }),
      );
      if (!opened) return failed(false);
      return around.next ? waited(await awaitWindow(run, around.next)) : undefined;
    }
    case 'launch': {
      const { command, shell } = step.parameters;
      const launched = await tolerated(run, `launching ${JSON.stringify(command)}`, () =>
        client.launch(command, { shell: shell ?? false, abortSignal }),
      );
      if (!launched) return failed(false);
      if (waitsForLaunch(command) || !around.next) return waitUntilLaunched(command, run);
      return waited(await awaitWindow(run, around.next));
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
      // wait for the window first, unless the open / launch before it just did
      const waitedBefore =
        around.lastWait?.window === windowName && around.lastWait.stepType !== 'activate_window';
      const wait =
        step.type === 'activate_window' && !waitedBefore
          ? await awaitWindow(run, { windowName, strict: options.strict, byClass: options.byClass })
          : undefined;
      const done = await tolerated(run, `${verb} the window "${windowName}"`, () =>
        step.type === 'activate_window'
          ? client.activateWindow(windowName, options)
          : client.closeWindow(windowName, options),
      );
      return done ? waited(wait) : failed(false);
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
