import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '@osharm/task-schema';
import { CAPTION_INSTRUCTION } from './judge-prompts';
import type { ImageOptions } from './judge-images';
import type { JudgeModelV1, TokenUsage } from './judge-model';

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
  /**
   * Captions an image. The cache is keyed by the image's content (SHA-256) and the captioner model,
   * so a rerun — or the same screen in another step — makes no model call.
   */
  caption(options: {
    image: string;
    cacheDir: string;
    abortSignal?: AbortSignal;
  }): Promise<CaptionResult>;
}

/** Settings of {@link createCaptioner}. */
export interface CaptionerSettings {
  /** The model that writes captions (any vendor). */
  readonly model: JudgeModelV1;
  /** How screenshots are encoded for it. @default as stored */
  readonly images?: ImageOptions;
  /** @default 1024 (upstream) */
  readonly maxOutputTokens?: number;
}

const zeroUsage: TokenUsage = { inputTokens: 0, outputTokens: 0 };

/** A captioner over any judge model, with a content-keyed cache on disk. */
export function createCaptioner(settings: CaptionerSettings): Captioner {
  const inFlight = new Map<string, Promise<CaptionResult>>();
  return {
    modelId: settings.model.modelId,
    async caption({ image, cacheDir, abortSignal }) {
      const digest = createHash('sha256')
        .update(await readFile(image))
        .digest('hex');
      const cacheFile = join(cacheDir, `${digest}.json`);
      if (existsSync(cacheFile)) {
        try {
          const cached = JSON.parse(await readFile(cacheFile, 'utf8')) as { caption?: unknown };
          if (typeof cached.caption === 'string')
            return { caption: cached.caption, cached: true, usage: zeroUsage };
        } catch {
          // A damaged cache entry is ignored and rewritten.
        }
      }
      // Concurrent requests for the same image share one model call.
      const pending = inFlight.get(cacheFile);
      if (pending) return { ...(await pending), cached: true, usage: zeroUsage };
      const work = (async (): Promise<CaptionResult> => {
        const result = await settings.model.generate({
          prompt: {
            messages: [
              {
                role: 'user',
                content: [
                  { type: 'text', text: CAPTION_INSTRUCTION },
                  { type: 'image', path: image, detail: 'high' },
                ],
              },
            ],
          },
          maxOutputTokens: settings.maxOutputTokens ?? 1024,
          images: settings.images,
          abortSignal,
        });
        const caption = (result.text ?? '').trim();
        await writeFileAtomic(
          cacheFile,
          `${JSON.stringify({ caption, model: settings.model.modelId, image: image.split('/').pop(), sha256: digest }, null, 2)}\n`,
        );
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
