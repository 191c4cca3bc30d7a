import { join, relative } from 'node:path';
import pLimit from 'p-limit';
import {
  judgmentRelativePath,
  judgmentSchema,
  writeArtifact,
  type TrajectoryFileLimits,
  type Judgment,
  type JudgeType,
  type ObservationType,
  type PromptVersion,
} from '@osharm/task-schema';
import { createCaptioner, DEFAULT_CAPTION_MODEL, type Captioner } from './captioner';
import { createJudgeModel } from './create-judge-model';
import { buildJudgeInput } from './judge-input';
import { JudgeOutputError } from './judge-errors';
import type { ImageOptions } from './judge-images';
import type { JudgePrompt } from './judge-message';
import type { JudgeModelV1, TokenUsage } from './judge-model';
import { MISSING_SCREENSHOT_CAPTION } from './judge-prompts';
import { JUDGMENT_OUTPUT } from './judgment-output';
import { runFactsOf, type RunFacts } from './run-facts';
import { loadTrajectory, type Trajectory } from './trajectory';

/** Options of {@link judgeTrajectory}. */
export interface JudgeTrajectoryOptions {
  /** The trajectory dir (holding better_log.json). Either this or `trajectory`. */
  readonly dir?: string;
  /** An already loaded trajectory. */
  readonly trajectory?: Trajectory;
  /** @default 'aer' (upstream's default) */
  readonly judgeType?: JudgeType;
  /** @default 'v3' */
  readonly promptVersion?: PromptVersion;
  /** The judge: a model, or a name routed by {@link createJudgeModel} (`claude*` → Anthropic). @default 'gpt-4.1' */
  readonly model?: JudgeModelV1 | string;
  /** The captioner for caption-based judge types. @default a captioner on `gpt-4o-2024-11-20` (OpenAI) */
  readonly captioner?: Captioner | JudgeModelV1 | string;
  /** Observation type of the run; shapes the per-step judges' input. @default 'screenshot_a11y_tree' */
  readonly observationType?: ObservationType;
  /** Screenshot encoding for the judge. @default as stored (PNG, detail high: upstream's level) */
  readonly images?: ImageOptions;
  /** Judge against this instruction instead of the logged one (e.g. the un-jailbroken original). */
  readonly instruction?: string;
  /** Write messages.json and judgment.json into the trajectory dir. @default true */
  readonly write?: boolean;
  /** Extra attempts when the model's answer is not a valid judgment. @default 2 */
  readonly maxOutputRetries?: number;
  /** Size caps on the trajectory's files (better_log.json, traj.jsonl, screenshots). @default `DEFAULT_FILE_LIMITS` (32 MiB each) */
  readonly limits?: TrajectoryFileLimits;
  /** Make captions again instead of reading cached ones (`--force`). */
  readonly refreshCaptions?: boolean;
  readonly abortSignal?: AbortSignal;
}

/** Token usage of one judging, split by role. */
export interface JudgeUsage {
  readonly judge: TokenUsage;
  readonly captioner: TokenUsage;
  /** Model calls made (judge attempts + uncached captions). */
  readonly calls: number;
  /** Captions served from the cache. */
  readonly cachedCaptions: number;
}

/** What {@link judgeTrajectory} returns. */
export interface JudgeTrajectoryResult {
  readonly judgment: Judgment;
  readonly usage: JudgeUsage;
  readonly judgeModel: string;
  /** Path of judgment.json (when written). */
  readonly judgmentFile?: string;
  /** Problems tolerated while reading the trajectory (missing images, bad traj lines …). */
  readonly notes: readonly string[];
  /** Injection and jailbreak as better_log.json records them. */
  readonly run: RunFacts;
}

const addUsage = (a: TokenUsage, b: TokenUsage): TokenUsage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
});
const zero: TokenUsage = { inputTokens: 0, outputTokens: 0 };

/** Image options with the image size cap of `limits` (what every image read of a judging uses). */
export function imagesWithLimits(
  images: ImageOptions | undefined,
  limits: TrajectoryFileLimits | undefined,
): ImageOptions | undefined {
  if (limits?.maxImageBytes === undefined) return images;
  return { ...images, maxFileBytes: limits.maxImageBytes };
}

/** A captioner from the option: a ready captioner, a model, or a model name (routed). */
export function resolveCaptioner(
  option: JudgeTrajectoryOptions['captioner'],
  images?: ImageOptions,
): Captioner {
  if (option !== undefined && typeof option === 'object' && 'caption' in option) return option;
  const model =
    typeof option === 'object' ? option : createJudgeModel(option ?? DEFAULT_CAPTION_MODEL);
  return createCaptioner({ model, images });
}

/** Everything a judge call needs before it is sent: the prompt, and what the captions cost. */
export interface PreparedJudgeInput {
  readonly trajectory: Trajectory;
  readonly prompt: JudgePrompt;
  readonly captionUsage: TokenUsage;
  readonly captionCalls: number;
  readonly cachedCaptions: number;
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
  const judgeType = options.judgeType ?? 'aer';
  const needsCaptions =
    judgeType === 'aer' || judgeType === 'all_step_aer' || judgeType === 'captioned_default';
  const captions = new Map<string, string>();
  let captionUsage = zero;
  let captionCalls = 0;
  let cachedCaptions = 0;
  if (needsCaptions) {
    const captioner = resolveCaptioner(
      options.captioner,
      imagesWithLimits(options.images, options.limits),
    );
    const wanted = new Set<string>();
    if (judgeType === 'aer' || judgeType === 'all_step_aer') {
      if (trajectory.finalScreenshot) wanted.add(trajectory.finalScreenshot);
    }
    if (judgeType !== 'aer') {
      for (const step of trajectory.steps) if (step.screenshot) wanted.add(step.screenshot);
    }
    const cacheDir = join(trajectory.dir, 'captions', captioner.modelId);
    const limit = pLimit(4);
    await Promise.all(
      [...wanted].map(image =>
        limit(async () => {
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
  const prompt = await buildJudgeInput({
    trajectory,
    judgeType,
    promptVersion: options.promptVersion ?? 'v3',
    observationType: options.observationType ?? 'screenshot_a11y_tree',
    instruction: options.instruction,
    caption: async image =>
      image ? (captions.get(image) ?? MISSING_SCREENSHOT_CAPTION) : MISSING_SCREENSHOT_CAPTION,
  });
  return { trajectory, prompt, captionUsage, captionCalls, cachedCaptions };
}

function requireDir(dir: string | undefined): string {
  if (!dir) throw new TypeError('judgeTrajectory: pass `dir` or `trajectory`');
  return dir;
}

/**
 * Validates a model's structured answer as a judgment.
 * @throws {JudgeOutputError} when fields are missing or of the wrong type, or `violation_step`
 * points past the last step.
 */
export function validateJudgment(object: unknown, stepCount: number, where: string): Judgment {
  const parsed = judgmentSchema.safeParse(object);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map(issue => `${issue.path.join('.') || '$'}: ${issue.message}`)
      .join('; ');
    throw new JudgeOutputError({
      message: `${where}: not a valid judgment (${problems})`,
      output: JSON.stringify(object),
    });
  }
  const judgment = parsed.data;
  if (judgment.violation_step !== null && stepCount > 0 && judgment.violation_step >= stepCount) {
    throw new JudgeOutputError({
      message: `${where}: violation_step ${judgment.violation_step} is past the last step (${stepCount - 1})`,
      output: JSON.stringify(object),
    });
  }
  // Keep the keys upstream writes, in upstream's order.
  return {
    reasoning: judgment.reasoning,
    success: judgment.success,
    safety: judgment.safety,
    violation_step: judgment.violation_step,
  };
}

/** messages.json: the judge input as OpenAI-style messages, images referenced by file name. */
export function messagesForFile(prompt: JudgePrompt, dir: string): unknown[] {
  const messages: unknown[] = [];
  if (prompt.system !== undefined) {
    messages.push({
      role: 'system',
      content:
        typeof prompt.system === 'string'
          ? prompt.system
          : prompt.system.map(part => ({ type: 'text', text: part.text })),
    });
  }
  for (const message of prompt.messages) {
    messages.push({
      role: message.role,
      content:
        typeof message.content === 'string'
          ? message.content
          : message.content.map(part =>
              part.type === 'text'
                ? { type: 'text', text: part.text }
                : {
                    type: 'image_url',
                    image_url: { url: relative(dir, part.path), detail: part.detail ?? 'high' },
                  },
            ),
    });
  }
  return messages;
}

/**
 * Writes judgment.json (and messages.json) where upstream puts them; returns the judgment path.
 * Through task-schema's `writeArtifact`: keys redacted, atomic, and only into real directories
 * inside the trajectory dir (a symlinked `judgment/` dir is refused).
 */
export async function writeJudgment(options: {
  dir: string;
  judgment: Judgment;
  judgeModel: string;
  judgeType: JudgeType;
  promptVersion: PromptVersion;
  observationType: ObservationType;
  prompt?: JudgePrompt;
}): Promise<string> {
  if (options.prompt) {
    await writeArtifact(
      options.dir,
      'messages.json',
      `${JSON.stringify(messagesForFile(options.prompt, options.dir), null, 2)}\n`,
    );
  }
  return writeArtifact(
    options.dir,
    judgmentRelativePath({
      judgeModel: options.judgeModel,
      judgeType: options.judgeType,
      promptVersion: options.promptVersion,
      observationType: options.observationType,
    }),
    `${JSON.stringify(options.judgment, null, 2)}\n`,
  );
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
  const judgeType = options.judgeType ?? 'aer';
  const promptVersion = options.promptVersion ?? 'v3';
  const observationType = options.observationType ?? 'screenshot_a11y_tree';
  const model =
    typeof options.model === 'object'
      ? options.model
      : createJudgeModel(options.model ?? 'gpt-4.1');
  const prepared = await prepareJudgeInput(options);
  const { trajectory, prompt } = prepared;
  let usage = zero;
  let calls = prepared.captionCalls;
  let judgment: Judgment | undefined;
  let lastError: unknown;
  for (let attempt = 0; attempt <= (options.maxOutputRetries ?? 2); attempt += 1) {
    options.abortSignal?.throwIfAborted();
    calls += 1;
    try {
      const result = await model.generate({
        prompt,
        output: JUDGMENT_OUTPUT,
        images: imagesWithLimits(options.images, options.limits),
        abortSignal: options.abortSignal,
      });
      usage = addUsage(usage, result.usage);
      judgment = validateJudgment(result.object, trajectory.steps.length, model.modelId);
      break;
    } catch (error) {
      if (!JudgeOutputError.isInstance(error)) throw error;
      lastError = error;
    }
  }
  if (!judgment) throw lastError;
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
          prompt,
        });
  return {
    judgment,
    judgeModel: model.modelId,
    usage: {
      judge: usage,
      captioner: prepared.captionUsage,
      calls,
      cachedCaptions: prepared.cachedCaptions,
    },
    judgmentFile,
    notes: trajectory.notes,
    run: runFactsOf(trajectory.betterLog),
  };
}
