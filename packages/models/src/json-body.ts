import { randomUUID } from 'node:crypto';

const QUOTE = Buffer.from('"');

/**
 * Serializes request bodies whose images are spliced in as bytes. `JSON.stringify` scans every
 * character of a string for escapes (about 130 MB/s on Node 22): with four 1920×1080 screenshots a
 * step's body is 4–5 MB of base64 and took ~35 ms, more than everything else the agent does. Base64
 * needs no escaping, so the body is stringified with a short placeholder per image and the image
 * text is copied in as Latin-1 bytes (a memcpy).
 */
export class JsonBodyWriter {
  private readonly marker = `osharm-blob-${randomUUID()}-`;
  private readonly blobs: (readonly string[])[] = [];

  /**
   * A placeholder string for the concatenation of `parts`, which must need no JSON escaping
   * (base64, a `data:` URL prefix): no `"`, no `\`, no control or non-ASCII characters.
   */
  blob(...parts: string[]): string {
    this.blobs.push(parts);
    return `${this.marker}${this.blobs.length - 1}`;
  }

  /** The JSON bytes of `body`, with every placeholder replaced by its text. */
  serialize(body: unknown): Buffer {
    const json = JSON.stringify(body);
    if (this.blobs.length === 0) return Buffer.from(json, 'utf8'); // text only: nothing to splice
    const chunks: Buffer[] = [];
    let copied = 0;
    for (const match of json.matchAll(new RegExp(`"${this.marker}(\\d+)"`, 'g'))) {
      chunks.push(Buffer.from(json.slice(copied, match.index), 'utf8'));
      chunks.push(QUOTE);
      for (const part of this.blobs[Number(match[1])]!) chunks.push(Buffer.from(part, 'latin1'));
      chunks.push(QUOTE);
      copied = match.index + match[0].length;
    }
    chunks.push(Buffer.from(json.slice(copied), 'utf8'));
    return Buffer.concat(chunks);
  }
}

/** How a body builder writes an image: a `data:` URL prefix (or none) and its base64. */
export type ImageText = (prefix: string, base64: string) => string;

/**
 * SDK request options that post the body `build` makes as pre-serialized JSON bytes (through the
 * SDK, so its retries, auth and errors stay the same; a body object holding megabytes of base64
 * screenshots would keep those strings and their JSON text on the heap until the answer comes).
 */
export function preserializedJsonRequest(
  build: (imageText: ImageText) => unknown,
  options: {
    readonly signal?: AbortSignal;
    readonly timeout?: number;
    readonly maxRetries?: number;
  },
) {
  const writer = new JsonBodyWriter();
  const body = build((prefix, base64) => writer.blob(prefix, base64));
  return {
    body: writer.serialize(body),
    headers: { 'content-type': 'application/json' },
    signal: options.signal,
    ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
  };
}
