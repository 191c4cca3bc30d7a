import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { GuestEndpoint } from '@osharm/desktop-env';

/** One answer of the guest server. */
export interface GuestResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** Options of {@link guestRequest}. */
export interface GuestRequestOptions {
  /** @default 'GET' */
  readonly method?: string;
  /** A JSON body (sets `content-type: application/json`). */
  readonly json?: unknown;
  /** A raw body with its content type (e.g. a urlencoded or multipart form). */
  readonly body?: { readonly data: Buffer | string; readonly contentType: string };
  /** Extra request headers. */
  readonly headers?: Record<string, string>;
  /** Send the endpoint's token. @default true */
  readonly authorize?: boolean;
  /** @default 30000 */
  readonly timeoutMs?: number;
  /** Fail (instead of buffering on) once the response body exceeds this many bytes. @default unlimited */
  readonly maxBytes?: number;
  readonly abortSignal?: AbortSignal;
}

/**
 * A minimal client for one guest-server request, over the endpoint's unix socket when it has one
 * (the local provider) or TCP. It never retries; the full protocol client is `@osharm/desktop-env`'s.
 * @throws {Error} on connection errors, timeouts and aborts (not on HTTP error statuses).
 */
export function guestRequest(
  endpoint: GuestEndpoint,
  path: string,
  options: GuestRequestOptions = {},
): Promise<GuestResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    let payload: Buffer | undefined;
    if (options.json !== undefined) {
      payload = Buffer.from(JSON.stringify(options.json));
      headers['content-type'] = 'application/json';
    } else if (options.body) {
      payload = Buffer.from(options.body.data);
      headers['content-type'] = options.body.contentType;
    }
    if (payload) headers['content-length'] = String(payload.length);
    if (endpoint.token && options.authorize !== false)
      headers.authorization = `Bearer ${endpoint.token}`;
    const url = new URL(path, endpoint.baseUrl);
    const request = httpRequest(
      {
        ...(endpoint.socketPath
          ? { socketPath: endpoint.socketPath }
          : { host: url.hostname, port: url.port || 80 }),
        path: url.pathname + url.search,
        method: options.method ?? 'GET',
        headers: { host: url.host, ...headers },
        timeout: options.timeoutMs ?? 30_000,
        signal: options.abortSignal,
      },
      response => {
        const chunks: Buffer[] = [];
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (options.maxBytes !== undefined && received > options.maxBytes) {
            reject(new Error(`guest response to ${path} exceeds ${options.maxBytes} bytes`));
            request.destroy();
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`guest request ${path} timed out`)));
    request.on('error', reject);
    request.end(payload);
  });
}

/** The desktop's own state directory (on /run's tmpfs; the desktop user can rewrite what is in it). */
const DESKTOP_STATE_DIR = '/run/osharm';

/** The largest record (shell record, sudo log, system log) the host reads back. */
const STATE_CAP_BYTES = 1024 * 1024;

/**
 * The lines of a JSON-lines record the desktop keeps (on /run's tmpfs), read through the guest
 * channel, capped at 1 MiB; none when the file does not exist. In `dir` /run/osharm (the default)
 * the agent can rewrite it, as any file of the desktop user; in the guest server's records directory
 * (the sudo and system logs: guest-record-log.ts) it cannot.
 * @throws {Error} naming `what` when the guest answers anything but 200 or 404.
 */
export async function readStateLines(
  endpoint: GuestEndpoint,
  name: string,
  what: string,
  dir: string = DESKTOP_STATE_DIR,
): Promise<string[]> {
  const response = await guestRequest(endpoint, '/file', {
    method: 'POST',
    body: {
      data: new URLSearchParams({ file_path: `${dir}/${name}` }).toString(),
      contentType: 'application/x-www-form-urlencoded',
    },
    maxBytes: STATE_CAP_BYTES,
    timeoutMs: 10_000,
  });
  if (response.status === 404) return [];
  if (response.status !== 200)
    throw new Error(`reading the ${what} failed: HTTP ${response.status}`);
  return response.body
    .toString('utf8')
    .split('\n')
    .filter(line => line.trim() !== '');
}
