import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { Agent, type FormData, request } from 'undici';
import type { Dispatcher } from 'undici';
import { GuestRequestError } from './desktop-env-errors';
import type { GuestCallOptions } from './guest-client';
import type { GuestEndpoint } from './vm-provider';
import { backoffDelayMs, sleep } from './backoff';

/** The guest protocol calls, one per client method; keys of {@link GuestClientSettings.timeouts}. */
export type GuestOperation =
  | 'screenshot'
  | 'accessibilityTree'
  | 'terminalOutput'
  | 'execute'
  | 'executeWithVerification'
  | 'launch'
  | 'runPython'
  | 'runBashScript'
  | 'getFile'
  | 'uploadFile'
  | 'listDirectory'
  | 'openFile'
  | 'activateWindow'
  | 'closeWindow'
  | 'changeWallpaper'
  | 'screenSize'
  | 'cursorPosition'
  | 'windowSize'
  | 'desktopPath'
  | 'wallpaper'
  | 'platform'
  | 'startRecording'
  | 'endRecording';

/**
 * Default timeout of each call in ms. Every call is bounded (upstream's `/accessibility` call had no
 * timeout at all, issue #182). `runBashScript` has no fixed default: it is the script's own timeout
 * + 100 s, as upstream; `executeWithVerification` is `maxWaitTime` + 10 s, as upstream.
 */
export const DEFAULT_GUEST_TIMEOUTS_MS: Readonly<Record<GuestOperation, number>> = {
  screenshot: 10_000,
  accessibilityTree: 30_000,
  terminalOutput: 10_000,
  // the guest's subprocess timeout is 120 s; leave room for the answer
  execute: 130_000,
  executeWithVerification: 20_000,
  launch: 10_000,
  // the guest runs the code with a 30 s timeout; upstream's host waits 90 s
  runPython: 90_000,
  runBashScript: 130_000,
  getFile: 60_000,
  listDirectory: 30_000,
  uploadFile: 600_000,
  // the guest waits up to 60 s for the file's window (osharm's server; upstream: 1800 s), then answers
  openFile: 70_000,
  // osharm's guest waits up to 10 s for the window to appear before answering
  activateWindow: 25_000,
  closeWindow: 10_000,
  changeWallpaper: 10_000,
  screenSize: 10_000,
  cursorPosition: 10_000,
  windowSize: 10_000,
  desktopPath: 10_000,
  wallpaper: 30_000,
  platform: 10_000,
  startRecording: 10_000,
  // the guest waits up to 15 s for ffmpeg to finish, then sends the whole mp4
  endRecording: 120_000,
};

const MiB = 1024 * 1024;

/**
 * Default cap of each answer in bytes. An answer is read incrementally and the transfer stops at
 * the cap: a call answered in memory then fails (the guest's answer is larger than its cap); a
 * call streamed to disk ({@link GuestTransport.download}: `/file` to a file, the recording) keeps
 * what came and reports it truncated. The agent controls what the desktop holds, so nothing it
 * offers may grow the harness's memory or disk without bound.
 */
export const DEFAULT_GUEST_ANSWER_LIMITS: Readonly<Record<GuestOperation, number>> = {
  screenshot: 64 * MiB,
  accessibilityTree: 64 * MiB,
  terminalOutput: 16 * MiB,
  // the guest keeps at most 32 MiB of a command's output; JSON escaping can double it
  execute: 80 * MiB,
  executeWithVerification: 80 * MiB,
  launch: MiB,
  runPython: 80 * MiB,
  runBashScript: 80 * MiB,
  // in memory (getFile); downloads to disk take their own cap (downloadFile)
  getFile: 64 * MiB,
  uploadFile: MiB,
  listDirectory: 64 * MiB,
  openFile: MiB,
  activateWindow: MiB,
  closeWindow: MiB,
  changeWallpaper: MiB,
  screenSize: MiB,
  cursorPosition: MiB,
  windowSize: MiB,
  desktopPath: MiB,
  wallpaper: 64 * MiB,
  platform: MiB,
  startRecording: MiB,
  endRecording: 2048 * MiB,
};

/** Default cap of a file downloaded to disk with `downloadFile` (evaluators' files). */
export const DEFAULT_DOWNLOAD_LIMIT_BYTES = 1024 * MiB;

/** What {@link GuestTransport.download} wrote. */
export interface DownloadResult {
  /** Bytes written to the destination. */
  readonly bytes: number;
  /** True when the answer was longer than the cap and the transfer was stopped there. */
  readonly truncated: boolean;
}

/** Thrown when an answer read into memory is longer than its cap. */
export class AnswerTooLarge extends Error {}

/** What the client reports to {@link GuestClientSettings.logger}. Never contains the token. */
export type GuestClientEvent =
  | {
      readonly type: 'request-retry';
      /** Protocol path, e.g. `/screenshot`. */
      readonly endpoint: string;
      /** 1-based number of the retry about to be made. */
      readonly retry: number;
      readonly delayMs: number;
      /** The message of the error that is being retried. */
      readonly reason: string;
    }
  | {
      readonly type: 'request-error';
      readonly endpoint: string;
      readonly status: number | undefined;
      readonly message: string;
    };

/** Settings of {@link createGuestClient}. */
export interface GuestClientSettings {
  /** Per-operation timeouts in ms, merged over {@link DEFAULT_GUEST_TIMEOUTS_MS}. */
  readonly timeouts?: Partial<Record<GuestOperation, number>>;
  /**
   * Retries of an idempotent call (GET screenshot / accessibility / terminal / cursor / platform,
   * POST file / list_directory / screen_size / window_size / desktop_path / wallpaper) after a
   * connection error, a timeout, an invalid answer or HTTP 408 / 409 / 429 / 5xx. Calls with side
   * effects (execute, launch, run_python, run_bash_script, upload, open_file, activate / close
   * window, wallpaper change, recording) are never retried.
   * @default 2
   */
  readonly maxRetries?: number;
  /** Upper bound of one backoff delay in ms (also caps `retry-after`). @default 8000 */
  readonly maxRetryDelayMs?: number;
  /**
   * The undici dispatcher to send requests through. By default the client creates its own
   * `Agent` (over `endpoint.socketPath` when set), which {@link UndiciGuestClient.close} closes.
   */
  readonly dispatcher?: Dispatcher;
  /** Receives retries and failures (paths and statuses only; the token is never reported). */
  readonly logger?: (event: GuestClientEvent) => void;
  /** Per-operation answer caps in bytes, merged over {@link DEFAULT_GUEST_ANSWER_LIMITS}. */
  readonly answerLimits?: Partial<Record<GuestOperation, number>>;
}

export type RequestBody =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'form'; readonly value: Record<string, string> }
  | { readonly kind: 'multipart'; readonly value: FormData };

export interface CallSpec<T> {
  readonly operation: GuestOperation;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: RequestBody;
  /** Safe to send again: no side effect in the guest. */
  readonly idempotent: boolean;
  /** Default timeout when the call options and settings give none. */
  readonly defaultTimeoutMs?: number;
  /** Statuses that are an answer rather than an error (e.g. 404 → null). */
  readonly acceptStatus?: (status: number) => boolean;
  /** Cap of the answer in bytes (else the settings' or the operation's default). */
  readonly maxAnswerBytes?: number;
  /** Turns a 2xx (or accepted) answer into the result; throw {@link InvalidAnswer} to reject it. */
  readonly parse: (answer: Answer) => T;
}

export interface Answer {
  readonly status: number;
  readonly contentType: string;
  /** osharm's guest marks a cut accessibility walk (`X-Osharm-Truncated`); upstream's never does. */
  readonly truncated: string | undefined;
  readonly body: Buffer;
  /** Set when a 2xx answer was streamed to a file instead of read into `body`. */
  readonly download?: DownloadResult;
}

/** Thrown by a `parse` function: the guest answered, but not in the protocol's shape. */
export class InvalidAnswer extends Error {}

type AttemptResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: GuestRequestError; readonly retryAfterMs?: number };

const RETRYABLE_STATUSES = new Set([408, 409, 429]);

/**
 * Sends the guest protocol's calls: one connection pool, per-operation timeouts, retries of
 * idempotent calls with backoff. The endpoint groups (guest-calls-*.ts) describe each call.
 */
export class GuestTransport {
  readonly endpoint: GuestEndpoint;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly timeoutOverrides: Partial<Record<GuestOperation, number>>;
  private readonly maxRetries: number;
  private readonly maxRetryDelayMs: number;
  private readonly logger: ((event: GuestClientEvent) => void) | undefined;
  private readonly origin: string;
  private readonly answerLimits: Partial<Record<GuestOperation, number>>;

  constructor(endpoint: GuestEndpoint, settings: GuestClientSettings = {}) {
    this.endpoint = endpoint;
    this.origin = endpoint.baseUrl.replace(/\/+$/, '');
    this.timeoutOverrides = { ...settings.timeouts };
    this.maxRetries = Math.max(0, settings.maxRetries ?? 2);
    this.maxRetryDelayMs = settings.maxRetryDelayMs ?? 8_000;
    this.logger = settings.logger;
    this.answerLimits = { ...settings.answerLimits };
    if (settings.dispatcher) {
      this.dispatcher = settings.dispatcher;
      this.ownsDispatcher = false;
    } else {
      this.dispatcher = new Agent(
        endpoint.socketPath ? { connect: { socketPath: endpoint.socketPath } } : {},
      );
      this.ownsDispatcher = true;
    }
  }

  /** Closes the client's own connection pool (not a dispatcher passed in the settings). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
  /**
   * Sends a call whose 2xx answer is streamed to `destination` (written to a temporary file beside
   * it and renamed into place), at most `maxBytes` of it: the transfer stops at the cap and the
   * result says truncated. Other answers go to `spec.parse` as in {@link call} (a 404 → null).
   */
  async download(
    spec: CallSpec<unknown>,
    destination: string,
    maxBytes: number,
    options: GuestCallOptions | undefined,
  ): Promise<DownloadResult | null> {
    const streamed: CallSpec<DownloadResult | null> = {
      ...spec,
      parse: answer => {
        if (answer.download) return answer.download;
        spec.parse(answer);
        return null;
      },
    };
    return this.call(streamed, options, { destination, maxBytes });
  }

  async call<T>(
    spec: CallSpec<T>,
    options: GuestCallOptions | undefined,
    toFile?: { readonly destination: string; readonly maxBytes: number },
  ): Promise<T> {
    const maxRetries = spec.idempotent ? this.maxRetries : 0;
    for (let retry = 0; ; retry++) {
      const result = await this.attempt(spec, options, toFile);
      if (result.ok) return result.value;
      const { error } = result;
      if (retry >= maxRetries || !error.isRetryable || options?.abortSignal?.aborted) {
        this.logger?.({
          type: 'request-error',
          endpoint: spec.path,
          status: error.status,
          message: error.message,
        });
        throw error;
      }
      const delayMs = Math.min(
        result.retryAfterMs ?? backoffDelayMs(retry, this.maxRetryDelayMs),
        this.maxRetryDelayMs,
      );
      this.logger?.({
        type: 'request-retry',
        endpoint: spec.path,
        retry: retry + 1,
        delayMs,
        reason: error.message,
      });
      try {
        await sleep(delayMs, options?.abortSignal);
      } catch (cause) {
        throw abortedError(spec.path, cause);
      }
    }
  }

  private async attempt<T>(
    spec: CallSpec<T>,
    options: GuestCallOptions | undefined,
    toFile: { readonly destination: string; readonly maxBytes: number } | undefined,
  ): Promise<AttemptResult<T>> {
    const { path } = spec;
    // per call > per client > derived from the call (bash script timeout …) > default
    const effectiveTimeoutMs =
      options?.timeoutMs ??
      this.timeoutOverrides[spec.operation] ??
      spec.defaultTimeoutMs ??
      DEFAULT_GUEST_TIMEOUTS_MS[spec.operation];
    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new Error(`timed out after ${effectiveTimeoutMs} ms`)),
      effectiveTimeoutMs,
    );
    const signal = options?.abortSignal
      ? AbortSignal.any([options.abortSignal, timeout.signal])
      : timeout.signal;
    let answer: Answer;
    let retryAfterMs: number | undefined;
    try {
      const response = await request(`${this.origin}${path}`, {
        method: spec.method,
        headers: this.headers(spec.body),
        body: encodeBody(spec.body),
        signal,
        dispatcher: this.dispatcher,
        // our own timer bounds the whole call, headers and body alike
        headersTimeout: effectiveTimeoutMs + 1_000,
        bodyTimeout: effectiveTimeoutMs + 1_000,
      });
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      const maxBytes =
        spec.maxAnswerBytes ??
        this.answerLimits[spec.operation] ??
        DEFAULT_GUEST_ANSWER_LIMITS[spec.operation];
      const download =
        ok && toFile
          ? await streamToFile(response.body, toFile.destination, toFile.maxBytes)
          : undefined;
      const body = download ? Buffer.alloc(0) : await readCapped(response.body, maxBytes, path);
      answer = {
        status: response.statusCode,
        contentType: headerValue(response.headers['content-type']) ?? '',
        truncated: headerValue(response.headers['x-osharm-truncated']),
        body,
        ...(download ? { download } : {}),
      };
      retryAfterMs = parseRetryAfter(response.headers);
    } catch (cause) {
      if (options?.abortSignal?.aborted) return { ok: false, error: abortedError(path, cause) };
      if (cause instanceof AnswerTooLarge) {
        // the same call would bring the same answer: never retried
        return {
          ok: false,
          error: new GuestRequestError({
            endpoint: path,
            message: cause.message,
            cause,
            isRetryable: false,
          }),
        };
      }
      if (timeout.signal.aborted) {
        return {
          ok: false,
          error: new GuestRequestError({
            endpoint: path,
            message: `guest request ${spec.method} ${path} got no answer within ${effectiveTimeoutMs} ms`,
            cause,
            // a call with side effects may have run: never report it as safe to repeat
            isRetryable: spec.idempotent,
          }),
        };
      }
      return {
        ok: false,
        error: new GuestRequestError({
          endpoint: path,
          message: `guest request ${spec.method} ${path} to ${this.describeTarget()} failed: ${describeCause(cause)}`,
          cause,
          // a refused connection never reached the server, so even a call with side effects can be sent again
          isRetryable: spec.idempotent || isConnectionRefused(cause),
        }),
      };
    } finally {
      clearTimeout(timer);
    }

    const accepted = spec.acceptStatus?.(answer.status) ?? false;
    if (!accepted && (answer.status < 200 || answer.status >= 300)) {
      const excerpt = answer.body.toString('utf8', 0, Math.min(answer.body.length, 2_000));
      return {
        ok: false,
        error: new GuestRequestError({
          endpoint: path,
          status: answer.status,
          bodyExcerpt: excerpt,
          message: `guest request ${spec.method} ${path} answered HTTP ${answer.status}${
            excerpt ? `: ${excerpt.slice(0, 200).trim()}` : ''
          }`,
          isRetryable:
            spec.idempotent && (RETRYABLE_STATUSES.has(answer.status) || answer.status >= 500),
        }),
        retryAfterMs,
      };
    }
    try {
      return { ok: true, value: spec.parse(answer) };
    } catch (cause) {
      if (!(cause instanceof InvalidAnswer)) throw cause;
      return {
        ok: false,
        error: new GuestRequestError({
          endpoint: path,
          status: answer.status,
          bodyExcerpt: answer.body.toString('utf8', 0, Math.min(answer.body.length, 2_000)),
          message: `guest request ${spec.method} ${path} gave an invalid answer: ${cause.message}`,
          isRetryable: spec.idempotent,
        }),
      };
    }
  }

  private headers(body: RequestBody | undefined): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.endpoint.token) headers.authorization = `Bearer ${this.endpoint.token}`;
    if (body?.kind === 'json') headers['content-type'] = 'application/json';
    if (body?.kind === 'form') headers['content-type'] = 'application/x-www-form-urlencoded';
    return headers;
  }

  private describeTarget(): string {
    return this.endpoint.socketPath
      ? `unix socket ${this.endpoint.socketPath}`
      : `${this.endpoint.host}:${this.endpoint.serverPort}`;
  }
}

/**
 * Reads an answer into memory, at most `maxBytes`: past it the transfer is stopped and
 * {@link AnswerTooLarge} thrown (an announced content-length over the cap fails before reading).
 */
async function readCapped(body: Readable, maxBytes: number, path: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      throw new AnswerTooLarge(
        `guest answer to ${path} is larger than its cap of ${maxBytes} bytes; the transfer was stopped`,
      );
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Streams an answer to `destination` through a temporary file beside it (renamed into place at the
 * end, removed on failure), at most `maxBytes`: the rest is never read.
 */
async function streamToFile(
  body: Readable,
  destination: string,
  maxBytes: number,
): Promise<DownloadResult> {
  const temporary = `${destination}.part-${process.pid}-${Date.now()}`;
  const out = createWriteStream(temporary, { flags: 'wx' });
  let bytes = 0;
  let truncated = false;
  try {
    for await (const chunk of body) {
      let piece = chunk as Buffer;
      if (bytes + piece.length > maxBytes) {
        piece = piece.subarray(0, maxBytes - bytes);
        truncated = true;
      }
      bytes += piece.length;
      // `once` rejects on 'error' and removes its listeners either way
      if (piece.length > 0 && !out.write(piece)) await once(out, 'drain');
      if (truncated) {
        body.destroy();
        break;
      }
    }
    await new Promise<void>((resolve, reject) => {
      out.once('error', reject);
      out.end(() => resolve());
    });
    await rename(temporary, destination);
  } catch (error) {
    out.destroy();
    await rm(temporary, { force: true });
    throw error;
  }
  return { bytes, truncated };
}

function encodeBody(body: RequestBody | undefined): string | FormData | undefined {
  if (!body) return undefined;
  switch (body.kind) {
    case 'json':
      return JSON.stringify(body.value);
    case 'form':
      return new URLSearchParams(body.value).toString();
    case 'multipart':
      return body.value;
  }
}

function parseRetryAfter(
  headers: Record<string, string | string[] | undefined>,
): number | undefined {
  const milliseconds = Number(headerValue(headers['retry-after-ms']));
  if (
    Number.isFinite(milliseconds) &&
    milliseconds >= 0 &&
    headers['retry-after-ms'] !== undefined
  ) {
    return milliseconds;
  }
  const value = headerValue(headers['retry-after']);
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === 'string' && !cause.message.includes(code)
      ? `${cause.message} (${code})`
      : cause.message;
  }
  return String(cause);
}

function isConnectionRefused(cause: unknown): boolean {
  for (let error = cause; error instanceof Error; error = error.cause) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ECONNREFUSED' || code === 'ENOENT') return true;
  }
  return false;
}

function abortedError(path: string, cause: unknown): GuestRequestError {
  return new GuestRequestError({
    endpoint: path,
    message: `guest request ${path} was aborted`,
    cause,
    isRetryable: false,
  });
}
