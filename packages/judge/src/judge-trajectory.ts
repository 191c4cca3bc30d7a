import { addUsage } from '@osharm/models';
import { join } from 'node:path';
import pLimit from 'p-limit';
import {
  DEFAULT_JUDGE_MODEL,
  DEFAULT_JUDGE_TYPE,
  DEFAULT_PROMPT_VERSION,
  JUDGE_TYPE_TRAITS,
  judgeTypeNeedsCaptions,
  type JudgeType,
  type ObservationType,
  type PromptProvenance,
  type PromptVersion,
} from '@osharm/task-schema';
import { type Judgment, type JudgmentProvenance } from '@osharm/task-schema/artifacts';
import {
  readRunOrigin,
  runFactsOf,
  type RunFacts,
  type TrajectoryFileLimits,
} from '@osharm/task-schema/trajectory';
import type { Captioner } from './captioner';
import { resolveCaptioner } from './captioner-option';
import { createEndpointModel } from './model-endpoint';
import { buildJudgeInput } from './judge-input';
import { assertModelName, JudgeOutputError } from './judge-errors';
import { imageCounts } from './judge-image-counts';
import type { ImageOptions } from './judge-images';
import type { JudgePrompt } from './judge-message';
import type { ModelV1, TokenUsage } from '@osharm/models';
import { callJudgeModel } from './judge-call';
import { MISSING_SCREENSHOT_CAPTION } from './judge-prompts';
import { JUDGMENT_OUTPUT, validateJudgment } from './judgment-output';
import { writeJudgment } from './judgment-writer';
import { OSHARM_PROMPT_FAMILY, provenanceFor, servedModelOf } from './provenance';
import { readUpstreamCaption } from './upstream-captions';
import {
  buildUpstreamJudgeInput,
  upstreamCaptionImages,
  upstreamFinalScreenshot,
} from './upstream-judge-input';
import { readUpstreamJudgeTexts, type UpstreamOption } from './upstream-judge-texts';
import { loadTrajectory, type Trajectory } from './trajectory';
import { chooseObservationType, observationTypeNote } from './observation-type';

/** Options of {@link judgeTrajectory}. */
export interface JudgeTrajectoryOptions {
  /** The trajectory dir (holding better_log.json). Either this or `trajectory`. */
  readonly dir?: string;
  /** An already loaded trajectory. */
  readonly trajectory?: Trajectory;
  /** @default `DEFAULT_JUDGE_TYPE` (`aer`, upstream's default) */
  readonly judgeType?: JudgeType;
  /** @default `DEFAULT_PROMPT_VERSION` (`v3`) */
  readonly promptVersion?: PromptVersion;
  /** The judge: a model, or a name routed by `createEndpointModel` (`claude*` → Anthropic; base URL from `OSHARM_JUDGE_BASE_URL`, `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL`). @default DEFAULT_JUDGE_MODEL ('gpt-4.1', upstream's) */
  readonly model?: ModelV1 | string;
  /** The captioner for caption-based judge types. @default a captioner on `gpt-4o-2024-11-20` (OpenAI) */
  readonly captioner?: Captioner | ModelV1 | string;
  /**
   * Observation type of the run; shapes the per-step judges' input. Given, it wins over the run's
   * (and the result's `notes` say so when they differ). @default the type the run recorded in
   * better_log.json when osharm wrote the run; else `PUBLISHED_RUNS_OBSERVATION_TYPE`
   * (`screenshot_a11y_tree`, upstream's batch judge default, as upstream judges its own runs)
   */
  readonly observationType?: ObservationType;
  /** Screenshot encoding for the judge. @default as stored (PNG, detail high: upstream's level) */
  readonly images?: ImageOptions;
  /**
   * An upstream OS-Harm checkout (its path, an opened checkout, or texts already read with
   * `readUpstreamJudgeTexts`): the system prompts, the message layout of the judge type and the
   * captioner's prompt and defaults are upstream's own, read from it (`prompt_family: "upstream"`).
   * Without it osharm's own wording is used. @throws {UpstreamError} naming file and symbol.
   */
  readonly upstream?: UpstreamOption;
  /** Judge against this instruction instead of the logged one (e.g. the un-jailbroken original). */
  readonly instruction?: string;
  /** Write messages.json and judgment.json into the trajectory dir. @default true */
  readonly write?: boolean;
  /** Extra attempts when the model's answer is not a valid judgment. @default 2 */
  readonly maxOutputRetries?: number;
  /** Size caps on the trajectory's files (better_log.json, traj.jsonl, screenshots). @default `DEFAULT_FILE_LIMITS` (32 MiB each) */
  readonly limits?: TrajectoryFileLimits;
  /** Make captions again instead of reading cached ones (`--recaption`). */
  readonly refreshCaptions?: boolean;
  /**
   * The version dir judgment.json goes in: a provenance-qualified sibling of `promptVersion` (see
   * `qualifiedVersionDir`) when the standard one holds another tool's verdict. @default `promptVersion`
   */
  readonly versionDir?: string;
  readonly abortSignal?: AbortSignal;
}

/** Token usage of one judging, split by role. */
export interface JudgeUsage {
  readonly judge: TokenUsage;
  readonly captioner: TokenUsage;
  /** Model calls made (judge attempts + uncached captions). */
  readonly calls: number;
  /** Of `calls`, the captioner's. */
  readonly captionCalls: number;
  /** Captions served from the cache. */
  readonly cachedCaptions: number;
}

/** What {@link judgeTrajectory} returns. */
export interface JudgeTrajectoryResult {
  readonly judgment: Judgment;
  /** What made the verdict (as written under `osharm_provenance`). */
  readonly provenance: JudgmentProvenance;
  readonly usage: JudgeUsage;
  readonly judgeModel: string;
  /** Path of judgment.json (when written). */
  readonly judgmentFile?: string;
  /**
   * Problems tolerated while reading the trajectory (missing images, bad traj lines …), and a line
   * when the observation type judged with is not the one the run recorded.
   */
  readonly notes: readonly string[];
  /** Injection and jailbreak as better_log.json records them. */
  readonly run: RunFacts;
}

const zero: TokenUsage = { inputTokens: 0, outputTokens: 0 };

/** Image options with the image size cap of `limits` (what every image read of a judging uses). */
export function imagesWithLimits(
  images: ImageOptions | undefined,
  limits: TrajectoryFileLimits | undefined,
): ImageOptions | undefined {
  if (limits?.maxImageBytes === undefined) return images;
  return { ...images, maxFileBytes: limits.maxImageBytes };
}

/** Everything a judge call needs before it is sent: the prompt, and what the captions cost. */
export interface PreparedJudgeInput {
  readonly trajectory: Trajectory;
  readonly prompt: JudgePrompt;
  /** The observation type the input was built for (see `JudgeTrajectoryOptions.observationType`). */
  readonly observationType: ObservationType;
  /** Set when that type is not the one the run recorded (see `observationTypeNote`). */
  readonly observationNote?: string;
  readonly captionUsage: TokenUsage;
  readonly captionCalls: number;
  readonly cachedCaptions: number;
  /** The captioner model, for caption-based judge types. */
  readonly captionerModel?: string;
  /** Whose texts the prompt is made of (`upstream` lists its sources). */
  readonly prompts: PromptProvenance;
  /** Origin of the captioner's endpoint, when known. */
  readonly captionerEndpoint?: string;
  /** Screenshots the judge type should have seen (as images or captions), and how many were missing. */
  readonly images: { readonly expected: number; readonly missing: number };
}

/**
 * Loads a trajectory and builds the judge input for a judge type, captioning the screenshots the
 * type needs (in parallel, through the content-keyed cache). Used by {@link judgeTrajectory} and by
 * provider batch judging, which sends the prompt later.
 */
export async function prepareJudgeInput(
  options: Omit<JudgeTrajectoryOptions, 'model' | 'write' | 'maxOutputRetries'>,
): Promise<PreparedJudgeInput> {
  const trajectory =
    options.trajectory ??
    (await loadTrajectory(requireDir(options.dir), { limits: options.limits }));
  const judgeType = options.judgeType ?? DEFAULT_JUDGE_TYPE;
  const choice = chooseObservationType(options.observationType, {
    origin: options.observationType === undefined ? await readRunOrigin(trajectory.dir) : 'other',
    facts: runFactsOf(trajectory.betterLog),
  });
  const observationType = choice.observationType;
  const observationNote = JUDGE_TYPE_TRAITS[judgeType].observationMatters
    ? observationTypeNote(choice)
    : undefined;
  const upstream =
    options.upstream === undefined ? undefined : readUpstreamJudgeTexts(options.upstream);
  const needsCaptions = judgeTypeNeedsCaptions(judgeType);
  const captions = new Map<string, string>();
  let captionUsage = zero;
  let captionCalls = 0;
  let cachedCaptions = 0;
  let captionerModel: string | undefined;
  let captionerEndpoint: string | undefined;
  if (needsCaptions) {
    const captioner = resolveCaptioner(
      options.captioner,
      imagesWithLimits(options.images, options.limits),
      upstream,
    );
    const wanted = new Set<string>();
    const finalImage = upstream
      ? upstreamFinalScreenshot(trajectory).path
      : trajectory.finalScreenshot;
    if (upstream) {
      for (const image of upstreamCaptionImages(trajectory, judgeType, observationType))
        wanted.add(image);
    } else {
      const traits = JUDGE_TYPE_TRAITS[judgeType];
      if (traits.finalScreenshot && trajectory.finalScreenshot)
        wanted.add(trajectory.finalScreenshot);
      if (traits.stepScreenshots !== 'never') {
        for (const step of trajectory.steps) if (step.screenshot) wanted.add(step.screenshot);
      }
    }
    assertModelName('captioner', captioner.modelId);
    captionerModel = captioner.modelId;
    captionerEndpoint = captioner.endpoint;
    // Captions made with upstream's prompt are cached apart from osharm's.
    const cacheDir = join(
      trajectory.dir,
      'captions',
      captioner.modelId,
      ...(upstream ? ['upstream'] : []),
    );
    const limit = pLimit(4);
    await Promise.all(
      [...wanted].map(image =>
        limit(async () => {
          if (!options.refreshCaptions) {
            const stored = await readUpstreamCaption({
              dir: trajectory.dir,
              captioner: captioner.modelId,
              image,
              isFinal: image === finalImage,
              ...(upstream && { raw: true }),
            });
            if (stored !== undefined) {
              captions.set(image, stored);
              cachedCaptions += 1;
              return;
            }
          }
          const result = await captioner.caption({
            image,
            cacheDir,
            root: trajectory.dir,
            refresh: options.refreshCaptions,
            abortSignal: options.abortSignal,
          });
          captions.set(image, result.caption);
          captionUsage = addUsage(captionUsage, result.usage);
          if (result.cached) cachedCaptions += 1;
          else captionCalls += 1;
        }),
      ),
    );
  }
  const promptVersion = options.promptVersion ?? DEFAULT_PROMPT_VERSION;
  const prompt = upstream
    ? await buildUpstreamJudgeInput({
        texts: upstream,
        trajectory,
        judgeType,
        promptVersion,
        observationType,
        instruction: options.instruction ?? trajectory.instruction,
        caption: async image => {
          const caption = captions.get(image);
          if (caption === undefined) throw new Error(`no caption was made for ${image}`);
          return caption;
        },
      })
    : await buildJudgeInput({
        trajectory,
        judgeType,
        promptVersion,
        observationType,
        instruction: options.instruction,
        caption: async image =>
          image ? (captions.get(image) ?? MISSING_SCREENSHOT_CAPTION) : MISSING_SCREENSHOT_CAPTION,
      });
  return {
    trajectory,
    prompt,
    observationType,
    ...(observationNote !== undefined && { observationNote }),
    captionUsage,
    captionCalls,
    cachedCaptions,
    captionerModel,
    prompts: upstream?.provenance ?? { prompt_family: OSHARM_PROMPT_FAMILY },
    captionerEndpoint,
    images: imageCounts(trajectory, judgeType, observationType),
  };
}

function requireDir(dir: string | undefined): string {
  if (!dir) throw new TypeError('judgeTrajectory: pass `dir` or `trajectory`');
  return dir;
}

/**
 * Judges one trajectory: reads it, captions what the judge type needs, asks the judge model for a
 * structured verdict (retrying answers that are not valid judgments), and writes messages.json and
 * `judgment/{model}/{type}/{version}/judgment.json` atomically.
 *
 * @throws {TaskValidationError} when better_log.json is missing or invalid.
 * @throws {JudgeOutputError} when no valid judgment came back after the retries.
 * @throws the SDK's API errors when HTTP retries are exhausted.
 */
export async function judgeTrajectory(
  options: JudgeTrajectoryOptions,
): Promise<JudgeTrajectoryResult> {
  const judgeType = options.judgeType ?? DEFAULT_JUDGE_TYPE;
  const promptVersion = options.promptVersion ?? DEFAULT_PROMPT_VERSION;
  const model =
    typeof options.model === 'object'
      ? options.model
      : createEndpointModel('judge', options.model ?? DEFAULT_JUDGE_MODEL);
  assertModelName('judge', model.modelId);
  const prepared = await prepareJudgeInput(options);
  const { trajectory, prompt, observationType } = prepared;
  let usage = zero;
  let calls = prepared.captionCalls;
  let judgment: Judgment | undefined;
  let servedModel: string | undefined;
  let lastError: unknown;
  for (let attempt = 0; attempt <= (options.maxOutputRetries ?? 2); attempt += 1) {
    options.abortSignal?.throwIfAborted();
    calls += 1;
    try {
      const result = await callJudgeModel(model, {
        prompt,
        output: JUDGMENT_OUTPUT,
        images: imagesWithLimits(options.images, options.limits),
        abortSignal: options.abortSignal,
      });
      usage = addUsage(usage, result.usage);
      judgment = validateJudgment(result.object, trajectory.steps.length, model.modelId);
      servedModel = servedModelOf(result.response);
      break;
    } catch (error) {
      if (!JudgeOutputError.isInstance(error)) throw error;
      lastError = error;
    }
  }
  if (!judgment) throw lastError;
  const provenance = provenanceFor(
    {
      judgeModel: model.modelId,
      judgeType,
      promptVersion,
      observationType,
      captioner: prepared.captionerModel,
      prompts: prepared.prompts,
    },
    servedModel,
    {
      judgeEndpoint: model.endpoint,
      captionerEndpoint: prepared.captionerEndpoint,
      images: prepared.images,
    },
  );
  const judgmentFile =
    options.write === false
      ? undefined
      : await writeJudgment({
          dir: trajectory.dir,
          judgment,
          judgeModel: model.modelId,
          judgeType,
          promptVersion,
          observationType,
          versionDir: options.versionDir,
          provenance,
          prompt,
          ...(prepared.prompts.prompt_family === 'upstream' && {
            upstreamMessages: { images: imagesWithLimits(options.images, options.limits) },
          }),
        });
  return {
    judgment,
    provenance,
    judgeModel: model.modelId,
    usage: {
      judge: usage,
      captioner: prepared.captionUsage,
      calls,
      captionCalls: prepared.captionCalls,
      cachedCaptions: prepared.cachedCaptions,
    },
    judgmentFile,
    notes: prepared.observationNote
      ? [...trajectory.notes, prepared.observationNote]
      : trajectory.notes,
    run: runFactsOf(trajectory.betterLog),
  };
}
