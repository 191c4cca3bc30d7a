import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  DEFAULT_MAX_RETRIES,
  parseBaseUrl,
  parseRetries,
  parseTimeoutSeconds,
  redactor,
} from '@osharm/judge-cli';
import {
  formatSummary,
  parseShard,
  RUN_DEFAULTS,
  runBenchmark,
  UPSTREAM_ENV,
  type BundledProvider,
  type RunFlags,
} from '@osharm/runner';
import { BUNDLED_PROVIDERS, isOfflineModel, REAL_MODEL_HINT } from '@osharm/runner/internal';
import {
  ACTION_SPACES,
  JUDGE_TYPES,
  OBSERVATION_TYPES,
  PROMPT_VERSIONS,
} from '@osharm/task-schema';
import { resolveDataset } from '../dataset-options';
import { ExitCode, handle, type CliIo, type CliRun } from '../cli-io';
import { displayPath } from '../dataset-options';
import { addAssetOptions } from '../asset-options';
import {
  addGeminiSafetyOptions,
  geminiSafetyFrom,
  type GeminiSafetyFlags,
} from '../gemini-options';
import { runProgress } from '../run-progress';
import { onInterrupt } from '../run-interrupt';
import { withUpstream } from '../upstream-options';

/** The parsed flags of `osharm run`: the runner's options plus the CLI's own. */
interface RunCliFlags extends Omit<RunFlags, 'provider'> {
  provider: BundledProvider;
  /** Exit 1 when any run errored. @default true */
  failOnError: boolean;
}

const number =
  (name: string, { integer = false, min = 0 } = {}) =>
  (value: string) => {
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || (integer && !Number.isInteger(parsed)) || parsed < min) {
      throw new InvalidArgumentError(
        `${name} must be ${integer ? 'an integer' : 'a number'} ≥ ${min}`,
      );
    }
    return parsed;
  };
const shard = (value: string) => {
  try {
    return parseShard(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** `osharm run`: upstream's run.py on the embedded desktop (or VMware). */
export function runCommand(run: CliRun): Command {
  const io = run.io;
  return addGeminiSafetyOptions(addAssetOptions(new Command('run')))
    .description(
      "run the benchmark (upstream's run.py): each task on a fresh desktop, then judge it",
    )
    .option('--path-to-vm <vmx>', 'VMware .vmx (with --provider vmware)', RUN_DEFAULTS.pathToVm)
    .option('--headless', 'run VMware without a window (the local desktop is always headless)')
    .addOption(
      new Option('--action-space <space>', 'agent action space')
        .choices([...ACTION_SPACES])
        .default(RUN_DEFAULTS.actionSpace),
    )
    .addOption(
      new Option('--observation-type <type>', 'what the agent observes')
        .choices([...OBSERVATION_TYPES])
        .default(RUN_DEFAULTS.observationType),
    )
    .option(
      '--screen-width <px>',
      'screen width',
      number('--screen-width', { integer: true, min: 320 }),
      RUN_DEFAULTS.screenWidth,
    )
    .option(
      '--screen-height <px>',
      'screen height',
      number('--screen-height', { integer: true, min: 240 }),
      RUN_DEFAULTS.screenHeight,
    )
    .option(
      '--memory <MiB>',
      'local desktop: memory limit per desktop (default 4096)',
      number('--memory', { integer: true, min: 256 }),
    )
    .option(
      '--pids <n>',
      'local desktop: process limit per desktop (default 512)',
      number('--pids', { integer: true, min: 64 }),
    )
    .option(
      '--cpus <cores>',
      'local desktop: CPU limit per desktop (default: cores - 0.5)',
      number('--cpus', { min: 0.1 }),
    )
    .option(
      '--sleep-after-execution <s>',
      'seconds to wait after each action',
      number('--sleep-after-execution'),
      RUN_DEFAULTS.sleepAfterExecution,
    )
    .option(
      '--max-steps <n>',
      'agent steps per task',
      number('--max-steps', { integer: true, min: 1 }),
      RUN_DEFAULTS.maxSteps,
    )
    .option(
      '--max-trajectory-length <n>',
      'past steps in the agent prompt',
      number('--max-trajectory-length', { integer: true }),
      RUN_DEFAULTS.maxTrajectoryLength,
    )
    .option(
      '--test-config-base-dir <dir>',
      "dataset base dir (examples/{domain}/{id}.json; with --upstream: the checkout's evaluation_examples)",
      RUN_DEFAULTS.testConfigBaseDir,
    )
    .option(
      '--upstream <dir>',
      `an upstream OS-Harm checkout: the agent prompts, injection texts and jailbreak are read from it (prompt_family "upstream"); else ${UPSTREAM_ENV}`,
    )
    .option(
      '--model <model>',
      'agent model: gpt-*, o*, claude-*, gemini-* (native only), any OpenAI-compatible name, or offline-refuse / offline-replay:<dir> / offline-native:<script> (native)',
      RUN_DEFAULTS.model,
    )
    .addOption(
      new Option(
        '--agent <agent>',
        "prompt: upstream's agent (pyautogui code from a screenshot / a11y tree); native: the vendor's own computer-use tool (model dir {model}_native)",
      )
        .choices(['prompt', 'native'])
        .default(RUN_DEFAULTS.agent),
    )
    .option(
      '--computer-tool <version>',
      'native agent: the computer tool version (computer_20250124, computer_20251124, computer_toolset_20260801, computer, computer_use_preview, computer_use; default: by model)',
    )
    .addOption(
      new Option(
        '--safety-checks <policy>',
        'native agent: a vendor safety check (OpenAI pending_safety_checks, Gemini require_confirmation) is acknowledged, stops the run, or counts as a refusal',
      )
        .choices(['acknowledge', 'stop', 'refuse'])
        .default(RUN_DEFAULTS.safetyChecks),
    )
    .option(
      '--judge-model <model>',
      'judge model (claude* → Anthropic), or "none" to record only the deterministic evidence',
      RUN_DEFAULTS.judgeModel,
    )
    .addOption(
      new Option('--sys-prompt-version <version>', 'judge prompt version')
        .choices([...PROMPT_VERSIONS])
        .default(RUN_DEFAULTS.sysPromptVersion),
    )
    .addOption(
      new Option('--judge-type <type>', 'judge type')
        .choices([...JUDGE_TYPES])
        .default(RUN_DEFAULTS.judgeType),
    )
    .option(
      '--temperature <t>',
      `agent sampling temperature (default ${RUN_DEFAULTS.temperature}, sent only to models that take it; given explicitly, a model that refuses it stops the run)`,
      number('--temperature'),
    )
    .option(
      '--top-p <p>',
      `agent nucleus sampling (default ${RUN_DEFAULTS.topP}, as --temperature)`,
      number('--top-p'),
    )
    .option(
      '--max-tokens <n>',
      'agent max output tokens',
      number('--max-tokens', { integer: true, min: 1 }),
      RUN_DEFAULTS.maxTokens,
    )
    .option('--stop-token <token>', 'agent stop sequence')
    .option('--domain <domain>', 'only this domain', RUN_DEFAULTS.domain)
    .option('--test-all-meta-path <file>', 'task index file', RUN_DEFAULTS.testAllMetaPath)
    .option(
      '--jailbreak',
      'wrap instructions in the jailbreak template (model dir gets _jailbreak)',
    )
    .option(
      '--inject',
      'run every (vector, goal) of injection tasks (dirs get __inject__{vector}__{goal})',
    )
    .option('--result-dir <dir>', 'results root', RUN_DEFAULTS.resultDir)
    .addOption(
      new Option('--provider <provider>', 'where desktops come from')
        .choices([...BUNDLED_PROVIDERS])
        .default(RUN_DEFAULTS.provider),
    )
    .option(
      '--image <name>',
      'podman / docker / kubernetes: the desktop image (default localhost/osharm-desktop:<version>, built by scripts/build-desktop-image.sh; push it where the cluster pulls)',
    )
    .option(
      '--kube-namespace <ns>',
      "kubernetes: namespace of the desktop pods (default: the context's)",
    )
    .option(
      '--kube-context <name>',
      'kubernetes: kubeconfig context (default: the current one; inside a pod: its service account)',
    )
    .option(
      '--kube-warm-pool <n>',
      'kubernetes: ready pods each environment keeps in reserve, so a revert never waits for a cold start (default 0)',
      number('--kube-warm-pool', { integer: true, min: 0 }),
    )
    .option(
      '--kube-seccomp-profile <path>',
      "kubernetes: the desktop container's seccomp profile, installed on every node (Localhost, relative to the kubelet's seccomp directory): one that allows unprivileged user namespaces where the runtime's default refuses them (default: RuntimeDefault)",
    )
    .option(
      '--kube-host-users',
      "kubernetes: run the pods in the node's user namespace (clusters without user-namespace support): the agent then shares the observer's namespaces, and every run's observed_harm.json says so (default: hostUsers false, procMount Unmasked)",
    )
    .option(
      '--network',
      "give the desktops a network with a route out (local: slirp4netns user-mode networking, host loopback unreachable; podman / docker: the engine's network; kubernetes: no egress NetworkPolicy deny) (default: none)",
    )
    .option(
      '--num-envs <n>',
      'environments in parallel (local default: min(cores, available memory / 1 GiB); vmware: 1)',
      number('--num-envs', { integer: true, min: 1 }),
    )
    .option('--no-recording', 'do not record the screen (recording.mp4)')
    .option('--no-observe-harm', 'do not run the harm observer (observed_harm.json)')
    .option(
      '--recording-fps <n>',
      'local desktop: frames per second of the screen recording (default 10)',
      number('--recording-fps', { integer: true, min: 1 }),
    )
    .option('--task <id>', 'only this task id (repeatable)', collect)
    .option('--limit <n>', 'at most this many runs', number('--limit', { integer: true, min: 1 }))
    .option(
      '--shard <K/N>',
      'run only slice K of N (1-based) of the planned runs (after --task, --domain, --inject and --limit: run i goes to shard i mod N + 1); join the N result trees with osharm merge',
      shard,
    )
    .option(
      '--time-limit <s>',
      'wall-clock limit per task in seconds',
      number('--time-limit', { min: 1 }),
      RUN_DEFAULTS.timeLimit,
    )
    .option(
      '--settle <s>',
      'seconds to wait after setup (and twice that after an injection); upstream: 5',
      number('--settle'),
      RUN_DEFAULTS.settle,
    )
    .option(
      '--base-url <url>',
      'agent model base URL (else OSHARM_AGENT_BASE_URL, else OPENAI_BASE_URL / ANTHROPIC_BASE_URL)',
      parseBaseUrl,
    )
    .option(
      '--judge-base-url <url>',
      'judge model base URL (else OSHARM_JUDGE_BASE_URL, else OPENAI_BASE_URL / ANTHROPIC_BASE_URL)',
      parseBaseUrl,
    )
    .option(
      '--captioner-model <model>',
      'screenshot captioner of the aer / all_step_aer / captioned_default judges',
      RUN_DEFAULTS.captionerModel,
    )
    .option(
      '--captioner-base-url <url>',
      'captioner base URL (else OSHARM_CAPTIONER_BASE_URL, else OPENAI_BASE_URL / ANTHROPIC_BASE_URL)',
      parseBaseUrl,
    )
    .option(
      '--max-retries <n>',
      `HTTP retries per model request, every role (429, 5xx, dropped connections, timeouts; default ${DEFAULT_MAX_RETRIES})`,
      parseRetries,
    )
    .option(
      '--timeout <s>',
      'per model request timeout in seconds, every role (default: agent 600, judge and captioner 120)',
      parseTimeoutSeconds,
    )
    .option('--no-fail-on-error', 'exit 0 even when some run errored (default: exit 1)')
    .addHelpText(
      'after',
      `
Examples:
  $ osharm run --model offline-refuse --judge-model none --test-all-meta-path evaluation_examples/test_misuse.json
  $ OPENAI_API_KEY=… osharm run --model gpt-4.1 --observation-type screenshot_a11y_tree --test-all-meta-path evaluation_examples/test_injection.json --inject
  $ osharm run --provider vmware --path-to-vm vmware_vm_data/Ubuntu0/Ubuntu0.vmx --headless --model o4-mini --jailbreak
  $ osharm run --model offline-refuse --judge-model none --shard 2/4 --result-dir results-2   # then: osharm merge results-* --into results

Results: {result_dir}/{action_space}/{observation_type}/{model}[_jailbreak]/{domain}/{task}[__inject__{vector}__{goal}]/
Runs whose result.txt holds a score are skipped; other run dirs are cleared and run again (upstream's resume).
A run whose agent model call fails after the retries ends as an error ({"Error": …} line in
traj.jsonl, no result.txt): never scored or judged, listed in the summary, run again on resume.
Exit codes: 0 every run finished, 1 some run errored (unless --no-fail-on-error), 2 usage or setup
error (bad flag, missing index / replay dir / .vmx, no API key, a missing desktop app), 130 stopped by
Ctrl-C / SIGTERM (the running runs end as errors, the desktops are closed; a rerun resumes; a second
Ctrl-C quits at once).`,
    )
    .action(
      handle(run, (flags: RunCliFlags, command: Command) =>
        runAction(withUpstream(flags, command, io), io, command.getOptionValueSource('pathToVm')),
      ),
    );
}

async function runAction(
  flags: RunCliFlags,
  rawIo: CliIo,
  pathToVmSource: string | undefined,
): Promise<number> {
  // API keys never reach the terminal, even when a provider's error text echoes one.
  const redact = redactor(rawIo.env);
  const io: CliIo = {
    ...rawIo,
    stdout: text => rawIo.stdout(redact(text)),
    stderr: text => rawIo.stderr(redact(text)),
  };
  // The checks that need no desktop run once, in the runner, in this order, one message each:
  // keys, models (retired models, refused sampling and computer tools stop there; an end of life
  // within 60 days or a model not in the table prints its line at once), flags; then the dataset
  // flags (the CLI's check, shared by its commands) in `afterChecks`.
  const onModelNotices = (notices: readonly string[]) => {
    for (const notice of notices) io.stderr(`warning: ${notice}\n`);
  };
  const afterChecks = async () => {
    await resolveDataset(
      {
        testConfigBaseDir: flags.testConfigBaseDir,
        testAllMetaPath: [flags.testAllMetaPath],
        domain: flags.domain,
      },
      io,
    );
  };
  const {
    failOnError,
    geminiDisableSafetyPolicy: _disabled,
    geminiPromptInjectionDetection: _detection,
    ...options
  } = flags as RunCliFlags & GeminiSafetyFlags;
  const geminiSafety = geminiSafetyFrom(flags as GeminiSafetyFlags);
  const progress = runProgress(io);
  const interrupt = onInterrupt(io);
  let summary;
  try {
    summary = await runBenchmark(
      {
        ...options,
        ...(geminiSafety && { geminiSafety }),
        // Only a --path-to-vm given on the command line counts as given (it is refused without vmware).
        pathToVm: pathToVmSource === 'cli' ? flags.pathToVm : undefined,
        cwd: io.cwd,
        env: io.env,
      },
      { onEvent: progress.onEvent, signal: interrupt.signal, onModelNotices, afterChecks },
    );
  } finally {
    interrupt.dispose();
    progress.stop();
  }
  io.stdout(
    formatSummary(summary, {
      judgeModel: flags.judgeModel,
      resultDir: displayPath(io, resolve(io.cwd, flags.resultDir)),
    }),
  );
  if (summary.aborted) return ExitCode.interrupted;
  if (isOfflineModel(flags.model)) io.stderr(`\n${REAL_MODEL_HINT}\n`);
  return summary.failed && failOnError ? ExitCode.invalidData : ExitCode.ok;
}
