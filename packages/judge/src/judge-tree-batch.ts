import { addUsage } from '@osharm/models';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pLimit from 'p-limit';
import { type JudgeType, type ObservationType, type PromptVersion } from '@osharm/task-schema';
import { redactSecrets, writeArtifact, type Judgment } from '@osharm/task-schema/artifacts';
import {
  DEFAULT_FILE_LIMITS,
  readTrajectoryText,
  type TrajectoryFileLimits,
} from '@osharm/task-schema/trajectory';
import type { Captioner } from './captioner';
import { JudgeSettingError } from './judge-errors';
import type { ImageOptions } from './judge-images';
import type { ModelV1, TokenUsage } from '@osharm/models';
import { judgeBatchResults, judgeGuard, judgeRequestBody } from './judge-call';
import { imagesWithLimits, prepareJudgeInput } from './judge-trajectory';
import type { UpstreamJudgeTexts } from './upstream-judge-texts';
import { writeJudgment, writeMessages } from './judgment-writer';
import { provenanceFor, servedModelOf } from './provenance';
import type { JudgeTreeEvent } from './judge-tree-types';
import { JUDGMENT_OUTPUT, validateJudgment } from './judgment-output';

/** What a provider batch run is, persisted so a restarted process picks it up again. */
interface BatchState {
  readonly version: 1;
  readonly provider: string;
  readonly judgeModel: string;
  readonly judgeType: JudgeType;
  readonly promptVersion: PromptVersion;
  readonly batches: {
    id: string;
    items: Record<
      string,
      { dir: string; steps: number; images?: { expected: number; missing: number } }
    >;
  }[];
}

export interface BatchTreeOptions {
  readonly rootDir: string;
  readonly dirs: readonly string[];
  /** The version dir each trajectory's judgment goes in (default: the prompt version). */
  readonly versionDirs?: Readonly<Record<string, string>>;
  readonly model: ModelV1;
  readonly captioner: Captioner | undefined;
  readonly judgeType: JudgeType;
  readonly promptVersion: PromptVersion;
  /** Each trajectory's observation type (its own, or the one asked for: see `chooseObservationType`). */
  readonly observationTypes: Readonly<Record<string, ObservationType>>;
  /** Upstream's texts (`prompt_family: "upstream"`); osharm's own wording without. */
  readonly upstream?: UpstreamJudgeTexts;
  readonly images?: ImageOptions;
  readonly limits?: TrajectoryFileLimits;
  /** Make captions again instead of reading cached ones. */
  readonly recaption?: boolean;
  readonly batchApi?:
    boolean | { readonly pollIntervalMs?: number; readonly maxRequestsPerBatch?: number };
  readonly onProgress?: (event: JudgeTreeEvent) => void;
  readonly abortSignal?: AbortSignal;
}

export interface BatchTreeOutcome {
  results: Record<string, Judgment>;
  /** Screenshots each judged trajectory should have had, and how many were missing. */
  images: Record<string, { expected: number; missing: number }>;
  errors: Record<string, string>;
  judgeUsage: TokenUsage;
  captionUsage: TokenUsage;
  calls: number;
  cachedCaptions: number;
}

/** `{root}/.osharm-batch/{model}_{type}_{version}.json`. */
export function batchStatePath(
  rootDir: string,
  model: string,
  judgeType: string,
  promptVersion: string,
): string {
  return join(
    rootDir,
    '.osharm-batch',
    `${model.replaceAll('/', '_')}_${judgeType}_${promptVersion}.json`,
  );
}

/**
 * Judges trajectories through the provider's batch API: captions are made live (cached), the judge
 * requests go into one or more batches whose ids are written to a state file before polling, so a
 * killed process resumes polling the same batches instead of paying twice. Each result is joined
 * back on its custom_id and validated like a live answer.
 */
export async function judgeTreeWithBatchApi(options: BatchTreeOptions): Promise<BatchTreeOutcome> {
  const batchApi = options.model.batch;
  if (!batchApi) {
    throw new JudgeSettingError({
      message: `model "${options.model.modelId}" (${options.model.provider}) has no batch API`,
    });
  }
  const settings = typeof options.batchApi === 'object' ? options.batchApi : {};
  const pollIntervalMs = settings.pollIntervalMs ?? 30_000;
  const maxRequests = settings.maxRequestsPerBatch ?? 1000;
  const statePath = batchStatePath(
    options.rootDir,
    options.model.modelId,
    options.judgeType,
    options.promptVersion,
  );
  const outcome: BatchTreeOutcome = {
    results: {},
    images: {},
    errors: {},
    judgeUsage: { inputTokens: 0, outputTokens: 0 },
    captionUsage: { inputTokens: 0, outputTokens: 0 },
    calls: 0,
    cachedCaptions: 0,
  };

  let state: BatchState | undefined;
  if (existsSync(statePath)) {
    state = JSON.parse(
      await readTrajectoryText(statePath, {
        within: options.rootDir,
        maxBytes: DEFAULT_FILE_LIMITS.maxTextBytes,
      }),
    ) as BatchState;
    options.onProgress?.({
      type: 'note',
      message: `resuming ${state.batches.length} submitted batch(es) from ${statePath}`,
    });
  }
  // Trajectories in no submitted batch: all of them on a first run; after a restart, those that
  // failed to prepare or that a crash between two submissions kept from being sent.
  const submitted = new Set(
    state?.batches.flatMap(batch => Object.values(batch.items).map(item => item.dir)),
  );
  const toSubmit = options.dirs.filter(dir => !submitted.has(dir));
  if (toSubmit.length > 0) {
    // Prepare every request (captions happen here, live and cached), then submit in chunks.
    const prepared: {
      customId: string;
      dir: string;
      steps: number;
      images: { expected: number; missing: number };
      body: Record<string, unknown>;
    }[] = [];
    const limit = pLimit(8);
    await Promise.all(
      toSubmit.map((dir, index) =>
        limit(async () => {
          try {
            const input = await prepareJudgeInput({
              dir,
              judgeType: options.judgeType,
              promptVersion: options.promptVersion,
              observationType: options.observationTypes[dir],
              captioner: options.captioner,
              images: options.images,
              limits: options.limits,
              refreshCaptions: options.recaption,
              upstream: options.upstream,
              abortSignal: options.abortSignal,
            });
            outcome.captionUsage = addUsage(outcome.captionUsage, input.captionUsage);
            outcome.calls += input.captionCalls;
            outcome.cachedCaptions += input.cachedCaptions;
            const body = await judgeRequestBody(options.model, {
              prompt: input.prompt,
              output: JUDGMENT_OUTPUT,
              images: imagesWithLimits(options.images, options.limits),
            });
            await writeJudgmentMessages(
              dir,
              input,
              options.upstream && { images: imagesWithLimits(options.images, options.limits) },
            );
            prepared.push({
              customId: `t${String(index).padStart(6, '0')}`,
              dir,
              steps: input.trajectory.steps.length,
              images: input.images,
              body,
            });
          } catch (error) {
            outcome.errors[dir] = redactSecrets(
              `Error processing ${dir}: ${(error as Error).message}`,
            );
          }
        }),
      ),
    );
    prepared.sort((a, b) => a.customId.localeCompare(b.customId));
    const batches: BatchState['batches'] = [...(state?.batches ?? [])];
    for (let start = 0; start < prepared.length; start += maxRequests) {
      const chunk = prepared.slice(start, start + maxRequests);
      const id = await judgeGuard(() =>
        batchApi.submit({
          requests: chunk.map(item => ({ customId: item.customId, body: item.body })),
          signal: options.abortSignal,
        }),
      );
      batches.push({
        id,
        items: Object.fromEntries(
          chunk.map(item => [
            item.customId,
            { dir: item.dir, steps: item.steps, images: item.images },
          ]),
        ),
      });
      state = {
        version: 1,
        provider: options.model.provider,
        judgeModel: options.model.modelId,
        judgeType: options.judgeType,
        promptVersion: options.promptVersion,
        batches,
      };
      // Written after every submission: a crash between two chunks loses no paid work.
      await writeArtifact(
        options.rootDir,
        relative(options.rootDir, statePath),
        `${JSON.stringify(state, null, 2)}\n`,
      );
      options.onProgress?.({
        type: 'note',
        message: `submitted batch ${id} (${chunk.length} request(s))`,
      });
    }
  }
  if (!state) return outcome;

  for (const batch of state.batches) {
    for (;;) {
      const status = await judgeGuard(() =>
        batchApi.retrieve({ batchId: batch.id, signal: options.abortSignal }),
      );
      options.onProgress?.({
        type: 'batch-status',
        batchId: batch.id,
        status: status.status,
        completed: status.completed,
        failed: status.failed,
        total: status.total,
      });
      if (status.done) break;
      await sleep(pollIntervalMs, undefined, { signal: options.abortSignal });
    }
    const seen = new Set<string>();
    for await (const result of judgeBatchResults(options.model, batchApi, {
      batchId: batch.id,
      output: JUDGMENT_OUTPUT,
      abortSignal: options.abortSignal,
    })) {
      const item = batch.items[result.customId];
      if (!item) continue;
      seen.add(result.customId);
      outcome.calls += 1;
      if (!result.ok) {
        outcome.errors[item.dir] = redactSecrets(`Error processing ${item.dir}: ${result.error}`);
        continue;
      }
      outcome.judgeUsage = addUsage(outcome.judgeUsage, result.result.usage);
      try {
        const judgment = validateJudgment(result.result.object, item.steps, options.model.modelId);
        const request = {
          judgeModel: options.model.modelId,
          judgeType: options.judgeType,
          promptVersion: options.promptVersion,
          observationType: options.observationTypes[item.dir]!,
          captioner: options.captioner?.modelId,
          prompts: options.upstream?.provenance,
        };
        await writeJudgment({
          dir: item.dir,
          judgment,
          ...request,
          versionDir: options.versionDirs?.[item.dir],
          provenance: provenanceFor(request, servedModelOf(result.result.response), {
            judgeEndpoint: options.model.endpoint,
            captionerEndpoint: options.captioner?.endpoint,
            images: item.images,
          }),
        });
        outcome.results[item.dir] = judgment;
        if (item.images) outcome.images[item.dir] = item.images;
      } catch (error) {
        outcome.errors[item.dir] = redactSecrets(
          `Error processing ${item.dir}: ${(error as Error).message}`,
        );
      }
    }
    for (const [customId, item] of Object.entries(batch.items)) {
      if (!seen.has(customId) && !outcome.results[item.dir]) {
        outcome.errors[item.dir] = `Error processing ${item.dir}: no result in batch ${batch.id}`;
      }
    }
  }
  await rm(statePath, { force: true });
  return outcome;
}

async function writeJudgmentMessages(
  dir: string,
  input: Awaited<ReturnType<typeof prepareJudgeInput>>,
  upstream: { readonly images?: ImageOptions } | undefined,
) {
  // osharm's form: never over a messages.json another tool wrote; upstream's: replaced, as
  // upstream's run_judge.py does (see writeMessages).
  await writeMessages(dir, input.prompt, undefined, upstream);
}
