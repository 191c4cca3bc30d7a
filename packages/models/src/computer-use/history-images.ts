/**
 * Keeps only the most recent screenshots in a conversation history: older image parts become a
 * short text, so each request stays small (the vendors bill every image in the history, and the
 * harness's overhead per request grows with it). Anthropic's own computer-use loop does the same.
 */

/** Text that stands for a dropped screenshot. */
export const OMITTED_SCREENSHOT = '(an earlier screenshot, omitted)';

/** Screenshots kept by default. */
export const DEFAULT_KEEP_SCREENSHOTS = 3;

/**
 * Walks `history` from the end and replaces every image part past the `keep` most recent with
 * {@link OMITTED_SCREENSHOT} (in place). `isImage` tells an image part; `replacement` builds the text part.
 */
export function pruneScreenshots(
  history: unknown[],
  keep: number,
  isImage: (part: Record<string, unknown>) => boolean,
  replacement: () => Record<string, unknown>,
): void {
  let seen = 0;
  const visit = (parts: unknown[]): void => {
    for (let index = parts.length - 1; index >= 0; index -= 1) {
      const part = parts[index];
      if (typeof part !== 'object' || part === null) continue;
      const record = part as Record<string, unknown>;
      if (isImage(record)) {
        seen += 1;
        if (seen > keep) parts[index] = replacement();
      } else {
        for (const key of ['content', 'parts'])
          if (Array.isArray(record[key])) visit(record[key] as unknown[]);
      }
    }
  };
  visit(history);
}
