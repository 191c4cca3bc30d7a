import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_CAPTION_MODEL, type RunRule } from '@osharm/judge';
import { DEFAULT_TRAJECTORY_TIMEOUT_MS } from '@osharm/judge/internal';
import {
  DEFAULT_JUDGE_MODEL,
  DEFAULT_JUDGE_TYPE,
  DEFAULT_PROMPT_VERSION,
  JUDGE_TYPES,
  OBSERVATION_TYPES,
  PROMPT_VERSIONS,
  PUBLISHED_RUNS_OBSERVATION_TYPE,
  type JudgeType,
  type ObservationType,
  type PromptVersion,
} from '@osharm/task-schema';
import { DEFAULT_FILE_LIMITS } from '@osharm/task-schema/trajectory';
import { type BatchJudgeRun } from './io';
import { parseBaseUrl, parseRetries, parseTimeoutSeconds } from './model-endpoints';
import { judgeCommandAction, MiB } from './judge-action';

/** The parsed flags of the command (kebab-case flags, camelCase keys). */
export interface BatchJudgeFlags {
  trajDir?: string;
  /** Undefined when not given: each run's own (see `judgeTree`). */
  observationType?: ObservationType;
  sysPromptVersion: PromptVersion;
  judgeModel: string;
  judgeType: JudgeType;
  quiet?: boolean;
  maxConnections: number;
  force?: boolean;
  recaption?: boolean;
  includeUnfinished?: boolean;
  runRule: RunRule;
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
  upstream?: string;
}

export const IMAGE_FORMATS = ['png', 'jpeg', 'webp'] as const;
const RUN_RULES: readonly RunRule[] = ['auto', 'osharm', 'upstream'];

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
        "observations given to the default / captioned_default judges; given, it wins over each run's own (the results' notes name the runs it overrides)",
      )
        .choices(OBSERVATION_TYPES)
        .default(
          undefined,
          `each run's own, as osharm recorded it; ${PUBLISHED_RUNS_OBSERVATION_TYPE} for runs osharm did not write, as upstream`,
        ),
    )
    .addOption(
      new Option('--sys-prompt-version <version>', 'judge system prompt version')
        .choices(PROMPT_VERSIONS)
        .default(DEFAULT_PROMPT_VERSION),
    )
    .option(
      '--judge-model <model>',
      'judge model: claude* → Anthropic, anything else → OpenAI (or OPENAI_BASE_URL)',
      DEFAULT_JUDGE_MODEL,
    )
    .addOption(
      new Option('--judge-type <type>', 'judging strategy')
        .choices(JUDGE_TYPES)
        .default(DEFAULT_JUDGE_TYPE),
    )
    .option('--quiet', 'no progress output, only the final summary')
    .option(
      '--max-connections <n>',
      'model requests in flight per endpoint, judge calls and captions together (one limiter per provider endpoint); also trajectories judged at once (Inspect spelling)',
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
      're-judge trajectories that already have a judgment for these settings (captions still come from the cache; see --recaption)',
    )
    .option(
      '--recaption',
      'make every screenshot caption again instead of reading the caption cache (captions/{captioner}/ in each trajectory)',
    )
    .option(
      '--include-unfinished',
      "also judge osharm's own runs with no result.txt and no error line (osharm's errored runs are never judged)",
    )
    .addOption(
      new Option(
        '--run-rule <rule>',
        "which runs without result.txt are judged: auto = osharm's own runs only when finished, runs osharm did not write (upstream's, published traces) as upstream's batch judge does (every dir with a better_log.json); osharm / upstream = that rule for every run",
      )
        .choices(RUN_RULES)
        .default('auto'),
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
    .option(
      '--upstream <dir>',
      "an upstream OS-Harm checkout: judge with upstream's own prompts and message layout, read from it (else OSHARM_UPSTREAM; see docs/upstream.md)",
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
  $ ${full} results/ --upstream ../os-harm --judge-type aer --sys-prompt-version v3

Writes {traj}/judgment/{judge_model}/{judge_type}/{version}/judgment.json for each trajectory and
{traj_dir}/batch_judgment_results_{judge_model}_{judge_type}_{version}.json (with
observation type a11y_tree and --judge-type default: under a11_tree_default/, as upstream).
Trajectories already judged with the same model, type and version are read, not judged again.
Every file a trajectory names must be a regular file inside its dir (no .., absolute path,
symlink, FIFO or device) and under the size caps; screenshots must be images by content.
Runs without result.txt: a run osharm did not write (upstream's, published traces) is judged as
upstream's batch judge does, with a note; osharm's own runs that errored (traj.jsonl ends with an
{"Error": …} line) or are unfinished are listed with their reason, never judged or counted
(--include-unfinished judges the unfinished ones; --run-rule osharm|upstream applies one rule to all).
A judge model named org/model nests one dir deeper, as upstream; names with '..' are refused.
Env: OPENAI_API_KEY, OPENAI_BASE_URL (vLLM, Ollama, a proxy), ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
OSHARM_JUDGE_BASE_URL, OSHARM_CAPTIONER_BASE_URL, OSHARM_UPSTREAM (as --upstream); a .env file in
the working dir is read.
With --upstream the system prompts, the judge type's message layout and the captioner's prompt are
upstream's own, read from the checkout; judgment.json records prompt_family "upstream" and each
source file's sha256. A checkout that is not one, lacks a symbol or has a non-UTF-8 file stops the
command before anything is written (exit 2).
Upstream snake_case flags (--judge_type …) are accepted too.
Exit codes: 0 every finished trajectory judged, 1 some trajectory failed (see "errors"), none was
found, or the endpoint could not be reached, 2 usage or setup error (bad flag, no API key, a bad
--upstream checkout).`;
    });
  command.action(async (positional: string | undefined, flags: BatchJudgeFlags) => {
    run.exitCode = Math.max(run.exitCode, await judgeCommandAction(command, io, positional, flags));
  });
  return command;
}
