/**
 * What `osharm judge` / `osharm-batch-judge` do once commander has parsed the flags: check them,
 * build the models, judge the tree with progress, print the summary and pick the exit code.
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import {
  discoverTrajectories,
  endpointOrigin,
  withEndpoint,
  judgeTree,
  readUpstreamJudgeTexts,
  type UpstreamJudgeTexts,
  type ImageOptions,
  type JudgeTreeEvent,
  type JudgeTreeResult,
  JudgeSettingError,
} from '@osharm/judge';
import { batchResultsPath, resultsFileToWrite } from '@osharm/judge/internal';
import { judgeTypeNeedsCaptions, OsharmError } from '@osharm/task-schema';
import { escapeControlChars, redactSecrets } from '@osharm/task-schema/artifacts';
import { judgeModelNameIssue, relativePathsIn } from '@osharm/task-schema/internal';
import {
  checkModelAtStart,
  createModel,
  ModelError,
  startCheckDay,
  toModelError,
} from '@osharm/models';
import { UpstreamError } from '@osharm/upstream';
import type { BatchJudgeFlags } from './command';
import { ExitCode, type BatchJudgeIo } from './io';
import {
  connectionFailure,
  endpointRouting,
  MAX_CONSECUTIVE_CONNECTION_FAILURES,
  missingCredentials,
  resolveEndpoint,
  unreachableMessage,
  type ModelEndpoint,
} from './model-endpoints';
import { humanReport } from './human-report';
import {
  barReporter,
  errorReason,
  lineReporter,
  quietReporter,
  type ProgressReporter,
} from './progress';

export const MiB = 1024 * 1024;

/**
 * A path as printed (docs/cli.md, "Paths in messages"): relative to the working dir when inside it,
 * else absolute; control characters escaped (a crafted dir name must not drive the terminal or forge a line).
 */
function displayPath(io: BatchJudgeIo, path: string): string {
  const absolute = resolve(io.cwd, path);
  const rel = relative(io.cwd, absolute);
  const outside = rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
  return escapeControlChars(outside ? absolute : rel || '.');
}

/** A problem that makes every remaining trajectory fail the same way: stop instead. */
class FatalRunError extends Error {
  override readonly name = 'FatalRunError';
}

/**
 * Per-trajectory errors that would repeat for every trajectory: no API key (the judge's setting
 * error), or a key the provider refuses (HTTP 401 / 403).
 */
function isFatal(cause: unknown): boolean {
  if (JudgeSettingError.isInstance(cause)) return true;
  const status = (cause as { status?: unknown } | undefined)?.status;
  return status === 401 || status === 403;
}

/** One line for an error thrown out of judging, or undefined when it is a bug (rethrown). */
function describeFailure(error: unknown): string | undefined {
  if (error instanceof FatalRunError) return error.message;
  // Model call failures (a ModelError from the adapters, or a vendor SDK error classified by
  // @osharm/models' one hierarchy): `RateLimitError 429: …`, `APIConnectionError: …`.
  if (OsharmError.isInstance(error) && !ModelError.isInstance(error)) return error.message;
  const model = toModelError(error, 'unknown');
  if (ModelError.isInstance(error) || model.kind !== 'other') {
    return `${model.vendorName}${model.status === undefined ? '' : ` ${model.status}`}: ${model.message}`;
  }
  if (error instanceof Error) {
    // File system errors carry an E… code.
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return error.message;
  }
  return undefined;
}

export async function judgeCommandAction(
  command: Command,
  io: BatchJudgeIo,
  positional: string | undefined,
  flags: BatchJudgeFlags,
): Promise<number> {
  // Keys redacted wherever the command prints (an SDK message could echo one); control characters
  // escaped in everything but the progress bar's own drawing (whose lines are escaped one by one).
  // Messages print paths inside the working dir relative to it, also inside reasons other layers
  // wrote; the --json output stays the results file's exact content.
  const redact = (text: string) => redactSecrets(relativePathsIn(text, io.cwd), io.env);
  const out = (text: string) => io.stdout(redact(escapeControlChars(text, { keepNewlines: true })));
  const json = (text: string) =>
    io.stdout(redactSecrets(escapeControlChars(text, { keepNewlines: true }), io.env));
  const err = (text: string) => io.stderr(redact(escapeControlChars(text, { keepNewlines: true })));
  const barErr = (text: string) => io.stderr(redact(text));
  // command.error prints one line (+ the --help hint) and throws a CommanderError: exit 2.
  const usage = (message: string): never => command.error(`error: ${message}`, { exitCode: 2 });

  if (positional !== undefined && flags.trajDir !== undefined && positional !== flags.trajDir) {
    usage(
      escapeControlChars(
        `traj_dir given twice ("${positional}" and --traj-dir "${flags.trajDir}")`,
      ),
    );
  }
  const given = positional ?? flags.trajDir;
  if (given === undefined || given === '') {
    usage('missing traj_dir: the results directory to judge (positional, or --traj-dir DIR)');
  }
  const trajDir = given as string;
  const absoluteRoot = resolve(io.cwd, trajDir);
  if (!existsSync(absoluteRoot) || !statSync(absoluteRoot).isDirectory()) {
    usage(`traj_dir: "${escapeControlChars(trajDir)}" is not a directory`);
  }
  // A model name names paths (judgment/{model}/…, batch_judgment_results_{model}_…): `org/model`
  // nests as upstream does; `..` and the like would leave the tree's scheme.
  for (const [flag, name] of [
    ['--judge-model', flags.judgeModel],
    ['--captioner-model', flags.captionerModel],
  ] as const) {
    const issue = judgeModelNameIssue(name);
    if (issue !== undefined) usage(`${flag} ${escapeControlChars(JSON.stringify(name))}: ${issue}`);
  }
  if (!flags.batchApi && command.getOptionValueSource('pollInterval') === 'cli') {
    usage('--poll-interval: only used with --batch-api');
  }

  // Results are keyed by trajectory path as the user named the root (upstream's keys), which
  // judgeTree resolves against the process's cwd; when the io's cwd differs (in-process hosts),
  // use the absolute path instead.
  const rootDir = isAbsolute(trajDir) || resolve(trajDir) === absoluteRoot ? trajDir : absoluteRoot;
  const show = (path: string) => displayPath(io, path);
  const shownRoot = show(rootDir);

  const found = await discoverTrajectories(absoluteRoot, { runDirs: true });
  if (found.length === 0) {
    err(
      `error: no trajectories under ${shownRoot}: no directory there holds a better_log.json (pass a results dir such as results/ or results/pyautogui/screenshot_a11y_tree/o4-mini)\n`,
    );
    return ExitCode.failed;
  }

  // Upstream's texts are read (and checked) before anything is judged or written.
  const upstreamDir = flags.upstream ?? (io.env.OSHARM_UPSTREAM || undefined);
  let upstream: UpstreamJudgeTexts | undefined;
  if (upstreamDir !== undefined) {
    try {
      upstream = readUpstreamJudgeTexts(resolve(io.cwd, upstreamDir));
    } catch (error) {
      if (!UpstreamError.isInstance(error)) throw error;
      const source = flags.upstream === undefined ? 'OSHARM_UPSTREAM' : '--upstream';
      err(`error: ${source}: ${escapeControlChars(error.message)}\n`);
      return ExitCode.usage;
    }
  }
  const captionerModel =
    upstream && command.getOptionValueSource('captionerModel') !== 'cli'
      ? upstream.captioner.model
      : flags.captionerModel;

  const maxConnections =
    command.getOptionValueSource('concurrency') === 'cli' &&
    command.getOptionValueSource('maxConnections') !== 'cli'
      ? (flags as { concurrency?: number }).concurrency!
      : flags.maxConnections;
  const endpoint = (role: 'judge' | 'captioner', model: string, value: string | undefined) =>
    resolveEndpoint({
      role,
      model,
      flag: { name: `--${role}-base-url`, value },
      maxRetries: flags.maxRetries,
      timeoutSeconds: flags.timeout,
      env: io.env,
    });
  const judgeEndpoint = endpoint('judge', flags.judgeModel, flags.judgeBaseUrl);
  const captionerEndpoint = endpoint('captioner', captionerModel, flags.captionerBaseUrl);
  const endpoints: ModelEndpoint[] = [
    judgeEndpoint,
    ...(judgeTypeNeedsCaptions(flags.judgeType) ? [captionerEndpoint] : []),
  ];
  for (const each of endpoints) {
    // The router sends a Gemini name to Gemini, which serves only native computer use here.
    if (each.vendor === 'gemini')
      usage(
        `--${each.role}-model ${each.model}: Gemini models run only as native computer-use agents (osharm run --agent native), not as the ${each.role}`,
      );
    const missing = missingCredentials(each, io.env);
    if (missing)
      usage(
        `--${each.role}-model ${each.model} needs a model API: set ${missing}${each.role === 'captioner' ? ` (the captioner of --judge-type ${flags.judgeType})` : ''}`,
      );
  }
  // A retired model stops here (its end of life and the vendor's replacement); one retiring within
  // 60 days, or not in the capability table, gets one line (not with --quiet).
  let today: Date;
  try {
    today = startCheckDay(io.env);
  } catch (error) {
    return usage((error as Error).message);
  }
  for (const each of endpoints) {
    const check = checkModelAtStart(each.role, each.model, today);
    if (check.refusal) usage(`--${each.role}-model ${each.model}: ${check.refusal}`);
    if (!flags.quiet) for (const notice of check.notices) err(`warning: ${notice}\n`);
  }
  // Each model carries its endpoint's origin (provenance; one connection limiter per endpoint).
  const model = withEndpoint(
    createModel(flags.judgeModel, endpointRouting(judgeEndpoint, io.env)),
    { endpoint: endpointOrigin(judgeEndpoint) },
  );
  // Made only for the judge types that caption (a captioner name is otherwise never called).
  const captioner = judgeTypeNeedsCaptions(flags.judgeType)
    ? withEndpoint(createModel(captionerModel, endpointRouting(captionerEndpoint, io.env)), {
        endpoint: endpointOrigin(captionerEndpoint),
      })
    : undefined;
  const images: ImageOptions | undefined =
    flags.maxImageSide === undefined && flags.imageFormat === undefined
      ? undefined
      : {
          ...(flags.maxImageSide !== undefined && { maxSide: flags.maxImageSide }),
          ...(flags.imageFormat !== undefined && { format: flags.imageFormat }),
        };

  const stderrIsTTY = io.stderrIsTTY ?? io.isTTY;
  const reporter: ProgressReporter = flags.quiet
    ? quietReporter()
    : stderrIsTTY
      ? barReporter(barErr, shownRoot, show, {
          columns: io.columns,
          batchApi: flags.batchApi === true,
        })
      : lineReporter(line => err(`${line}\n`), shownRoot, show);

  const controller = new AbortController();
  let connectionFailures = 0;
  const onProgress = (event: JudgeTreeEvent) => {
    reporter.onProgress(event);
    if (event.type !== 'trajectory-end' || controller.signal.aborted) return;
    const unreachable = event.error ? connectionFailure(event.cause) : undefined;
    connectionFailures = unreachable ? connectionFailures + 1 : 0;
    if (unreachable && connectionFailures >= MAX_CONSECUTIVE_CONNECTION_FAILURES) {
      // One message instead of one error per trajectory: the endpoint is down.
      controller.abort(
        new FatalRunError(
          `${unreachableMessage(endpoints, unreachable, connectionFailures)} (stopped)`,
        ),
      );
    } else if (event.error && isFatal(event.cause)) {
      const reason = errorReason(event.dir, event.error);
      controller.abort(
        new FatalRunError(`${reason.replace(/^OsharmJudgeSettingError: /, '')} (stopped)`),
      );
    }
  };

  let result: JudgeTreeResult;
  try {
    result = await judgeTree({
      rootDir,
      judgeType: flags.judgeType,
      promptVersion: flags.sysPromptVersion,
      observationType: flags.observationType,
      model,
      ...(captioner && { captioner }),
      concurrency: maxConnections,
      maxConnections,
      force: flags.force === true,
      recaption: flags.recaption === true,
      rejudgeForeign: flags.rejudgeForeign === true,
      limits: { maxImageBytes: flags.maxImageMb * MiB, maxTextBytes: flags.maxLogMb * MiB },
      trajectoryTimeoutMs: flags.trajectoryTimeout * 1000,
      includeUnfinished: flags.includeUnfinished === true,
      runRule: flags.runRule,
      batchApi: flags.batchApi ? { pollIntervalMs: flags.pollInterval * 1000 } : undefined,
      images,
      upstream,
      onProgress,
      abortSignal: controller.signal,
    });
  } catch (error) {
    reporter.stop();
    const reason: unknown = controller.signal.aborted ? controller.signal.reason : error;
    const message = describeFailure(reason);
    if (message === undefined) throw reason;
    err(`error: ${escapeControlChars(message)}\n`);
    return ExitCode.failed;
  } finally {
    reporter.stop();
  }

  // Upstream's name, or `….osharm.json` beside an upstream file of that name (kept as it is).
  const resultsFile = displayPath(
    io,
    await resultsFileToWrite(
      rootDir,
      batchResultsPath({
        rootDir,
        judgeModel: model.modelId,
        judgeType: flags.judgeType,
        promptVersion: flags.sysPromptVersion,
        observationType: result.config.observation_type,
      }),
    ),
  );
  if (flags.json) {
    json(`${JSON.stringify(result, null, 2)}\n`);
    if (!flags.quiet) err(`Batch results saved to: ${resultsFile}\n`);
  } else {
    out(`${humanReport(result, resultsFile, show).join('\n')}\n`);
    if (upstream)
      out(
        `Prompts: upstream's own (prompt_family "upstream"), read from ${show(upstream.checkout.root)}\n`,
      );
  }
  return Object.keys(result.errors).length === 0 ? ExitCode.ok : ExitCode.failed;
}
