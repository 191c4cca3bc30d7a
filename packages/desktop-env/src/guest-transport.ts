import { Agent, type FormData, request } from 'undici';
import type { Dispatcher } from 'undici';
import { GuestRequestError } from './desktop-env-errors';
import type { GuestCallOptions } from './guest-client';
import type { GuestEndpoint } from './vm-provider';
import { backoffDelayMs, sleep } from './backoff';
import {
  AnswerTooLarge,
  DEFAULT_GUEST_ANSWER_LIMITS,
  DEFAULT_GUEST_TIMEOUTS_MS,
  type DownloadResult,
  type GuestOperation,
  readCapped,
  streamToFile,
} from './guest-operations';
import {
  describeCause,
  headerValue,
  isConnectionRefused,
  parseRetryAfter,
} from './guest-transport-util';

export {
  DEFAULT_DOWNLOAD_LIMIT_BYTES,
  DEFAULT_GUEST_ANSWER_LIMITS,
  DEFAULT_GUEST_TIMEOUTS_MS,
  type DownloadResult,
  type GuestOperation,
} from './guest-operations';

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

function abortedError(path: string, cause: unknown): GuestRequestError {
  return new GuestRequestError({
    endpoint: path,
    message: `guest request ${path} was aborted`,
    cause,
    isRetryable: false,
  });
}
