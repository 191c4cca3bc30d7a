import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { writeArtifact } from '@osharm/task-schema/artifacts';
import {
  DEFAULT_FILE_LIMITS,
  readTrajectoryFile,
  readTrajectoryText,
  UnsafeFileError,
} from '@osharm/task-schema/trajectory';
import { JudgeOutputError } from './judge-errors';
import { CAPTION_INSTRUCTION } from './judge-prompts';
import type { ImageOptions } from './judge-images';
import type { ModelV1, TokenUsage } from '@osharm/models';
import { callJudgeModel } from './judge-call';

/** Upstream's captioner model (kept as the default for parity). */
export const DEFAULT_CAPTION_MODEL = 'gpt-4o-2024-11-20';

/** One caption, and whether it came from the cache. */
export interface CaptionResult {
  readonly caption: string;
  readonly cached: boolean;
  readonly usage: TokenUsage;
}

/** Describes screenshots in text for the `aer`, `all_step_aer` and `captioned_default` judges. */
export interface Captioner {
  readonly modelId: string;
  /** The instruction sent with each screenshot. */
  readonly prompt?: string;
  /** Origin of the captioner model's endpoint, when known (recorded in provenance). */
  readonly endpoint?: string;
  /**
   * Captions an image. The cache is keyed by the image's content (SHA-256) and the captioner model,
   * so a rerun — or the same screen in another step — makes no model call. Only complete captions
   * are cached: an empty answer is an error, and a caption cut by the token limit is used once but
   * not kept.
   */
  caption(options: {
    image: string;
    /** Where cache files go (`{trajectory}/captions/{model}`). */
    cacheDir: string;
    /** The dir cache writes must stay inside (every dir on the way a real one). @default the parent of `cacheDir` */
    root?: string;
    /** Ignore cached captions (made again once per process, then reused). */
    refresh?: boolean;
    abortSignal?: AbortSignal;
  }): Promise<CaptionResult>;
}

/** Settings of {@link createCaptioner}. */
export interface CaptionerSettings {
  /** The model that writes captions (any vendor: @osharm/models' `createModel(name)`). */
  readonly model: ModelV1;
  /** How screenshots are encoded for it (and the image size cap). @default as stored */
  readonly images?: ImageOptions;
  /** @default 1024 (upstream) */
  readonly maxOutputTokens?: number;
  /** The instruction sent with each screenshot. @default osharm's own (`CAPTION_INSTRUCTION`) */
  readonly prompt?: string;
  /** Trim the caption's surrounding whitespace (upstream uses the answer as is). @default true */
  readonly trimCaption?: boolean;
  /** OpenAI image detail of the screenshot; `null` names none (upstream's captioner). @default 'high' */
  readonly detail?: 'high' | 'low' | 'auto' | null;
  /** OpenAI: the output limit's field (upstream's captioner: `max_completion_tokens`). @default `max_tokens` */
  readonly maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}

const zeroUsage: TokenUsage = { inputTokens: 0, outputTokens: 0 };

/** A cache entry as written: only complete captions of this model for this image are reused. */
interface CacheEntry {
  readonly caption: string;
  readonly model: string;
  readonly image: string;
  readonly sha256: string;
  readonly complete: true;
}

const isUsableEntry = (value: unknown, model: string, digest: string): value is CacheEntry => {
  const entry = value as Partial<CacheEntry> | null;
  return (
    typeof entry === 'object' &&
    entry !== null &&
    typeof entry.caption === 'string' &&
    entry.caption.trim() !== '' &&
    entry.model === model &&
    entry.sha256 === digest &&
    entry.complete === true
  );
};

/** A captioner over any judge model, with a content-keyed cache on disk. */
export function createCaptioner(settings: CaptionerSettings): Captioner {
  const inFlight = new Map<string, Promise<CaptionResult>>();
  // Cache files made again in this process (with `refresh`): reused from then on.
  const refreshed = new Set<string>();
  // Each root's real path, resolved once: it only names the in-process keys below (the cache file
  // itself is read and written through the trajectory reader and writer, which check it each time).
  const realRoots = new Map<string, string>();
  const realRoot = (base: string): string => {
    let real = realRoots.get(base);
    if (real === undefined) {
      try {
        real = realpathSync.native(base);
      } catch {
        real = base;
      }
      if (realRoots.size >= 4096) realRoots.clear();
      realRoots.set(base, real);
    }
    return real;
  };
  const maxFileBytes = settings.images?.maxFileBytes ?? DEFAULT_FILE_LIMITS.maxImageBytes;
  const modelId = settings.model.modelId;
  const prompt = settings.prompt ?? CAPTION_INSTRUCTION;
  return {
    modelId,
    prompt,
    ...(settings.model.endpoint !== undefined && { endpoint: settings.model.endpoint }),
    async caption({ image, cacheDir, root = dirname(cacheDir), refresh, abortSignal }) {
      const bytes = await readTrajectoryFile(image, {
        within: dirname(image),
        maxBytes: maxFileBytes,
        kind: 'image',
      });
      const digest = createHash('sha256').update(bytes).digest('hex');
      // Any form of the same dir (relative, absolute, through a symlinked parent) is one cache:
      // the file is named relative to `root`, and the in-process maps are keyed by root's real path.
      const base = resolve(root);
      const relativeFile = relative(base, join(resolve(cacheDir), `${digest}.json`));
      const cacheFile = join(realRoot(base), relativeFile);
      if (!refresh || refreshed.has(cacheFile)) {
        try {
          const cached: unknown = JSON.parse(
            await readTrajectoryText(relativeFile, {
              within: base,
              maxBytes: DEFAULT_FILE_LIMITS.maxTextBytes,
            }),
          );
          if (isUsableEntry(cached, modelId, digest))
            return { caption: cached.caption, cached: true, usage: zeroUsage };
        } catch (error) {
          // A missing, refused, damaged or incomplete entry is made again (and rewritten).
          if (!UnsafeFileError.isInstance(error) && !(error instanceof SyntaxError)) throw error;
        }
      }
      // Concurrent requests for the same image share one model call.
      const pending = inFlight.get(cacheFile);
      if (pending) return { ...(await pending), cached: true, usage: zeroUsage };
      const work = (async (): Promise<CaptionResult> => {
        const result = await callJudgeModel(settings.model, {
          prompt: {
            messages: [
              {
                role: 'user',
                content: [
                  { type: 'text', text: prompt },
                  {
                    type: 'image',
                    path: image,
                    detail: settings.detail === undefined ? 'high' : settings.detail,
                  },
                ],
              },
            ],
          },
          maxOutputTokens: settings.maxOutputTokens ?? 1024,
          ...(settings.maxTokensField && { maxTokensField: settings.maxTokensField }),
          images: settings.images,
          abortSignal,
        });
        const text = result.text ?? '';
        const caption = settings.trimCaption === false ? text : text.trim();
        if (caption.trim() === '')
          throw new JudgeOutputError({
            message: `${modelId}: the captioner returned an empty caption for ${image.split('/').pop()}`,
          });
        if (result.truncated !== true) {
          const entry: CacheEntry = {
            caption,
            model: modelId,
            image: image.split('/').pop()!,
            sha256: digest,
            complete: true,
          };
          await writeArtifact(base, relativeFile, `${JSON.stringify(entry, null, 2)}\n`);
          if (refresh) refreshed.add(cacheFile);
        }
        return { caption, cached: false, usage: result.usage };
      })();
      inFlight.set(cacheFile, work);
      try {
        return await work;
      } finally {
        inFlight.delete(cacheFile);
      }
    },
  };
}
