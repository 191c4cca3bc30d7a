import { statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { parseJsonText } from '@osharm/task-schema/internal';
import { DEFAULT_FILE_LIMITS, readTrajectoryText } from '@osharm/task-schema/trajectory';

/**
 * Upstream's caption caches (reference/osharm-benchmark.md §5.5), read so a tree upstream already
 * captioned is not paid for again:
 * - `captions/{captioner}/{png_stem}.last_screenshot_caption.json` (`captioned_default`): one file
 *   per screenshot, named after it;
 * - `{captioner}.last_screenshot_caption.json` at the trajectory's top (`aer`, `all_step_aer`):
 *   one file, the caption of the final screenshot as upstream's `aer` picks it. It is used for that
 *   image only. (Upstream's `all_step_aer` writes the same path with the first caption it makes;
 *   upstream's own `aer` then reuses that file too, so reading it keeps parity with upstream.)
 *
 * Both hold `{"caption": str, "response": <OpenAI response dump>}`. A file is used only when its
 * caption is a non-empty string, the response (when it names a model) names the captioner, and
 * the answer was not cut by the token limit. Anything else — missing, refused, damaged — is
 * ignored and the image is captioned as usual.
 */
export function upstreamCaptionFiles(options: {
  /** Captioner model id (a `/` in it nests dirs, as upstream's paths do). */
  readonly captioner: string;
  /** Absolute path of the image. */
  readonly image: string;
  /** True when the image is the trajectory's final screenshot. */
  readonly isFinal: boolean;
}): string[] {
  const stem = basename(options.image, extname(options.image));
  const files = [`captions/${options.captioner}/${stem}.last_screenshot_caption.json`];
  if (options.isFinal) files.push(`${options.captioner}.last_screenshot_caption.json`);
  return files;
}

/** Reads an upstream caption for an image (see {@link upstreamCaptionFiles}); undefined when none is usable. */
export async function readUpstreamCaption(options: {
  /** The trajectory dir. */
  readonly dir: string;
  readonly captioner: string;
  readonly image: string;
  readonly isFinal: boolean;
  /** Return the caption as stored (upstream's judges do not trim it). @default false */
  readonly raw?: boolean;
}): Promise<string | undefined> {
  if (options.captioner.split('/').some(part => part === '' || part === '.' || part === '..'))
    return undefined;
  for (const file of upstreamCaptionFiles(options)) {
    // Usually there is none: a stat that throws nothing is far cheaper than a refused open.
    if (!statSync(join(options.dir, file), { throwIfNoEntry: false })) continue;
    let text: string;
    try {
      text = await readTrajectoryText(file, {
        within: options.dir,
        maxBytes: DEFAULT_FILE_LIMITS.maxTextBytes,
      });
    } catch {
      continue; // missing or refused (symlink, too large, outside): not used
    }
    const json = parseJsonText(text, file);
    if (json.ok && usable(json.value, options.captioner)) {
      const caption = (json.value as { caption: string }).caption;
      return options.raw ? caption : caption.trim();
    }
  }
  return undefined;
}

function usable(value: unknown, captioner: string): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { caption, response } = value as { caption?: unknown; response?: unknown };
  if (typeof caption !== 'string' || caption.trim() === '') return false;
  if (typeof response === 'object' && response !== null) {
    const { model, choices } = response as { model?: unknown; choices?: unknown };
    // OpenAI serves a dated id for an alias (gpt-4o → gpt-4o-2024-08-06): a prefix match is the same model.
    if (typeof model === 'string' && !sameModel(model, captioner)) return false;
    const finish = Array.isArray(choices)
      ? (choices[0] as { finish_reason?: unknown } | undefined)?.finish_reason
      : undefined;
    if (finish === 'length') return false;
  }
  return true;
}

const sameModel = (served: string, asked: string) =>
  served === asked || served.startsWith(`${asked}-`) || asked.startsWith(`${served}-`);
