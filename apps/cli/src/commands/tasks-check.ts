import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { createDesktopEnv, type VmProviderV1 } from '@osharm/desktop-env';
import { evaluateTask } from '@osharm/evaluators';
import { loadDataset } from '@osharm/task-schema';
import { writeFileAtomic } from '@osharm/task-schema/artifacts';
import { createLocalProvider } from '@osharm/vm-local';
import { createVmwareProvider } from '@osharm/vm-vmware';
import { addAssetOptions, resolveAssetOptions, type AssetFlags } from '../asset-options';
import { checkSummary, degradedSummary, formatCheckTable, type CheckLine } from '../check-summary';
import { ExitCode, handle, UsageError, type CliIo, type CliRun } from '../cli-io';
import {
  addDatasetOptions,
  displayPath,
  resolveDataset,
  type DatasetFlags,
} from '../dataset-options';
import {
  loadUpstreamTexts,
  RUN_DEFAULTS,
  UPSTREAM_ENV,
  upstreamDatasetDir,
  type PlannedRun,
  type RunFlags,
  type UpstreamTexts,
} from '@osharm/runner';
import {
  checkLocalDesktop,
  compareFirstObservations,
  createAgent,
  firstA11yTree,
  injectedText,
  matchUpstreamRun,
  planRuns,
  readUpstreamRuns,
  runOne,
  type UpstreamRun,
} from '@osharm/runner/parts';
import { compareTotals, formatComparisons, namedComparison } from '../compare-summary';

interface CheckFlags extends DatasetFlags, AssetFlags {
  inject?: boolean;
  upstream?: string;
  provider: 'local' | 'vmware';
  pathToVm: string;
  out: string;
  json?: boolean;
  numEnvs: number;
  task?: string[];
  run?: string[];
  limit?: number;
  settle: number;
  timeLimit: number;
  network?: boolean;
  compare?: string;
}

const positive =
  (name: string, integer: boolean) =>
  (value: string): number => {
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < 0 || (integer && !Number.isInteger(parsed)))
      throw new InvalidArgumentError(`${name} must be ${integer ? 'an integer' : 'a number'} ≥ 0`);
    return parsed;
  };
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** `osharm tasks check`: reset → setup → first observation → evaluator per run, with no agent. */
export function tasksCheckCommand(run: CliRun): Command {
  return addAssetOptions(addDatasetOptions(new Command('check')))
    .description(
      'run each selected run up to its first observation and evaluator (the offline refusing agent, no model): which runs get through setup, and which are faithful to upstream',
    )
    .option('--inject', 'check every (vector, goal) of injection tasks')
    .option(
      '--upstream <dir>',
      `an upstream OS-Harm checkout: the injection texts are read from it, and its evaluation_examples/ is the dataset unless one is given (else ${UPSTREAM_ENV})`,
    )
    .option(
      '--compare <dir>',
      "check the runs of the upstream trajectories in <dir> (each subdir's better_log.json, matched by instruction and task.injection) and compare their first observations with osharm's",
    )
    .addOption(
      new Option('--provider <provider>', 'where desktops come from')
        .choices(['local', 'vmware'])
        .default('local'),
    )
    .option(
      '--path-to-vm <vmx>',
      'VMware .vmx (with --provider vmware)',
      'vmware_vm_data/Ubuntu0/Ubuntu0.vmx',
    )
    .option(
      '--network',
      'local: give the desktops a network with a route out (slirp4netns; host loopback unreachable)',
    )
    .option('--out <dir>', 'per run: {out}/{domain}/{run id}/', 'tasks-check')
    .option('--json', 'one JSON object per line per run, then {"summary": …}')
    .option('--num-envs <n>', 'environments in parallel', positive('--num-envs', true), 1)
    .option('--task <id>', 'only this task id (repeatable)', collect)
    .option(
      '--run <run>',
      'only this run, {domain}/{task id}[__inject__{vector}__{goal}] (repeatable)',
      collect,
    )
    .option('--limit <n>', 'at most this many runs', positive('--limit', true))
    .option(
      '--settle <s>',
      'seconds to wait after setup (twice that after an injection)',
      positive('--settle', false),
      5,
    )
    .option(
      '--time-limit <s>',
      'wall-clock limit per run in seconds',
      positive('--time-limit', false),
      600,
    )
    .addHelpText(
      'after',
      `
Per run, {out}/{domain}/{run id}/ holds step_0.png, a11y_tree.txt (the first observation's
accessibility tree), setup_warnings.json, fidelity.json and check.json (this run's --json line).
With --compare, check.json's "compare" holds, per upstream run of the same run, upstream's distinct
rows present at its position (±8 px), moved or missing (GNOME shell, applications, and live web
content apart), the banner, the address bar and the listed mail; a summary line closes the output.
Exit codes: 0 every run got through setup, 1 some did not, 2 usage or setup error.`,
    )
    .action(handle(run, (flags: CheckFlags) => checkRuns(flags, run.io)));
}

async function checkRuns(flags: CheckFlags, io: CliIo): Promise<number> {
  const at = (path: string) => resolve(io.cwd, path);
  // The checkout is read before anything else: a bad one is one line, exit 2, nothing written.
  const upstreamDir = flags.upstream ?? (io.env[UPSTREAM_ENV] || undefined);
  const upstream: UpstreamTexts | undefined = upstreamDir
    ? loadUpstreamTexts(at(upstreamDir))
    : undefined;
  const dataset = await resolveDataset(
    upstream && flags.testConfigBaseDir === undefined && flags.testAllMetaPath === undefined
      ? { ...flags, testConfigBaseDir: upstreamDatasetDir(upstream.root) }
      : flags,
    io,
  );
  const { cacheRoot, assets } = await resolveAssetOptions(flags, io.cwd);
  const { tasks } = await loadDataset({
    baseDir: at(dataset.baseDir),
    indexPaths: dataset.indexPaths.map(at),
    domain: dataset.domain,
  });
  const selected = flags.task ? tasks.filter(task => flags.task!.includes(task.id)) : tasks;
  if (selected.length === 0) throw new UsageError('no task selected');
  // --compare: the upstream logs are read and matched before anything runs.
  const upstreamRuns = flags.compare ? await readUpstreamRuns(at(flags.compare)) : [];
  // Empty layout segments: planRuns' {action space}/{observation}/{model} levels vanish in join().
  let runs = await planRuns({
    tasks: selected,
    resultDir: at(flags.out),
    actionSpace: '',
    observationType: '',
    modelDir: '',
    inject: flags.inject === true || upstreamRuns.length > 0,
  });
  const upstreamOf = new Map<string, UpstreamRun[]>();
  if (upstreamRuns.length > 0) {
    for (const upstreamRun of upstreamRuns) {
      const label = matchUpstreamRun(upstreamRun, runs).label;
      upstreamOf.set(label, [...(upstreamOf.get(label) ?? []), upstreamRun]);
    }
    runs = runs.filter(planned => upstreamOf.has(planned.label));
  }
  if (flags.run) {
    const unknown = flags.run.filter(label => !runs.some(planned => planned.label === label));
    if (unknown.length > 0) throw new UsageError(`--run: no such run: ${unknown.join(', ')}`);
    runs = runs.filter(planned => flags.run!.includes(planned.label));
  }
  if (flags.limit !== undefined) runs = runs.slice(0, flags.limit);
  // Only the desktop itself must be there: a missing application is a finding, not a stop.
  if (flags.provider === 'local') checkLocalDesktop([]);
  const runFlags = checkRunFlags(flags, dataset.baseDir);
  const providers: VmProviderV1[] = Array.from(
    { length: Math.min(flags.numEnvs, runs.length) },
    () =>
      flags.provider === 'local'
        ? createLocalProvider({
            screen: { width: 1920, height: 1080 },
            network: flags.network === true,
          })
        : createVmwareProvider({ vmxPath: at(flags.pathToVm), headless: true, env: io.env }),
  );
  const queue = [...runs];
  const lines: CheckLine[] = [];
  const workDir = await mkdtemp(join(tmpdir(), 'osharm-check-'));
  try {
    await Promise.all(
      providers.map(async provider => {
        const env = createDesktopEnv({
          provider,
          actionSpace: 'pyautogui',
          baseDir: at(dataset.baseDir),
          cacheRoot,
          assets,
          requireA11yTree: true,
          evaluator: evaluateTask,
        });
        const agent = createAgent({
          ...runFlags,
          env: io.env,
          stopToken: undefined,
        });
        try {
          while (queue.length > 0) {
            const next = queue.shift()!;
            const line = await checkOne(next, {
              env,
              provider, // its desktopShell() goes into fidelity.json
              agent,
              flags: runFlags,
              io,
              workDir,
              at,
              ...(upstream && { upstream }),
              upstreamRuns: upstreamOf.get(next.label) ?? [],
            });
            lines.push(line);
            if (flags.json) io.stdout(`${JSON.stringify(line)}\n`);
            else {
              const reasons = line.faithful
                ? ''
                : `\n  ${(line.fidelity?.reasons ?? [line.error]).join('\n  ')}`;
              io.stderr(
                `[${lines.length}/${runs.length}] ${line.setup} ${line.faithful ? 'faithful' : 'unfaithful'} ${line.run} (${line.seconds.toFixed(1)} s)${reasons}\n`,
              );
            }
          }
        } finally {
          await env.close().catch(() => undefined);
        }
      }),
    );
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  const order = new Map(runs.map((plannedRun, index) => [plannedRun.label, index]));
  lines.sort((a, b) => order.get(a.run)! - order.get(b.run)!);
  const compared = lines.flatMap(line =>
    (line.compare ?? []).map(comparison => ({ run: line.run, comparison })),
  );
  if (flags.json) {
    const summary = checkSummary(lines);
    io.stdout(
      `${JSON.stringify(upstreamRuns.length > 0 ? { summary: { ...summary.summary, compare: compareTotals(compared.map(row => row.comparison)) } } : summary)}\n`,
    );
  } else {
    io.stdout(`\n${formatCheckTable(lines)}`);
    const degraded = degradedSummary(lines);
    io.stdout(
      `degraded observations: ${degraded.observations} in ${degraded.runs} of ${lines.length} run(s)${degraded.unknown > 0 ? ` (${degraded.unknown} without a count)` : ''}\n`,
    );
    io.stdout(`per run: ${displayPath(io, at(flags.out))}/{domain}/{run id}/\n`);
    if (upstreamRuns.length > 0) io.stdout(`\n${formatComparisons(compared)}`);
  }
  return lines.every(line => line.setup !== 'failed') ? ExitCode.ok : ExitCode.invalidData;
}

/** `osharm run`'s flags for a check: the refusing agent, one step, no judge. */
function checkRunFlags(flags: CheckFlags, baseDir: string): RunFlags {
  return {
    ...RUN_DEFAULTS,
    cacheDir: flags.cacheDir,
    assetMap: flags.assetMap,
    offline: flags.offline,
    pathToVm: flags.pathToVm,
    maxSteps: 1,
    testConfigBaseDir: baseDir,
    model: 'offline-refuse',
    judgeModel: 'none',
    domain: flags.domain,
    testAllMetaPath: '',
    inject: flags.inject,
    network: flags.network,
    resultDir: flags.out,
    provider: flags.provider,
    numEnvs: flags.numEnvs,
    timeLimit: flags.timeLimit,
    settle: flags.settle,
  };
}

async function checkOne(
  plannedRun: PlannedRun,
  context: Omit<Parameters<typeof runOne>[1], 'endpoints' | 'io'> & {
    io: CliIo;
    upstreamRuns: readonly UpstreamRun[];
  },
): Promise<CheckLine> {
  const started = performance.now();
  const outcome = await runOne(plannedRun, { ...context, endpoints: {} });
  const seconds = (performance.now() - started) / 1000;
  const fidelity = outcome.fidelity ?? null;
  const tree = await firstA11yTree(plannedRun.dir);
  if (tree !== null) await writeFileAtomic(join(plannedRun.dir, 'a11y_tree.txt'), tree);
  const text = plannedRun.injection ? await injectedText(plannedRun.dir) : null;
  // No first observation of osharm's: every upstream row counts as missing.
  const compare = context.upstreamRuns.map(upstreamRun =>
    namedComparison(
      upstreamRun,
      compareFirstObservations(upstreamRun.firstObservation, tree ?? '', {
        upstream: upstreamRun.injection?.content ?? null,
        osharm: text,
      }),
    ),
  );
  const warnings = fidelity?.setup.warnings.map(
    ({ benign: _benign, why: _why, ...warning }) => warning,
  );
  const line: CheckLine = {
    run: plannedRun.label,
    domain: plannedRun.task.domain,
    category: plannedRun.task.category,
    setup: !fidelity?.setup.completed ? 'failed' : warnings!.length > 0 ? 'warnings' : 'ok',
    warnings: warnings ?? [],
    faithful: fidelity?.faithful ?? false,
    fidelity,
    out: displayPath(context.io, plannedRun.dir),
    seconds: Number(seconds.toFixed(1)),
    score: outcome.score,
    ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    ...(plannedRun.injection
      ? {
          injection: {
            vector: plannedRun.injection.vector.type,
            goal: plannedRun.injection.goal,
            text,
          },
        }
      : {}),
    ...(compare.length > 0 ? { compare } : {}),
  };
  await writeFileAtomic(join(plannedRun.dir, 'check.json'), `${JSON.stringify(line, null, 2)}\n`);
  return line;
}
