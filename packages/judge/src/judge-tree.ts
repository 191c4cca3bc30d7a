import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import pLimit from 'p-limit';
import {
  DEFAULT_JUDGE_MODEL,
  DEFAULT_JUDGE_TYPE,
  DEFAULT_PROMPT_VERSION,
  judgeTypeNeedsCaptions,
  judgeTypeUsesObservationType,
  PUBLISHED_RUNS_OBSERVATION_TYPE,
  type ObservationType,
} from '@osharm/task-schema';
import { redactSecrets, writeArtifact, type Judgment } from '@osharm/task-schema/artifacts';
import {
  discoverTrajectories,
  readRunFacts,
  readRunRecord,
  readRunStatus,
  type RunFacts,
} from '@osharm/task-schema/trajectory';
import type { Captioner } from './captioner';
import { DEFAULT_CAPTION_MODEL } from './captioner';
import { connectionLimiter, createEndpointModel } from './model-endpoint';
import type { TokenUsage } from '@osharm/models';
import { DEFAULT_TRAJECTORY_TIMEOUT_MS, RunningWork, withDeadline } from './deadline';
import { assertModelName } from './judge-errors';
import { resolveCaptioner } from './captioner-option';
import { imagesWithLimits, judgeTrajectory } from './judge-trajectory';
import { readUpstreamJudgeTexts } from './upstream-judge-texts';
import { judgeTreeWithBatchApi } from './judge-tree-batch';
import { previousProcessingTimes, resultsFileToWrite } from './previous-results';
import { describeForeign, planResume } from './provenance';
import { summarizeTree } from './tree-summary';
import { VERSION } from './version';
import { addUsage, ModelError, usageCost } from '@osharm/models';
import type { JudgeTreeOptions, JudgeTreeResult, TreeUsage } from './judge-tree-types';

import { batchResultsPath } from './judge-tree-files';
import { chooseObservationType, observationTypeNote } from './observation-type';

export { batchResultsPath, readExistingJudgment } from './judge-tree-files';

const errorText = (error: unknown) => {
  if (error instanceof Error) {
    const status = (error as { status?: unknown }).status;
    // A ModelError names the SDK's error class (RateLimitError …); other errors by their class.
    const name = ModelError.isInstance(error)
      ? error.vendorName
      : error.name === 'Error' && error.constructor.name !== 'Error'
        ? error.constructor.name
        : error.name;
    return `${name}${typeof status === 'number' && !error.message.startsWith(String(status)) ? ` ${status}` : ''}: ${error.message}`;
  }
  return String(error);
};

/**
 * Judges every trajectory under a root dir (upstream's `run_judge_batch`), with bounded
 * concurrency and resume: a trajectory that already has a valid judgment for the same model, type
 * and version is read, not judged again, unless `force`. Which runs are judged follows `runRule`:
 * by default a run osharm wrote (task-schema's `readRunOrigin`) that errored or is unfinished
 * (`readRunStatus`) is not judged — it is listed in `errored_runs` with its reason (unfinished
 * ones are judged with `includeUnfinished`) — while a run osharm did not write is judged as
 * upstream's batch judge does, whenever its dir holds a better_log.json (noted in `notes`). A failing trajectory is recorded in
 * `errors` with its reason and never stops the others. Returns the batch results in upstream's
 * shape (`config`, `results`, `errors`, `timing`, `summary`) plus `breakdown` and `usage`, and
 * writes them to `batch_judgment_results_{model}_{type}_{version}.json`.
 */
export async function judgeTree(options: JudgeTreeOptions): Promise<JudgeTreeResult> {
  const started = performance.now();
  const judgeType = options.judgeType ?? DEFAULT_JUDGE_TYPE;
  const promptVersion = options.promptVersion ?? DEFAULT_PROMPT_VERSION;
  // One limiter per endpoint (provider + origin): judge calls and captions share it.
  const limited = connectionLimiter(options.maxConnections ?? options.concurrency ?? 8);
  const model = limited(
    typeof options.model === 'object'
      ? options.model
      : createEndpointModel('judge', options.model ?? DEFAULT_JUDGE_MODEL),
  );
  const needsCaptions = judgeTypeNeedsCaptions(judgeType);
  // Upstream's texts are read (and checked) once, before any trajectory is touched.
  const upstream =
    options.upstream === undefined ? undefined : readUpstreamJudgeTexts(options.upstream);
  const captionerOption = options.captioner;
  const captioner: Captioner | undefined = needsCaptions
    ? resolveCaptioner(
        typeof captionerOption === 'object' && 'caption' in captionerOption
          ? captionerOption
          : limited(
              typeof captionerOption === 'object'
                ? captionerOption
                : createEndpointModel(
                    'captioner',
                    captionerOption ?? upstream?.captioner.model ?? DEFAULT_CAPTION_MODEL,
                  ),
            ),
        imagesWithLimits(options.images, options.limits),
        upstream,
      )
    : undefined;
  assertModelName('judge', model.modelId);
  if (captioner) assertModelName('captioner', captioner.modelId);
  const settings = { judgeModel: model.modelId, judgeType, promptVersion };
  const request = { ...settings, captioner: captioner?.modelId, prompts: upstream?.provenance };

  // Run dirs without better_log.json too: a run that errored before its first step is listed.
  const dirs = await discoverTrajectories(options.rootDir, { runDirs: true });
  const results: Record<string, Judgment> = {};
  const errors: Record<string, string> = {};
  const processingTimes: Record<string, number> = {};
  const runFacts: Record<string, RunFacts | undefined> = {};
  const pending: string[] = [];
  const erroredRuns: Record<string, string> = {};
  const foreign: Record<string, string> = {};
  const versionDirs: Record<string, string> = {};
  const rule = options.runRule ?? 'auto';
  const notes: Record<string, string> = {};
  const images: Record<string, { expected: number; missing: number }> = {};
  // Each run is judged with its own observation type (from its facts) unless one is asked for.
  const observationTypes: Record<string, ObservationType> = {};
  const overridden: string[] = [];
  const observationMatters = judgeTypeUsesObservationType(judgeType);
  let upstreamRuled = 0;
  for (const dir of dirs) {
    const status = await readRunStatus(dir);
    const hasLog = existsSync(join(dir, 'better_log.json'));
    // Read when needed: the origin rules an unfinished run; the run's observation type shapes the
    // per-step judges' input (other judge types record the one asked for, or upstream's default).
    const record =
      hasLog && (status.state !== 'finished' || observationMatters)
        ? await readRunRecord(dir)
        : undefined;
    if (record) runFacts[dir] = record.facts;
    if (status.state !== 'finished') {
      // Upstream's batch judge judges every dir with a better_log.json, finished or not; osharm's
      // own runs keep osharm's rule (an errored or unfinished run has no verdict to give).
      const upstreamRule =
        hasLog && (rule === 'upstream' || (rule === 'auto' && record?.origin === 'other'));
      if (upstreamRule) {
        upstreamRuled += 1;
        notes[dir] =
          status.state === 'errored'
            ? `judged as upstream's batch judge does, though the run ended with an error line (${status.reason})`
            : "no result.txt: judged as upstream's batch judge does";
      } else if (!(status.state === 'unfinished' && hasLog && options.includeUnfinished === true)) {
        erroredRuns[dir] = status.reason;
        continue;
      }
    }
    const choice = chooseObservationType(
      options.observationType,
      observationMatters ? record : undefined,
    );
    observationTypes[dir] = choice.observationType;
    const note = observationMatters ? observationTypeNote(choice) : undefined;
    if (note) {
      notes[dir] = notes[dir] ? `${notes[dir]}; ${note}` : note;
      if (choice.source === 'option') overridden.push(dir);
    }
    const plan = await planResume(
      dir,
      { ...request, observationType: choice.observationType },
      options,
    );
    if (plan.action === 'reuse') {
      results[dir] = plan.judgment;
      if (plan.provenance.images) images[dir] = plan.provenance.images;
      if (!record) runFacts[dir] = await readRunFacts(dir);
    } else if (plan.action === 'keep-foreign') foreign[dir] = describeForeign(plan.foreign);
    else {
      versionDirs[dir] = plan.versionDir;
      pending.push(dir);
    }
  }
  // The batch's observation type (config and file name, upstream's): the one asked for, else the
  // one every run shares, else upstream's default (each run's own is in its judgment's provenance).
  const types = new Set(Object.values(observationTypes));
  const observationType =
    options.observationType ??
    (types.size === 1 ? [...types][0]! : PUBLISHED_RUNS_OBSERVATION_TYPE);
  const resultsFile = await resultsFileToWrite(
    options.rootDir,
    batchResultsPath({ rootDir: options.rootDir, ...settings, observationType }),
  );
  Object.assign(
    processingTimes,
    await previousProcessingTimes(options.rootDir, resultsFile, new Set(Object.keys(results))),
  );
  const errored = Object.keys(erroredRuns).length;
  const skipped = dirs.length - errored - pending.length - Object.keys(foreign).length;
  options.onProgress?.({
    type: 'start',
    total: dirs.length,
    skipped,
    pending: pending.length,
    errored,
  });
  if (upstreamRuled > 0)
    options.onProgress?.({
      type: 'note',
      message: `${upstreamRuled} run(s) without result.txt that osharm did not write: judged as upstream's batch judge does (every dir with a better_log.json; see "notes")${rule === 'auto' ? ' — --run-rule osharm leaves them out' : ''}`,
    });
  if (errored > 0)
    options.onProgress?.({
      type: 'note',
      message: `${errored} errored or unfinished run(s) not judged (osharm's rule for its own runs; see "errored_runs") — ${options.includeUnfinished === true ? '' : '--include-unfinished judges the unfinished ones, '}--run-rule upstream judges every dir with a better_log.json`,
    });
  if (overridden.length > 0)
    options.onProgress?.({
      type: 'note',
      message: `observation type ${observationType} as asked (--observation-type) overrides the one ${overridden.length} run(s) recorded (see "notes")`,
    });
  if (Object.keys(foreign).length > 0)
    options.onProgress?.({
      type: 'note',
      message: `${Object.keys(foreign).length} trajectory(ies) hold a verdict of another provenance: kept, not judged (--rejudge-foreign judges them beside it)`,
    });

  let judgeUsage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  let captionUsage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  let calls = 0;
  let cachedCaptions = 0;
  const useBatch = options.batchApi !== undefined && options.batchApi !== false;

  if (useBatch) {
    const outcome = await judgeTreeWithBatchApi({
      ...options,
      dirs: pending,
      versionDirs,
      model,
      captioner,
      judgeType,
      promptVersion,
      observationTypes,
      upstream,
    });
    Object.assign(results, outcome.results);
    Object.assign(images, outcome.images);
    for (const dir of Object.keys(outcome.results))
      if (!(dir in runFacts)) runFacts[dir] = await readRunFacts(dir);
    Object.assign(errors, outcome.errors);
    judgeUsage = outcome.judgeUsage;
    captionUsage = outcome.captionUsage;
    calls = outcome.calls;
    cachedCaptions = outcome.cachedCaptions;
  } else {
    const limit = pLimit(Math.max(1, options.concurrency ?? 8));
    let done = 0;
    const running = new RunningWork();
    await Promise.all(
      pending.map(dir =>
        limit(async () => {
          if (options.abortSignal?.aborted) return;
          const begin = performance.now();
          let judgment: Judgment | undefined;
          let error: string | undefined;
          let cause: unknown;
          try {
            const result = await withDeadline(
              options.trajectoryTimeoutMs ?? DEFAULT_TRAJECTORY_TIMEOUT_MS,
              options.abortSignal,
              signal =>
                judgeTrajectory({
                  dir,
                  judgeType,
                  promptVersion,
                  observationType: observationTypes[dir],
                  model,
                  captioner,
                  images: options.images,
                  limits: options.limits,
                  refreshCaptions: options.recaption,
                  versionDir: versionDirs[dir],
                  upstream,
                  abortSignal: signal,
                }),
              running.track,
            );
            judgment = result.judgment;
            results[dir] = judgment;
            if (result.provenance.images) images[dir] = result.provenance.images;
            runFacts[dir] = result.run;
            judgeUsage = addUsage(judgeUsage, result.usage.judge);
            captionUsage = addUsage(captionUsage, result.usage.captioner);
            calls += result.usage.calls;
            cachedCaptions += result.usage.cachedCaptions;
          } catch (caught) {
            if (options.abortSignal?.aborted) return;
            error = redactSecrets(`Error processing ${dir}: ${errorText(caught)}`);
            cause = caught;
            errors[dir] = error;
          }
          const seconds = (performance.now() - begin) / 1000;
          processingTimes[dir] = seconds;
          done += 1;
          options.onProgress?.({
            type: 'trajectory-end',
            dir,
            judgment,
            error,
            cause,
            seconds,
            done,
            pending: pending.length,
          });
        }),
      ),
    );
    // Nothing this call started writes a file after it settled (aborted work is waited for).
    if (options.abortSignal?.aborted) await running.stopped();
  }
  options.abortSignal?.throwIfAborted();

  const totalSeconds = (performance.now() - started) / 1000;
  const judgeCost = usageCost(model.modelId, judgeUsage, {
    batch: useBatch,
    prices: options.prices,
  });
  const captionCost = captioner
    ? usageCost(captioner.modelId, captionUsage, { prices: options.prices })
    : 0;
  const usage: TreeUsage = {
    judge_model: model.modelId,
    captioner_model: captioner?.modelId ?? null,
    judge_input_tokens: judgeUsage.inputTokens,
    judge_output_tokens: judgeUsage.outputTokens,
    captioner_input_tokens: captionUsage.inputTokens,
    captioner_output_tokens: captionUsage.outputTokens,
    model_calls: calls,
    cached_captions: cachedCaptions,
    skipped_already_judged: skipped,
    batch_api: useBatch,
    estimated_cost_usd: judgeCost === null || captionCost === null ? null : judgeCost + captionCost,
  };
  const sortedResults = Object.fromEntries(
    Object.keys(results)
      .sort()
      .map(key => [key, results[key]!]),
  );
  const sortedErrors = Object.fromEntries(
    Object.keys(errors)
      .sort()
      .map(key => [key, errors[key]!]),
  );
  const output: JudgeTreeResult = {
    config: {
      root_dir: options.rootDir,
      observation_type: observationType,
      sys_prompt_version: promptVersion,
      judge_model: model.modelId,
      judge_type: judgeType,
    },
    results: sortedResults,
    errors: sortedErrors,
    ...summarizeTree({
      rootDir: options.rootDir,
      results: sortedResults,
      errors: sortedErrors,
      erroredRuns,
      processingTimes,
      totalSeconds,
      runFacts,
    }),
    usage,
    errored_runs: Object.fromEntries(
      Object.keys(erroredRuns)
        .sort()
        .map(key => [key, erroredRuns[key]!]),
    ),
    foreign: Object.fromEntries(
      Object.keys(foreign)
        .sort()
        .map(key => [key, foreign[key]!]),
    ),
    missing_images: Object.fromEntries(
      Object.keys(images)
        .filter(key => key in results && images[key]!.missing > 0)
        .sort()
        .map(key => [key, images[key]!]),
    ),
    provenance: {
      tool: 'osharm',
      tool_version: VERSION,
      judge_endpoint: model.endpoint ?? null,
      captioner_endpoint: captioner ? (captioner.endpoint ?? null) : null,
    },
    notes: Object.fromEntries(
      Object.keys(notes)
        .filter(key => key in results || key in errors)
        .sort()
        .map(key => [key, notes[key]!]),
    ),
  };
  if (options.write !== false) {
    await writeArtifact(
      options.rootDir,
      relative(options.rootDir, resultsFile),
      `${JSON.stringify(output, null, 2)}\n`,
    );
  }
  return output;
}
