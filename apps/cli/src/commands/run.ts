import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { Command, InvalidArgumentError, Option } from 'commander';
import { createDesktopEnv, type VmProviderV1 } from '@osharm/desktop-env';
import { DEFAULT_CAPTION_MODEL } from '@osharm/judge';
import { jailbreakModelDir } from '@osharm/injection';
import {
  ACTION_SPACES,
  escapeControlChars,
  JUDGE_TYPES,
  loadDataset,
  OBSERVATION_TYPES,
  PROMPT_VERSIONS,
} from '@osharm/task-schema';
import { createLocalProvider } from '@osharm/vm-local';
import { createVmwareProvider } from '@osharm/vm-vmware';
import {
  createAgent,
  isOfflineModel,
  missingModelApi,
  modelDirName,
  REAL_MODEL_HINT,
} from '../agent-choice';
import { ExitCode, handle, UsageError, type CliIo, type CliRun } from '../cli-io';
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
  return new Command('run')
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
        .choices(['local', 'vmware'])
        .default('local'),
    )
    .option(
      '--num-envs <n>',
      'environments in parallel',
      number('--num-envs', { integer: true, min: 1 }),
      1,
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
    .addHelpText(
      'after',
      `
Examples:
  $ osharm run --model offline-refuse --judge-model none --test-all-meta-path evaluation_examples/test_misuse.json
  $ OPENAI_API_KEY=… osharm run --model gpt-4.1 --observation-type screenshot_a11y_tree --test-all-meta-path evaluation_examples/test_injection.json --inject
  $ osharm run --provider vmware --path-to-vm vmware_vm_data/Ubuntu0/Ubuntu0.vmx --headless --model o4-mini --jailbreak

Results: {result_dir}/{action_space}/{observation_type}/{model}[_jailbreak]/{domain}/{task}[__inject__{vector}__{goal}]/
Runs with a result.txt are skipped; other run dirs are cleared and run again (upstream's resume).`,
    )
    .action(handle(run, (flags: RunFlags) => runBenchmark(flags, io)));
}

async function runBenchmark(flags: RunFlags, io: CliIo): Promise<number> {
  const at = (path: string) => resolve(io.cwd, path);
  const needs = [
    ['--model', flags.model],
    ...(flags.judgeModel === 'none'
      ? []
      : [
          ['--judge-model', flags.judgeModel],
          // The caption-based judge types also call the captioner.
          ...(['aer', 'all_step_aer', 'captioned_default'].includes(flags.judgeType)
            ? [['the captioner of --judge-type ' + flags.judgeType, DEFAULT_CAPTION_MODEL]]
            : []),
        ]),
  ];
  for (const [what, model] of needs) {
    const missing = missingModelApi(model!, io.env);
    if (missing) {
      throw new UsageError(
        `${what} ${model} needs a model API: set ${missing}${what === '--model' ? ', or use an offline baseline: --model offline-refuse' : what === '--judge-model' ? ', or record only the deterministic evidence: --judge-model none' : ''}`,
      );
    }
  }
  if (flags.observationType === 'som' && flags.actionSpace === 'computer_13') {
    throw new UsageError('--observation-type som works only with --action-space pyautogui');
  }
  const judgeEnabled = flags.judgeModel !== 'none';
  const { tasks } = await loadDataset({
    baseDir: at(flags.testConfigBaseDir),
    indexPaths: at(flags.testAllMetaPath),
    domain: flags.domain,
  });
  const selected = flags.task ? tasks.filter(task => flags.task!.includes(task.id)) : tasks;
  if (flags.task && selected.length === 0) {
    throw new UsageError(`--task: none of ${flags.task.join(', ')} is in ${flags.testAllMetaPath}`);
  }
  let modelDir: string;
  try {
    modelDir = flags.jailbreak
      ? jailbreakModelDir(modelDirName(flags.model))
      : modelDirName(flags.model);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  let runs = planRuns({
    tasks: selected,
    resultDir: at(flags.resultDir),
    actionSpace: flags.actionSpace,
    observationType: flags.observationType,
    modelDir,
    inject: flags.inject === true,
  });
  if (flags.limit !== undefined) runs = runs.slice(0, flags.limit);
  const pending = runs.filter(plannedRun => !plannedRun.finished);
  io.stderr(
    `${runs.length} run(s): ${runs.length - pending.length} already finished, ${pending.length} to run on ${flags.numEnvs} ${flags.provider} environment(s)\n`,
  );

  const providers: VmProviderV1[] = [];
  for (let index = 0; index < Math.min(flags.numEnvs, Math.max(1, pending.length)); index += 1) {
    providers.push(
      flags.provider === 'local'
        ? createLocalProvider({
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
  const workDir = await mkdtemp(join(tmpdir(), 'osharm-run-'));
  try {
    await Promise.all(
      providers.map(async provider => {
        const env = createDesktopEnv({
          provider,
          actionSpace: flags.actionSpace,
          baseDir: at(flags.testConfigBaseDir),
          cacheRoot: at('cache'),
          requireA11yTree: true,
        });
        const agent = createAgent({ ...flags, stopToken: flags.stopToken, env: io.env });
        try {
          for (let next = queue.shift(); next; next = queue.shift()) {
            const outcome = await runOne(next, {
              env,
              agent,
              flags,
              io,
              workDir,
              judgeEnabled,
              at,
            });
            outcomes.push(outcome);
            done += 1;
            const status = `${outcome.error ? 'error' : `score=${outcome.score}`}${outcome.judgment ? ` safe=${outcome.judgment.safety} success=${outcome.judgment.success}` : ''} ${next.label}`;
            if (bar) {
              // the bar draws on stderr itself: escape what it shows
              bar.update(done, { label: escapeControlChars(status) });
              if (outcome.error) io.stderr(`\nerror ${next.label}: ${outcome.error}\n`);
            } else {
              const elapsed = (performance.now() - started) / 1000;
              const eta = (elapsed / done) * (pending.length - done);
              io.stderr(
                `[${done}/${pending.length}] ${status}  (elapsed ${elapsed.toFixed(0)} s, eta ${eta.toFixed(0)} s)${outcome.error ? `\n  ${outcome.error}` : ''}\n`,
              );
            }
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

  printSummary(outcomes, runs, flags, io);
  if (isOfflineModel(flags.model)) io.stderr(`\n${REAL_MODEL_HINT}\n`);
  return outcomes.some(outcome => outcome.error) ? ExitCode.invalidData : ExitCode.ok;
}
