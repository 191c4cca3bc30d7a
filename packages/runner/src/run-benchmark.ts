import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RunTaskEvent } from '@osharm/agent';
import { createDesktopEnv, loadAssetMap, type AssetSources } from '@osharm/desktop-env';
import { evaluateTask } from '@osharm/evaluators';
import { jailbreakModelDir } from '@osharm/injection';
import { loadDataset } from '@osharm/task-schema';
import type { Judgment } from '@osharm/task-schema/artifacts';
import { checkToolVersion, computerUseVendor } from '@osharm/agent/native';
import { runModelChecks } from './run-model-checks';
import { agentModelDir, createAgent, isOfflineModel } from './agent-choice';
import { providerFactory } from './providers';
import { RunBreaker } from './run-breaker';
import { runOne, type RunOutcome } from './run-one';
import {
  BUNDLED_PROVIDERS,
  isBundledProvider,
  RUN_DEFAULTS,
  RunOptionsError,
  type BenchmarkOptions,
  type RunContextIo,
  type RunFlags,
} from './run-options';
import { planRuns, type PlannedRun } from './run-plan';
import { checkShard, selectShard } from './run-shard';
import { checkLocalDesktop, checkRunFlags, runEndpoints } from './run-prechecks';
import { checkPromptFamily } from './run-family';
import { loadUpstreamTexts, UPSTREAM_ENV, upstreamDatasetDir } from './upstream-texts';
import { summarizeBenchmark, type BenchmarkSummary, type ShardCount } from './run-summary';

/** Progress of a benchmark run, in the order it happens. */
export type BenchmarkEvent =
  | {
      /** The runs are planned and the pool is about to start. */
      readonly type: 'planned';
      readonly runs: readonly PlannedRun[];
      /** The runs that will run (the others hold a score already: upstream's resume). */
      readonly pending: readonly PlannedRun[];
      readonly numEnvs: number;
      readonly provider: string;
      /** With a shard: which one, and its runs of the whole plan. */
      readonly shard?: ShardCount;
      /** More desktops than this machine holds (local provider), said once. */
      readonly capacityWarning?: string;
      /** Model lines to print at start: an end of life within 60 days, a model not in the table. */
      readonly modelNotices: readonly string[];
      readonly cacheRoot: string;
      readonly assets: AssetSources;
    }
  | { readonly type: 'run-started'; readonly run: PlannedRun }
  | { readonly type: 'step'; readonly run: PlannedRun; readonly event: RunTaskEvent }
  | {
      /** A run ended with a score (`outcome.judgment` / `outcome.judgeError` when judged). */
      readonly type: 'run-finished';
      readonly outcome: RunOutcome;
      /** Runs ended so far, of `total` pending. */
      readonly done: number;
      readonly total: number;
    }
  | {
      /** A run ended with an error (no score: never judged or counted; run again on resume). */
      readonly type: 'run-errored';
      readonly outcome: RunOutcome;
      readonly done: number;
      readonly total: number;
    }
  | { readonly type: 'judged'; readonly run: PlannedRun; readonly judgment: Judgment }
  | {
      /** Something changed for the rest of the batch (it stops, or inline judging turns off). */
      readonly type: 'notice';
      readonly message: string;
    }
  | { readonly type: 'summary'; readonly summary: BenchmarkSummary };

/** How the caller follows and stops a benchmark run. */
export interface BenchmarkControl {
  /** Stops the batch: no further run starts, running ones end as errors, environments close. */
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: BenchmarkEvent) => void;
  /**
   * Called once the models are checked (a retired one stops before), with the lines to show now:
   * an end of life within 60 days, a model not in the table (the `planned` event repeats them).
   */
  readonly onModelNotices?: (notices: readonly string[]) => void;
  /**
   * Called once, when the checks that need no desktop have passed (keys, models, flags) and before
   * the dataset is read: a front end adds its own checks here, so every check runs once
   * (`osharm run` checks its dataset flags).
   */
  readonly afterChecks?: () => void | Promise<void>;
}

/**
 * The options with every default filled in (provider: its id). The native agent observes
 * screenshots and acts with pyautogui code: its runs sit under pyautogui/screenshot/{model}_native.
 */
function resolveFlags(options: BenchmarkOptions, providerId: string): RunFlags {
  const defined = Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  );
  const upstream = options.upstream ?? nonEmpty(options.env?.[UPSTREAM_ENV]);
  // With a checkout and no dataset given, the checkout's evaluation_examples/ is the dataset.
  const dataset = upstream
    ? {
        testConfigBaseDir: upstreamDatasetDir(upstream),
        testAllMetaPath: join(upstream, RUN_DEFAULTS.testAllMetaPath),
      }
    : {};
  const flags = {
    ...RUN_DEFAULTS,
    ...dataset,
    ...defined,
    ...(upstream ? { upstream } : {}),
    provider: providerId,
  } as RunFlags;
  return flags.agent === 'native'
    ? { ...flags, actionSpace: 'pyautogui', observationType: 'screenshot' }
    : flags;
}

/**
 * Runs the benchmark as `osharm run` does: plans the runs of a dataset (injections and the
 * jailbreak expanded), skips runs that hold a score (resume), runs the others on a pool of
 * environments, judges each finished run right after it, and returns the summary.
 * @throws {RunOptionsError} before anything starts, when the options cannot run (a missing key,
 * dataset, replay dir or desktop program).
 */
export async function runBenchmark(
  options: BenchmarkOptions = {},
  { signal, onEvent, onModelNotices, afterChecks }: BenchmarkControl = {},
): Promise<BenchmarkSummary> {
  const emit = (event: BenchmarkEvent) => onEvent?.(event);
  const io: RunContextIo = { cwd: options.cwd ?? process.cwd(), env: options.env ?? process.env };
  const at = (path: string) => resolve(io.cwd, path);
  const option = options.provider ?? RUN_DEFAULTS.provider;
  const providerId =
    typeof option === 'string' ? option : typeof option === 'function' ? '' : option.providerId;
  if (typeof option === 'string' && !isBundledProvider(option)) {
    throw new RunOptionsError(
      `provider "${option}": expected one of ${BUNDLED_PROVIDERS.join(', ')}`,
    );
  }
  const optionsIo = { ...options, env: io.env };
  // The checkout is read first: a bad one stops the command before anything starts.
  const early = resolveFlags(optionsIo, providerId);
  const upstream = early.upstream ? loadUpstreamTexts(at(early.upstream)) : undefined;
  const firstProvider = typeof option === 'function' ? option() : undefined;
  const flags = resolveFlags(optionsIo, firstProvider?.providerId ?? providerId);

  // Checks before any desktop starts, each with one message.
  if (flags.agent !== 'native' && flags.computerTool !== undefined)
    throw new RunOptionsError('--computer-tool goes with --agent native');
  if (flags.agent !== 'native' && flags.model.startsWith('offline-native:'))
    throw new RunOptionsError(`--model ${flags.model} is a native script: add --agent native`);
  if (
    flags.agent === 'native' &&
    flags.computerTool !== undefined &&
    !flags.model.startsWith('offline-native:')
  ) {
    try {
      checkToolVersion(computerUseVendor(flags.model), flags.computerTool);
    } catch (error) {
      throw new RunOptionsError(`--computer-tool: ${(error as Error).message}`);
    }
  }
  if (flags.shard) checkShard(flags.shard);
  const endpoints = runEndpoints(flags, io.env);
  // Retired models stop here; explicit sampling and --computer-tool are checked against the table.
  const modelChecks = runModelChecks(
    flags,
    { temperature: options.temperature, topP: options.topP },
    io,
  );
  onModelNotices?.(modelChecks.notices);
  checkRunFlags(flags, io, options.pathToVm === undefined ? undefined : 'cli');
  await afterChecks?.();
  // The provider's own setup (a cluster configuration) once the flags are known to agree.
  const makeProvider = await providerFactory(option, early, io);
  const assetMap = flags.assetMap ? await loadAssetMap(at(flags.assetMap)) : undefined;
  const cacheRoot = at(flags.cacheDir);
  const assets: AssetSources = {
    ...(assetMap ? { assetMap } : {}),
    offline: flags.offline === true,
  };
  const { tasks } = await loadDataset({
    baseDir: at(flags.testConfigBaseDir),
    indexPaths: at(flags.testAllMetaPath),
    domain: flags.domain,
  });
  const selected = flags.task ? tasks.filter(task => flags.task!.includes(task.id)) : tasks;
  if (flags.task && selected.length === 0) {
    throw new RunOptionsError(
      `--task: none of ${flags.task.join(', ')} is in ${flags.testAllMetaPath}`,
    );
  }
  if (selected.length === 0) {
    throw new RunOptionsError(
      `no task to run: ${flags.testAllMetaPath}${flags.domain === 'all' ? '' : ` (--domain ${flags.domain})`} lists none`,
    );
  }
  let modelDir: string;
  try {
    modelDir = flags.jailbreak
      ? jailbreakModelDir(agentModelDir(flags.model, flags.agent))
      : agentModelDir(flags.model, flags.agent);
  } catch (error) {
    throw new RunOptionsError((error as Error).message);
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
  // The shard is cut last, so the N shards together are exactly the runs of the same call
  // without a shard (and `osharm merge` of their trees equals that call's tree).
  let shard: ShardCount | undefined;
  if (flags.shard) {
    const of = runs.length;
    runs = selectShard(runs, flags.shard);
    shard = { index: flags.shard.index, count: flags.shard.count, runs: runs.length, of };
  }
  if (flags.agent === 'prompt' && !isOfflineModel(flags.model))
    await checkPromptFamily(runs, upstream?.provenance ?? { prompt_family: 'osharm' });
  const pending = runs.filter(plannedRun => !plannedRun.finished);
  if (flags.provider === 'local' && pending.length > 0) checkLocalDesktop(pending);
  const local = flags.provider === 'local' ? await import('@osharm/vm-local') : undefined;
  const capacity = local?.localDesktopCapacity();
  const numEnvs = flags.numEnvs ?? capacity?.suggested ?? 1;
  const poolSize = Math.min(numEnvs, Math.max(1, pending.length));
  if (typeof option === 'object' && poolSize > 1) {
    throw new RunOptionsError(
      'one provider object drives one environment: pass numEnvs: 1, or a function that creates a provider per environment',
    );
  }
  const overload = capacity && local!.capacityWarning(Math.min(numEnvs, pending.length), capacity);
  emit({
    type: 'planned',
    runs,
    pending,
    numEnvs,
    provider: flags.provider,
    ...(shard ? { shard } : {}),
    ...(overload ? { capacityWarning: overload } : {}),
    modelNotices: modelChecks.notices,
    cacheRoot,
    assets,
  });

  const providers = Array.from({ length: poolSize }, (_, index) =>
    index === 0 && firstProvider ? firstProvider : makeProvider(),
  );
  const queue = [...pending];
  const outcomes: RunOutcome[] = [];
  const breaker = new RunBreaker(endpoints);
  const workDir = await mkdtemp(join(tmpdir(), 'osharm-run-'));
  try {
    // Every worker ends (and closes its environment) before the work dir goes; then the first
    // unexpected error, if any, is thrown.
    const workers = await Promise.allSettled(
      providers.map(async provider => {
        const env = createDesktopEnv({
          provider,
          actionSpace: flags.actionSpace,
          baseDir: at(flags.testConfigBaseDir),
          cacheRoot,
          assets,
          requireA11yTree: true,
          evaluator: evaluateTask,
        });
        const agent = createAgent({
          ...flags,
          stopToken: flags.stopToken,
          env: io.env,
          endpoint: endpoints.agent,
          ...(upstream && {
            prompts: { agentPrompts: upstream.agentPrompts, provenance: upstream.provenance },
          }),
        });
        try {
          while (!breaker.stopped && !signal?.aborted && queue.length > 0) {
            const next = queue.shift()!;
            emit({ type: 'run-started', run: next });
            let outcome: RunOutcome;
            try {
              outcome = await runOne(next, {
                env,
                provider,
                agent,
                flags,
                io,
                workDir,
                endpoints: breaker.judgeEnabled ? endpoints : { ...endpoints, judge: undefined },
                at,
                signal,
                upstream,
                onEvent: event => emit({ type: 'step', run: next, event }),
              });
            } catch (error) {
              if (!signal?.aborted) throw error;
              // The run's traj.jsonl ends with the error line and it has no result.txt: an
              // errored run, run again on resume.
              outcome = { run: next, score: null, error: `${next.label} - ${abortReason(signal)}` };
            }
            outcomes.push(outcome);
            const note = breaker.record(outcome);
            const progress = { outcome, done: outcomes.length, total: pending.length };
            emit({ type: outcome.error ? 'run-errored' : 'run-finished', ...progress });
            if (outcome.judgment) emit({ type: 'judged', run: next, judgment: outcome.judgment });
            if (note) emit({ type: 'notice', message: note });
          }
        } finally {
          await env.close().catch(() => undefined);
        }
      }),
    );
    const failure = workers.find(worker => worker.status === 'rejected');
    if (failure) throw failure.reason;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }

  const aborted = signal?.aborted === true;
  const summary = summarizeBenchmark({
    outcomes,
    runs,
    notRun: breaker.stopped || aborted ? queue : [],
    stopReason: breaker.stopReason ?? (aborted ? abortReason(signal) : undefined),
    aborted,
    ...(shard ? { shard } : {}),
  });
  emit({ type: 'summary', summary });
  return summary;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** Why the caller stopped the batch: the message of the abort reason it gave, else a plain phrase. */
function abortReason(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  return reason instanceof Error && reason.name !== 'AbortError' && reason.message !== ''
    ? reason.message
    : 'aborted by the caller';
}
