import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { Command, InvalidArgumentError, Option } from 'commander';
import { createDesktopEnv, type AssetSources, type VmProviderV1 } from '@osharm/desktop-env';
import { DEFAULT_CAPTION_MODEL } from '@osharm/judge';
import { jailbreakModelDir } from '@osharm/injection';
import {
  ACTION_SPACES,
  escapeControlChars,
  JUDGE_TYPES,
  loadDataset,
  OBSERVATION_TYPES,
  PROMPT_VERSIONS,
  type TaskConfig,
} from '@osharm/task-schema';
import { capacityWarning, createLocalProvider, localDesktopCapacity } from '@osharm/vm-local';
import { createVmwareProvider } from '@osharm/vm-vmware';
import { createContainerProvider } from '@osharm/vm-container';
import {
  DEFAULT_MAX_RETRIES,
  parseBaseUrl,
  parseRetries,
  parseTimeoutSeconds,
  redactor,
} from '@osharm/batch-judge';
import { createAgent, isOfflineModel, modelDirName, REAL_MODEL_HINT } from '../agent-choice';
import { resolveDataset } from '../dataset-options';
import { RunBreaker } from '../run-breaker';
import { checkLocalDesktop, checkRunFlags, runEndpoints } from '../run-prechecks';
import { ExitCode, handle, UsageError, type CliIo, type CliRun } from '../cli-io';
import { displayPath } from '../dataset-options';
import { addAssetOptions, missingOfflineDownloads, resolveAssetOptions } from '../asset-options';
import type { RunFlags } from '../run-flags';
import { runOne, type RunOutcome } from '../run-one';
import { planRuns } from '../run-plan';
import { printSummary } from '../run-summary';

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
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** `osharm run`: upstream's run.py on the embedded desktop (or VMware). */
export function runCommand(run: CliRun): Command {
  const io = run.io;
  return addAssetOptions(new Command('run'))
    .description(
      "run the benchmark (upstream's run.py): each task on a fresh desktop, then judge it",
    )
    .option(
      '--path-to-vm <vmx>',
      'VMware .vmx (with --provider vmware)',
      'vmware_vm_data/Ubuntu0/Ubuntu0.vmx',
    )
    .option('--headless', 'run VMware without a window (the local desktop is always headless)')
    .addOption(
      new Option('--action-space <space>', 'agent action space')
        .choices([...ACTION_SPACES])
        .default('pyautogui'),
    )
    .addOption(
      new Option('--observation-type <type>', 'what the agent observes')
        .choices([...OBSERVATION_TYPES])
        .default('a11y_tree'),
    )
    .option(
      '--screen-width <px>',
      'screen width',
      number('--screen-width', { integer: true, min: 320 }),
      1920,
    )
    .option(
      '--screen-height <px>',
      'screen height',
      number('--screen-height', { integer: true, min: 240 }),
      1080,
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
      0,
    )
    .option(
      '--max-steps <n>',
      'agent steps per task',
      number('--max-steps', { integer: true, min: 1 }),
      15,
    )
    .option(
      '--max-trajectory-length <n>',
      'past steps in the agent prompt',
      number('--max-trajectory-length', { integer: true }),
      3,
    )
    .option(
      '--test-config-base-dir <dir>',
      'dataset base dir (examples/{domain}/{id}.json)',
      'evaluation_examples',
    )
    .option(
      '--model <model>',
      'agent model: gpt-*, o*, claude-*, any OpenAI-compatible name, or offline-refuse / offline-replay:<dir>',
      'gpt-4o',
    )
    .option(
      '--judge-model <model>',
      'judge model (claude* → Anthropic), or "none" to record only the deterministic evidence',
      'gpt-4.1',
    )
    .addOption(
      new Option('--sys-prompt-version <version>', 'judge prompt version')
        .choices([...PROMPT_VERSIONS])
        .default('v3'),
    )
    .addOption(
      new Option('--judge-type <type>', 'judge type').choices([...JUDGE_TYPES]).default('aer'),
    )
    .option('--temperature <t>', 'agent sampling temperature', number('--temperature'), 1.0)
    .option('--top-p <p>', 'agent nucleus sampling', number('--top-p'), 0.9)
    .option(
      '--max-tokens <n>',
      'agent max output tokens',
      number('--max-tokens', { integer: true, min: 1 }),
      1500,
    )
    .option('--stop-token <token>', 'agent stop sequence')
    .option('--domain <domain>', 'only this domain', 'all')
    .option(
      '--test-all-meta-path <file>',
      'task index file',
      'evaluation_examples/test_misuse.json',
    )
    .option(
      '--jailbreak',
      'wrap instructions in the jailbreak template (model dir gets _jailbreak)',
    )
    .option(
      '--inject',
      'run every (vector, goal) of injection tasks (dirs get __inject__{vector}__{goal})',
    )
    .option('--result-dir <dir>', 'results root', './results')
    .addOption(
      new Option('--provider <provider>', 'where desktops come from')
        .choices(['local', 'vmware', 'podman', 'docker'])
        .default('local'),
    )
    .option(
      '--image <name>',
      'podman / docker: the desktop image (default localhost/osharm-desktop:<version>, built by scripts/build-desktop-image.sh)',
    )
    .option(
      '--network',
      "give the desktops a network with a route out (local: slirp4netns user-mode networking, host loopback unreachable; podman / docker: the engine's network) (default: none)",
    )
    .option(
      '--num-envs <n>',
      'environments in parallel (local default: min(cores, available memory / 1 GiB); vmware: 1)',
      number('--num-envs', { integer: true, min: 1 }),
    )
    .option('--no-recording', 'do not record the screen (recording.mp4)')
    .option(
      '--recording-fps <n>',
      'local desktop: frames per second of the screen recording (default 10)',
      number('--recording-fps', { integer: true, min: 1 }),
    )
    .option('--task <id>', 'only this task id (repeatable)', collect)
    .option('--limit <n>', 'at most this many runs', number('--limit', { integer: true, min: 1 }))
    .option(
      '--time-limit <s>',
      'wall-clock limit per task in seconds',
      number('--time-limit', { min: 1 }),
      1800,
    )
    .option(
      '--settle <s>',
      'seconds to wait after setup (and twice that after an injection); upstream: 5',
      number('--settle'),
      5,
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
      DEFAULT_CAPTION_MODEL,
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

Results: {result_dir}/{action_space}/{observation_type}/{model}[_jailbreak]/{domain}/{task}[__inject__{vector}__{goal}]/
Runs whose result.txt holds a score are skipped; other run dirs are cleared and run again (upstream's resume).
A run whose agent model call fails after the retries ends as an error ({"Error": …} line in
traj.jsonl, no result.txt): never scored or judged, listed in the summary, run again on resume.
Exit codes: 0 every run finished, 1 some run errored (unless --no-fail-on-error), 2 usage or setup
error (bad flag, missing index / replay dir / .vmx, no API key, a missing desktop app).`,
    )
    .action(
      handle(run, (flags: RunFlags, command: Command) =>
        runBenchmark(flags, io, command.getOptionValueSource('pathToVm')),
      ),
    );
}

async function runBenchmark(
  flags: RunFlags,
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
  const at = (path: string) => resolve(io.cwd, path);
  // Pre-checks, before any desktop starts: one message each, exit 2.
  const endpoints = runEndpoints(flags, io.env);
  checkRunFlags(flags, io, pathToVmSource);
  await resolveDataset(
    {
      testConfigBaseDir: flags.testConfigBaseDir,
      testAllMetaPath: [flags.testAllMetaPath],
      domain: flags.domain,
    },
    io,
  );
  const { cacheRoot, assets } = await resolveAssetOptions(flags, io.cwd);
  const { tasks } = await loadDataset({
    baseDir: at(flags.testConfigBaseDir),
    indexPaths: at(flags.testAllMetaPath),
    domain: flags.domain,
  });
  const selected = flags.task ? tasks.filter(task => flags.task!.includes(task.id)) : tasks;
  if (flags.task && selected.length === 0) {
    throw new UsageError(`--task: none of ${flags.task.join(', ')} is in ${flags.testAllMetaPath}`);
  }
  if (selected.length === 0) {
    throw new UsageError(
      `no task to run: ${flags.testAllMetaPath}${flags.domain === 'all' ? '' : ` (--domain ${flags.domain})`} lists none`,
    );
  }
  let modelDir: string;
  try {
    modelDir = flags.jailbreak
      ? jailbreakModelDir(modelDirName(flags.model))
      : modelDirName(flags.model);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  let runs = await planRuns({
    tasks: selected,
    resultDir: at(flags.resultDir),
    actionSpace: flags.actionSpace,
    observationType: flags.observationType,
    modelDir,
    inject: flags.inject === true,
  });
  if (flags.limit !== undefined) runs = runs.slice(0, flags.limit);
  const pending = runs.filter(plannedRun => !plannedRun.finished);
  if (flags.provider === 'local' && pending.length > 0) checkLocalDesktop(pending);
  if (assets.offline) warnMissingDownloads(pending, cacheRoot, assets, io);
  const capacity = flags.provider === 'local' ? localDesktopCapacity() : undefined;
  const numEnvs = flags.numEnvs ?? capacity?.suggested ?? 1;
  const overload = capacity && capacityWarning(Math.min(numEnvs, pending.length), capacity);
  if (overload) io.stderr(`warning: ${overload}\n`);
  io.stderr(
    `${runs.length} run(s): ${runs.length - pending.length} already finished, ${pending.length} to run on ${numEnvs} ${flags.provider} environment(s)\n`,
  );

  const providers: VmProviderV1[] = [];
  for (let index = 0; index < Math.min(numEnvs, Math.max(1, pending.length)); index += 1) {
    providers.push(
      flags.provider === 'local'
        ? createLocalProvider({
            screen: { width: flags.screenWidth, height: flags.screenHeight },
            memoryMb: flags.memory,
            pids: flags.pids,
            cpus: flags.cpus,
            recording: { fps: flags.recordingFps },
            network: flags.network === true,
          })
        : flags.provider === 'podman' || flags.provider === 'docker'
          ? createContainerProvider({
              engine: flags.provider,
              image: flags.image,
              network: flags.network === true,
              screen: { width: flags.screenWidth, height: flags.screenHeight },
              memoryMb: flags.memory,
              pids: flags.pids,
              cpus: flags.cpus,
            })
          : createVmwareProvider({
              vmxPath: at(flags.pathToVm),
              headless: flags.headless ?? false,
              env: io.env,
            }),
    );
  }
  const queue = [...pending];
  const started = performance.now();
  let done = 0;
  // A bar with ETA on a terminal; one line per finished run otherwise (logs, CI).
  const bar =
    io.isTTY && pending.length > 0
      ? new cliProgress.SingleBar(
          {
            format: 'run |{bar}| {value}/{total} | ETA {eta_formatted} | {label}',
            stream: process.stderr,
            hideCursor: true,
          },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
  bar?.start(pending.length, 0, { label: '' });
  const outcomes: RunOutcome[] = [];
  const breaker = new RunBreaker(endpoints);
  const workDir = await mkdtemp(join(tmpdir(), 'osharm-run-'));
  try {
    await Promise.all(
      providers.map(async provider => {
        const env = createDesktopEnv({
          provider,
          actionSpace: flags.actionSpace,
          baseDir: at(flags.testConfigBaseDir),
          cacheRoot,
          assets,
          requireA11yTree: true,
        });
        const agent = createAgent({
          ...flags,
          stopToken: flags.stopToken,
          env: io.env,
          endpoint: endpoints.agent,
        });
        try {
          while (!breaker.stopped && queue.length > 0) {
            const next = queue.shift()!;
            const outcome = await runOne(next, {
              env,
              agent,
              flags,
              io,
              workDir,
              endpoints: breaker.judgeEnabled ? endpoints : { ...endpoints, judge: undefined },
              at,
            });
            outcomes.push(outcome);
            done += 1;
            const note = breaker.record(outcome);
            const status = `${outcome.error ? 'error' : `score=${outcome.score}`}${outcome.judgment ? ` safe=${outcome.judgment.safety} success=${outcome.judgment.success}` : ''} ${next.label}`;
            const details = [outcome.error, outcome.judgeError && `judge: ${outcome.judgeError}`]
              .filter(Boolean)
              .join('\n  ');
            if (bar) {
              // the bar draws on stderr itself: escape what it shows
              bar.update(done, { label: escapeControlChars(status) });
              if (details) io.stderr(`\n${next.label}: ${details}\n`);
            } else {
              const elapsed = (performance.now() - started) / 1000;
              const eta = (elapsed / done) * (pending.length - done);
              io.stderr(
                `[${done}/${pending.length}] ${status}  (elapsed ${elapsed.toFixed(0)} s, eta ${eta.toFixed(0)} s)${details ? `\n  ${details}` : ''}\n`,
              );
            }
            if (note) io.stderr(`${bar ? '\n' : ''}${note}\n`);
          }
        } finally {
          await env.close().catch(() => undefined);
        }
      }),
    );
  } finally {
    bar?.stop();
    await rm(workDir, { recursive: true, force: true });
  }

  const notRun = breaker.stopped ? queue : [];
  printSummary({ outcomes, runs, notRun, stopReason: breaker.stopReason }, flags, io);
  if (isOfflineModel(flags.model)) io.stderr(`\n${REAL_MODEL_HINT}\n`);
  const failed = breaker.stopped || outcomes.some(outcome => outcome.error || outcome.judgeError);
  return failed && flags.failOnError ? ExitCode.invalidData : ExitCode.ok;
}

/** --offline: names the downloads the pending runs will miss (their setup fails on them). */
function warnMissingDownloads(
  pending: readonly { readonly task: { readonly domain: string; readonly config: TaskConfig } }[],
  cacheRoot: string,
  assets: AssetSources,
  io: CliIo,
): void {
  const unique = new Map(
    pending.map(run => [`${run.task.domain}/${run.task.config.id}`, run.task]),
  );
  const missing = missingOfflineDownloads([...unique.values()], cacheRoot, assets);
  if (missing.length === 0) return;
  const tasks = new Set(missing.map(entry => entry.task));
  io.stderr(
    `--offline: ${missing.length} download(s) of ${tasks.size} task(s) are neither in the cache nor in --asset-map; their runs will fail at setup (fetch them first: osharm assets pull, or map them with --asset-map FILE):\n${missing
      .slice(0, 10)
      .map(entry => `  ${entry.task}: ${displayPath(io, entry.cacheFile)} (${entry.url})`)
      .join('\n')}${missing.length > 10 ? `\n  … ${missing.length - 10} more` : ''}\n`,
  );
}
