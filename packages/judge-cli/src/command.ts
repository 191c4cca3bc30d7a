import { existsSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  batchResultsPath,
  createJudgeModel,
  DEFAULT_CAPTION_MODEL,
  DEFAULT_TRAJECTORY_TIMEOUT_MS,
  discoverTrajectories,
  judgeTree,
  resultsFileToWrite,
  type ImageOptions,
  type JudgeTreeEvent,
  type JudgeTreeResult,
  JudgeSettingError,
} from '@osharm/judge';
import {
  DEFAULT_FILE_LIMITS,
  PUBLISHED_RUNS_OBSERVATION_TYPE,
  DEFAULT_JUDGE_TYPE,
  DEFAULT_PROMPT_VERSION,
  escapeControlChars,
  JUDGE_TYPES,
  judgeTypeNeedsCaptions,
  OBSERVATION_TYPES,
  OsharmError,
  PROMPT_VERSIONS,
  redactSecrets,
  type JudgeType,
  type ObservationType,
  type PromptVersion,
} from '@osharm/task-schema';
import { ModelError, toModelError } from '@osharm/models';
import { ExitCode, type BatchJudgeIo, type BatchJudgeRun } from './io';
import {
  connectionFailure,
  endpointRouting,
  MAX_CONSECUTIVE_CONNECTION_FAILURES,
  missingCredentials,
  parseBaseUrl,
  parseRetries,
  parseTimeoutSeconds,
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

/** The parsed flags of the command (kebab-case flags, camelCase keys). */
export interface BatchJudgeFlags {
  trajDir?: string;
  observationType: ObservationType;
  sysPromptVersion: PromptVersion;
  judgeModel: string;
  judgeType: JudgeType;
  quiet?: boolean;
  maxConnections: number;
  force?: boolean;
  includeUnfinished?: boolean;
  maxRetries?: number;
  timeout?: number;
  judgeBaseUrl?: string;
  captionerBaseUrl?: string;
  rejudgeForeign?: boolean;
  batchApi?: boolean;
  pollInterval: number;
  captionerModel: string;
  maxImageSide?: number;
  imageFormat?: 'png' | 'jpeg' | 'webp';
  json?: boolean;
  maxImageMb: number;
  maxLogMb: number;
  trajectoryTimeout: number;
}

export const IMAGE_FORMATS = ['png', 'jpeg', 'webp'] as const;

const positiveInteger = (value: string): number => {
  const number = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(number) || number < 1) {
    throw new InvalidArgumentError('expected an integer >= 1.');
  }
  return number;
};

const positiveSeconds = (value: string): number => {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number <= 0) {
    throw new InvalidArgumentError('expected a number of seconds > 0.');
  }
  return number;
};

const positiveMegabytes = (value: string): number => {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number <= 0 || number > 1024 * 1024) {
    throw new InvalidArgumentError('expected a number of MiB > 0.');
  }
  return number;
};

const MiB = 1024 * 1024;

/**
 * A path as printed: relative to the working dir unless that climbs more than one level, control
 * characters escaped (a crafted dir name must not drive the terminal or forge a line).
 */
function displayPath(io: BatchJudgeIo, path: string): string {
  const absolute = resolve(io.cwd, path);
  const rel = relative(io.cwd, absolute);
  return escapeControlChars(rel.startsWith(`..${sep}..`) ? absolute : rel || '.');
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

/**
 * The batch judge as a commander command named `name`: `osharm-batch-judge` (its own program) and
 * `osharm judge` (a subcommand of apps/cli) are both this. Its action never throws for user
 * errors: bad flags go through commander (exit 2), everything else prints one line and sets
 * `run.exitCode`. Only a bug escapes.
 */
export function batchJudgeCommand(run: BatchJudgeRun, name: string): Command {
  const io = run.io;
  const command = new Command(name)
    .description(
      "judge every trajectory under a results tree (upstream's run_judge_batch): writes each judgment.json and a batch results file",
    )
    .argument(
      '[traj_dir]',
      'root directory to search; every dir below holding better_log.json is judged',
    )
    .option('--traj-dir <dir>', 'the same as the positional traj_dir (upstream README spelling)')
    .addOption(
      new Option(
        '--observation-type <type>',
        'observations given to the default / captioned_default / a11y_tree judges',
      )
        .choices(OBSERVATION_TYPES)
        .default(PUBLISHED_RUNS_OBSERVATION_TYPE),
    )
    .addOption(
      new Option('--sys-prompt-version <version>', 'judge system prompt version')
        .choices(PROMPT_VERSIONS)
        .default(DEFAULT_PROMPT_VERSION),
    )
    .option(
      '--judge-model <model>',
      'judge model: claude* → Anthropic, anything else → OpenAI (or OPENAI_BASE_URL)',
      'gpt-4.1',
    )
    .addOption(
      new Option('--judge-type <type>', 'judging strategy')
        .choices(JUDGE_TYPES)
        .default(DEFAULT_JUDGE_TYPE),
    )
    .option('--quiet', 'no progress output, only the final summary')
    .option(
      '--max-connections <n>',
      'trajectories judged at once (concurrent model connections; Inspect spelling)',
      positiveInteger,
      8,
    )
    .addOption(
      new Option('--concurrency <n>', 'the same as --max-connections (older spelling)')
        .argParser(positiveInteger)
        .hideHelp(),
    )
    .option(
      '--force',
      're-judge trajectories that already have a judgment for these settings, and make their captions again (no cached caption is reused)',
    )
    .option(
      '--include-unfinished',
      'also judge runs with no result.txt and no error line (e.g. traces copied without result.txt); errored runs are never judged',
    )
    .option(
      '--max-retries <n>',
      'HTTP retries per model request (429, 5xx, dropped connections, timeouts)',
      parseRetries,
    )
    .option('--timeout <seconds>', 'per model request timeout (default 120)', parseTimeoutSeconds)
    .option(
      '--judge-base-url <url>',
      'base URL of the judge model (else OSHARM_JUDGE_BASE_URL, else OPENAI_BASE_URL / ANTHROPIC_BASE_URL)',
      parseBaseUrl,
    )
    .option(
      '--captioner-base-url <url>',
      'base URL of the captioner (else OSHARM_CAPTIONER_BASE_URL, else OPENAI_BASE_URL / ANTHROPIC_BASE_URL)',
      parseBaseUrl,
    )
    .option(
      '--rejudge-foreign',
      "judge again trajectories whose judgment path holds a verdict of another provenance (upstream's, or osharm's with other settings); the old file is kept and the new verdict goes to a sibling dir (judgment/{model}/{type}/{version}.osharm…/)",
    )
    .option(
      '--batch-api',
      "send the judge requests through the provider's batch API (half price, up to 24 h; resumable)",
    )
    .option(
      '--poll-interval <seconds>',
      'with --batch-api: seconds between batch status checks',
      positiveSeconds,
      30,
    )
    .option(
      '--captioner-model <model>',
      'screenshot captioner of aer / all_step_aer / captioned_default (routed like --judge-model)',
      DEFAULT_CAPTION_MODEL,
    )
    .option(
      '--max-image-side <px>',
      'scale screenshots down so the longer side is at most PX (default: as stored)',
      positiveInteger,
    )
    .addOption(
      new Option(
        '--image-format <format>',
        're-encode screenshots as this format (default: as stored)',
      ).choices(IMAGE_FORMATS),
    )
    .option(
      '--max-image-mb <MiB>',
      'refuse screenshots larger than this (a refused screenshot is judged as missing)',
      positiveMegabytes,
      DEFAULT_FILE_LIMITS.maxImageBytes / MiB,
    )
    .option(
      '--max-log-mb <MiB>',
      'refuse better_log.json, traj.jsonl and other trajectory text files larger than this (the trajectory fails)',
      positiveMegabytes,
      DEFAULT_FILE_LIMITS.maxTextBytes / MiB,
    )
    .option(
      '--trajectory-timeout <seconds>',
      'wall-clock limit on judging one trajectory (captions + judge calls); past it the trajectory fails and the batch goes on',
      positiveSeconds,
      DEFAULT_TRAJECTORY_TIMEOUT_MS / 1000,
    )
    .option('--json', 'print the batch results JSON to stdout instead of the summary')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: text => io.stdout(text),
      writeErr: text => io.stderr(text),
    })
    .addHelpText('after', ({ command: self }) => {
      // `osharm judge` or `osharm-batch-judge`: the full name as typed.
      const full = [self.parent?.name(), self.name()].filter(Boolean).join(' ');
      return `
Examples:
  $ ${full} results/
  $ ${full} results/ --judge-type aer --judge-model gpt-4.1 --sys-prompt-version v3
  $ ${full} --traj_dir results/pyautogui/screenshot_a11y_tree/o4-mini --judge_model claude-3-7-sonnet-20250219
  $ ${full} results/ --batch-api --poll-interval 60

Writes {traj}/judgment/{judge_model}/{judge_type}/{version}/judgment.json for each trajectory and
{traj_dir}/batch_judgment_results_{judge_model}_{judge_type}_{version}.json (with
--observation-type a11y_tree --judge-type default: under a11_tree_default/, as upstream).
Trajectories already judged with the same model, type and version are read, not judged again.
Every file a trajectory names must be a regular file inside its dir (no .., absolute path,
symlink, FIFO or device) and under the size caps; screenshots must be images by content.
Runs that errored (traj.jsonl ends with an {"Error": …} line) or are unfinished (no result.txt) are
listed with their reason, never judged or counted (--include-unfinished judges the unfinished ones).
Env: OPENAI_API_KEY, OPENAI_BASE_URL (vLLM, Ollama, a proxy), ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
OSHARM_JUDGE_BASE_URL, OSHARM_CAPTIONER_BASE_URL; a .env file in the working dir is read.
Upstream snake_case flags (--judge_type …) are accepted too.
Exit codes: 0 every finished trajectory judged, 1 some trajectory failed (see "errors"), none was
found, or the endpoint could not be reached, 2 usage or setup error (bad flag, no API key).`;
    });
  command.action(async (positional: string | undefined, flags: BatchJudgeFlags) => {
    run.exitCode = Math.max(run.exitCode, await judgeCommandAction(command, io, positional, flags));
  });
  return command;
}

async function judgeCommandAction(
  command: Command,
  io: BatchJudgeIo,
  positional: string | undefined,
  flags: BatchJudgeFlags,
): Promise<number> {
  // Keys redacted wherever the command prints (an SDK message could echo one); control characters
  // escaped in everything but the progress bar's own drawing (whose lines are escaped one by one).
  const redact = (text: string) => redactSecrets(text, io.env);
  const out = (text: string) => io.stdout(redact(escapeControlChars(text, { keepNewlines: true })));
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
  if (flags.judgeModel.trim() === '') usage('--judge-model: must not be empty');
  if (flags.captionerModel.trim() === '') usage('--captioner-model: must not be empty');
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
  const captionerEndpoint = endpoint('captioner', flags.captionerModel, flags.captionerBaseUrl);
  const endpoints: ModelEndpoint[] = [
    judgeEndpoint,
    ...(judgeTypeNeedsCaptions(flags.judgeType) ? [captionerEndpoint] : []),
  ];
  for (const each of endpoints) {
    const missing = missingCredentials(each, io.env);
    if (missing)
      usage(
        `--${each.role}-model ${each.model} needs a model API: set ${missing}${each.role === 'captioner' ? ` (the captioner of --judge-type ${flags.judgeType})` : ''}`,
      );
  }
  const model = createJudgeModel(flags.judgeModel, endpointRouting(judgeEndpoint, io.env));
  const captioner = createJudgeModel(
    flags.captionerModel,
    endpointRouting(captionerEndpoint, io.env),
  );
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
      captioner,
      concurrency: maxConnections,
      force: flags.force === true,
      rejudgeForeign: flags.rejudgeForeign === true,
      limits: { maxImageBytes: flags.maxImageMb * MiB, maxTextBytes: flags.maxLogMb * MiB },
      trajectoryTimeoutMs: flags.trajectoryTimeout * 1000,
      includeUnfinished: flags.includeUnfinished === true,
      batchApi: flags.batchApi ? { pollIntervalMs: flags.pollInterval * 1000 } : undefined,
      images,
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
        observationType: flags.observationType,
      }),
    ),
  );
  if (flags.json) {
    out(`${JSON.stringify(result, null, 2)}\n`);
    if (!flags.quiet) err(`Batch results saved to: ${resultsFile}\n`);
  } else {
    out(`${humanReport(result, resultsFile, show).join('\n')}\n`);
  }
  return Object.keys(result.errors).length === 0 ? ExitCode.ok : ExitCode.failed;
}
