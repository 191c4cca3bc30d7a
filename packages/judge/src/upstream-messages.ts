/**
 * messages.json as upstream's judge writes it: `run_judge.py` dumps the message list it sends
 * (`json.dump(messages, f, indent=2)`, images inline as base64 data URLs) to the trajectory's
 * top-level `messages.json` on every judging. With an upstream checkout osharm writes the same
 * file: the OpenAI-style list its model layer sends (the parity test proves it equals upstream's),
 * in Python's `json.dump` text.
 */
import { createOpenAIChatModel } from '@osharm/models';
import type { ImageOptions } from './judge-images';
import type { JudgePrompt } from './judge-message';
import { judgeCallOptions } from './judge-call';

/**
 * The text of Python's `json.dump(value, f, indent=2)`: JSON with a two-space indent, `", "`-free
 * separators (`,` and `: `), no trailing newline, and — `ensure_ascii` — every character outside
 * printable ASCII written as a `\uXXXX` escape (UTF-16 units, as Python does for astral ones).
 */
export function pythonJsonDump(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[^\x20-\x7e\n]/g,
    char => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The message list upstream's judge sends and dumps, for `prompt` (images read and encoded). */
async function upstreamMessageList(
  prompt: JudgePrompt,
  images: ImageOptions | undefined,
): Promise<unknown[]> {
  // The OpenAI chat adapter's message list is the wire form upstream builds; no I/O is done by
  // making the adapter (it only shapes the body here), whatever vendor serves the judge.
  const body = createOpenAIChatModel('upstream-messages', { apiKey: 'unused' }).buildRequestBody(
    await judgeCallOptions({ provider: 'openai' }, { prompt, images }),
  );
  return body.messages as unknown[];
}

/** The text of upstream's `{trajectory}/messages.json` for `prompt`. */
export async function upstreamMessagesText(
  prompt: JudgePrompt,
  images: ImageOptions | undefined,
): Promise<string> {
  return pythonJsonDump(await upstreamMessageList(prompt, images));
}
