import type { IncomingMessage, ServerResponse } from 'node:http';

/** An error that the stand-in answers with an HTTP status and the vendor's error JSON. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** Largest request body the stand-in reads (screenshots make requests big). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads the whole request body; a body over {@link MAX_BODY_BYTES} is a 413. */
export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES)
      throw new HttpError(413, `request body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** Parses a JSON request body that must be an object; anything else is a 400. */
export function parseJsonObject(body: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new HttpError(
      400,
      `the request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!isRecord(value)) throw new HttpError(400, 'the request body must be a JSON object');
  return value;
}

/** Writes a JSON answer unless the client has gone. */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendBytes(response, status, Buffer.from(JSON.stringify(body)), 'application/json', headers);
}

/** Writes a raw answer unless the client has gone. */
export function sendBytes(
  response: ServerResponse,
  status: number,
  bytes: Buffer,
  contentType: string,
  headers: Record<string, string> = {},
): void {
  if (response.destroyed || response.headersSent) return;
  response.writeHead(status, {
    'content-type': contentType,
    'content-length': String(bytes.length),
    ...headers,
  });
  response.end(bytes);
}

/** Request headers with lower-case names, one string per header, credentials redacted. */
export function redactedHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    headers[key] =
      key === 'authorization' || key === 'x-api-key' || key === 'x-goog-api-key'
        ? '<redacted>'
        : Array.isArray(value)
          ? value.join(', ')
          : value;
  }
  return headers;
}
