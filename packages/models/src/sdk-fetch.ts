// The `fetch` the vendor SDKs (openai, @anthropic-ai/sdk) are given: one request over node:http /
// node:https with keep-alive, the whole answer read before the SDK sees it. Node's global fetch (undici's
// web-streams pipeline) cost more CPU per model call (measured in docs/packages/models.md and, on the
// judge bench, docs/benchmarks.md: 4.70 → 3.82 ms per trajectory); no call of this package streams. What this does not cover goes to
// the global fetch unchanged: a body that is not text or bytes (form data, a stream, a Blob), a
// protocol other than http(s), a Request object. It behaves as fetch does where the SDKs look: a
// failed connection rejects with `TypeError('fetch failed', { cause })`, an aborted one with the
// signal's reason, redirects are followed (by fetch, again), and gzip / deflate / br answers are
// decoded.
import http from 'node:http';
import https from 'node:https';
import type { OutgoingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
} as const;
// Statuses whose Response must have no body (the Response constructor refuses one).
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

type FetchInput = Parameters<typeof fetch>[0];

function plainHeaders(headers: RequestInit['headers']): OutgoingHttpHeaders {
  const plain: OutgoingHttpHeaders = {};
  if (headers === undefined || headers === null) return plain;
  if (headers instanceof Headers) headers.forEach((value, name) => (plain[name] = value));
  else if (Array.isArray(headers)) for (const [name, value] of headers) plain[name!] = value!;
  else
    for (const [name, value] of Object.entries(headers))
      if (value !== undefined) plain[name] = typeof value === 'string' ? value : [...value];
  return plain;
}

function decode(body: Buffer, encoding: string | undefined): Buffer {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(body);
    case 'deflate':
      return inflateSync(body);
    case 'br':
      return brotliDecompressSync(body);
    default:
      return body;
  }
}

/** `fetch` for the vendor SDKs (see the file's comment). */
export const sdkFetch = (input: FetchInput, init: RequestInit = {}): Promise<Response> => {
  const body = init.body;
  const plainBody =
    body === undefined ||
    body === null ||
    typeof body === 'string' ||
    body instanceof Uint8Array ||
    body instanceof ArrayBuffer;
  const url = input instanceof Request ? undefined : new URL(String(input));
  if (!plainBody || !url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    return fetch(input, init);
  const agent = agents[url.protocol];
  const signal = init.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    const fail = (error: unknown) =>
      reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }));
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(
      url,
      { method: init.method ?? 'GET', headers: plainHeaders(init.headers), agent, signal },
      response => {
        const status = response.statusCode ?? 0;
        if (
          REDIRECT_STATUSES.has(status) &&
          response.headers.location &&
          init.redirect !== 'manual'
        ) {
          response.resume();
          resolve(fetch(input, init));
          return;
        }
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.once('error', fail);
        response.once('close', () => {
          if (!response.complete)
            fail(new Error('the connection closed before the answer was complete'));
        });
        response.once('end', () => {
          try {
            const headers = new Headers();
            const raw = response.rawHeaders;
            for (let index = 0; index + 1 < raw.length; index += 2)
              headers.append(raw[index]!, raw[index + 1]!);
            const bytes = decode(Buffer.concat(chunks), response.headers['content-encoding']);
            resolve(
              new Response(NULL_BODY_STATUSES.has(status) ? null : bytes, {
                status,
                statusText: response.statusMessage ?? '',
                headers,
              }),
            );
          } catch (error) {
            fail(error);
          }
        });
      },
    );
    request.once('error', fail);
    request.end(body instanceof ArrayBuffer ? Buffer.from(body) : (body ?? undefined));
  });
};
