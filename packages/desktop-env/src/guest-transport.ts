import { Agent, FormData, request } from 'undici';
import type { Dispatcher } from 'undici';
import { GuestRequestError } from './desktop-env-errors';
import type {
  AccessibilityAnswer,
  DirectoryTree,
  ExecuteResult,
  ExecuteVerification,
  ExecuteWithVerificationResult,
  GuestCallOptions,
  GuestClient,
  RunBashResult,
  RunPythonResult,
} from './guest-client';
import type { GuestEndpoint } from './vm-provider';

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
}

type RequestBody =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'form'; readonly value: Record<string, string> }
  | { readonly kind: 'multipart'; readonly value: FormData };

interface CallSpec<T> {
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
  /** Turns a 2xx (or accepted) answer into the result; throw {@link InvalidAnswer} to reject it. */
  readonly parse: (answer: Answer) => T;
}

interface Answer {
  readonly status: number;
  readonly contentType: string;
  /** osharm's guest marks a cut accessibility walk (`X-Osharm-Truncated`); upstream's never does. */
  readonly truncated: string | undefined;
  readonly body: Buffer;
}

/** Thrown by a `parse` function: the guest answered, but not in the protocol's shape. */
class InvalidAnswer extends Error {}

type AttemptResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: GuestRequestError; readonly retryAfterMs?: number };

const RETRYABLE_STATUSES = new Set([408, 409, 429]);
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);

/**
 * The guest protocol client over undici (reference/osworld-harness.md §1.2). One instance per
 * running environment; {@link close} releases its connections.
 */
export class UndiciGuestClient implements GuestClient {
  readonly endpoint: GuestEndpoint;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly timeoutOverrides: Partial<Record<GuestOperation, number>>;
  private readonly maxRetries: number;
  private readonly maxRetryDelayMs: number;
  private readonly logger: ((event: GuestClientEvent) => void) | undefined;
  private readonly origin: string;

  constructor(endpoint: GuestEndpoint, settings: GuestClientSettings = {}) {
    this.endpoint = endpoint;
    this.origin = endpoint.baseUrl.replace(/\/+$/, '');
    this.timeoutOverrides = { ...settings.timeouts };
    this.maxRetries = Math.max(0, settings.maxRetries ?? 2);
    this.maxRetryDelayMs = settings.maxRetryDelayMs ?? 8_000;
    this.logger = settings.logger;
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

  screenshot(options?: GuestCallOptions): Promise<Buffer> {
    return this.call(
      {
        operation: 'screenshot',
        method: 'GET',
        path: '/screenshot',
        idempotent: true,
        parse: ({ body }) => {
          if (!startsWith(body, PNG_MAGIC) && !startsWith(body, JPEG_MAGIC)) {
            throw new InvalidAnswer(`not a PNG or JPEG image (${body.length} bytes)`);
          }
          return body;
        },
      },
      options,
    );
  }

  async accessibilityTree(options?: GuestCallOptions): Promise<string> {
    return (await this.accessibility(options)).tree;
  }

  accessibility(options?: GuestCallOptions): Promise<AccessibilityAnswer> {
    return this.call(
      {
        operation: 'accessibilityTree',
        method: 'GET',
        path: '/accessibility',
        idempotent: true,
        parse: answer => ({
          tree: requireString(parseJsonObject(answer), 'AT'),
          truncated: answer.truncated ? answer.truncated.slice(0, 64) : null,
        }),
      },
      options,
    );
  }

  terminalOutput(options?: GuestCallOptions): Promise<string | null> {
    return this.call(
      {
        operation: 'terminalOutput',
        method: 'GET',
        path: '/terminal',
        idempotent: true,
        parse: answer => {
          const output = parseJsonObject(answer).output;
          if (output === null || output === undefined) return null;
          if (typeof output !== 'string') throw new InvalidAnswer('"output" is not a string');
          return output;
        },
      },
      options,
    );
  }

  execute(
    command: string | readonly string[],
    options?: GuestCallOptions & { shell?: boolean; setup?: boolean },
  ): Promise<ExecuteResult> {
    return this.call(
      {
        operation: 'execute',
        method: 'POST',
        path: options?.setup ? '/setup/execute' : '/execute',
        body: { kind: 'json', value: { command, shell: options?.shell ?? false } },
        idempotent: false,
        parse: answer => parseExecuteResult(parseJsonObject(answer)),
      },
      options,
    );
  }

  executeWithVerification(
    command: string | readonly string[],
    options?: GuestCallOptions & {
      shell?: boolean;
      verification?: ExecuteVerification;
      maxWaitTime?: number;
      checkInterval?: number;
    },
  ): Promise<ExecuteWithVerificationResult> {
    const maxWaitTime = options?.maxWaitTime ?? 10;
    return this.call(
      {
        operation: 'executeWithVerification',
        method: 'POST',
        path: '/setup/execute_with_verification',
        body: {
          kind: 'json',
          value: {
            command,
            shell: options?.shell ?? false,
            verification: options?.verification ?? {},
            max_wait_time: maxWaitTime,
            check_interval: options?.checkInterval ?? 1,
          },
        },
        idempotent: false,
        defaultTimeoutMs: (maxWaitTime + 10) * 1000,
        parse: answer => {
          const json = parseJsonObject(answer);
          return {
            ...parseExecuteResult(json),
            verification: String(json.verification ?? ''),
            wait_time: typeof json.wait_time === 'number' ? json.wait_time : 0,
          };
        },
      },
      options,
    );
  }

  async launch(
    command: string | readonly string[],
    options?: GuestCallOptions & { shell?: boolean },
  ): Promise<void> {
    await this.call(
      {
        operation: 'launch',
        method: 'POST',
        path: '/setup/launch',
        body: { kind: 'json', value: { command, shell: options?.shell ?? false } },
        idempotent: false,
        parse: () => undefined,
      },
      options,
    );
  }

  runPython(code: string, options?: GuestCallOptions): Promise<RunPythonResult> {
    return this.call(
      {
        operation: 'runPython',
        method: 'POST',
        path: '/run_python',
        body: { kind: 'json', value: { code } },
        idempotent: false,
        parse: answer => {
          const json = parseJsonObject(answer);
          return {
            status: json.status === 'success' ? 'success' : 'error',
            message: stringOr(json.message),
            output: stringOr(json.output),
            error: stringOr(json.error),
            return_code: requireNumber(json, 'return_code'),
          };
        },
      },
      options,
    );
  }

  runBashScript(
    script: string,
    options?: GuestCallOptions & { scriptTimeoutSeconds?: number; workingDir?: string },
  ): Promise<RunBashResult> {
    const scriptTimeoutSeconds = options?.scriptTimeoutSeconds ?? 30;
    return this.call(
      {
        operation: 'runBashScript',
        method: 'POST',
        path: '/run_bash_script',
        body: {
          kind: 'json',
          value: {
            script,
            timeout: scriptTimeoutSeconds,
            ...(options?.workingDir === undefined ? {} : { working_dir: options.workingDir }),
          },
        },
        idempotent: false,
        defaultTimeoutMs: (scriptTimeoutSeconds + 100) * 1000,
        parse: answer => {
          const json = parseJsonObject(answer);
          return {
            status: json.status === 'success' ? 'success' : 'error',
            output: stringOr(json.output),
            error: stringOr(json.error),
            returncode: requireNumber(json, 'returncode'),
          };
        },
      },
      options,
    );
  }

  getFile(path: string, options?: GuestCallOptions): Promise<Buffer | null> {
    return this.call(
      {
        operation: 'getFile',
        method: 'POST',
        path: '/file',
        body: { kind: 'form', value: { file_path: path } },
        idempotent: true,
        acceptStatus: status => status === 404,
        parse: ({ status, body }) => (status === 404 ? null : body),
      },
      options,
    );
  }

  async uploadFile(path: string, data: Uint8Array, options?: GuestCallOptions): Promise<void> {
    const form = new FormData();
    form.append('file_path', path);
    // the guest saves to `file_path`; the part's file name is the basename, as upstream sends it
    form.append('file_data', new Blob([data as Uint8Array<ArrayBuffer>]), posixBasename(path));
    await this.call(
      {
        operation: 'uploadFile',
        method: 'POST',
        path: '/setup/upload',
        body: { kind: 'multipart', value: form },
        idempotent: false,
        parse: () => undefined,
      },
      options,
    );
  }

  listDirectory(path: string, options?: GuestCallOptions): Promise<DirectoryTree> {
    return this.call(
      {
        operation: 'listDirectory',
        method: 'POST',
        path: '/list_directory',
        body: { kind: 'json', value: { path } },
        idempotent: true,
        parse: answer => {
          const tree = parseJsonObject(answer).directory_tree;
          if (!isDirectoryTree(tree)) throw new InvalidAnswer('"directory_tree" is not a tree');
          return tree;
        },
      },
      options,
    );
  }

  async openFile(path: string, options?: GuestCallOptions): Promise<void> {
    await this.call(
      {
        operation: 'openFile',
        method: 'POST',
        path: '/setup/open_file',
        body: { kind: 'json', value: { path } },
        idempotent: false,
        parse: () => undefined,
      },
      options,
    );
  }

  async activateWindow(
    windowName: string,
    options?: GuestCallOptions & { strict?: boolean; byClass?: boolean },
  ): Promise<void> {
    await this.windowCall('activateWindow', '/setup/activate_window', windowName, options);
  }

  async closeWindow(
    windowName: string,
    options?: GuestCallOptions & { strict?: boolean; byClass?: boolean },
  ): Promise<void> {
    await this.windowCall('closeWindow', '/setup/close_window', windowName, options);
  }

  async changeWallpaper(path: string, options?: GuestCallOptions): Promise<void> {
    await this.call(
      {
        operation: 'changeWallpaper',
        method: 'POST',
        path: '/setup/change_wallpaper',
        body: { kind: 'json', value: { path } },
        idempotent: false,
        parse: () => undefined,
      },
      options,
    );
  }

  screenSize(options?: GuestCallOptions): Promise<{ width: number; height: number }> {
    return this.call(
      {
        operation: 'screenSize',
        method: 'POST',
        path: '/screen_size',
        idempotent: true,
        parse: answer => parseSize(parseJsonObject(answer)),
      },
      options,
    );
  }

  cursorPosition(options?: GuestCallOptions): Promise<[number, number]> {
    return this.call(
      {
        operation: 'cursorPosition',
        method: 'GET',
        path: '/cursor_position',
        idempotent: true,
        parse: answer => {
          const json = parseJson(answer);
          if (
            !Array.isArray(json) ||
            json.length !== 2 ||
            typeof json[0] !== 'number' ||
            typeof json[1] !== 'number'
          ) {
            throw new InvalidAnswer('expected a JSON array [x, y]');
          }
          return [json[0], json[1]];
        },
      },
      options,
    );
  }

  windowSize(
    appClassName: string,
    options?: GuestCallOptions,
  ): Promise<{ width: number; height: number } | null> {
    return this.call(
      {
        operation: 'windowSize',
        method: 'POST',
        path: '/window_size',
        body: { kind: 'form', value: { app_class_name: appClassName } },
        idempotent: true,
        // upstream's handler answers nothing (→ a Flask 500) when no window matches; a guest
        // that answers 404 or an empty body is read as "no such window"
        acceptStatus: status => status === 404,
        parse: answer =>
          answer.status === 404 || answer.body.length === 0
            ? null
            : parseSize(parseJsonObject(answer)),
      },
      options,
    );
  }

  desktopPath(options?: GuestCallOptions): Promise<string> {
    return this.call(
      {
        operation: 'desktopPath',
        method: 'POST',
        path: '/desktop_path',
        idempotent: true,
        parse: answer => requireString(parseJsonObject(answer), 'desktop_path'),
      },
      options,
    );
  }

  wallpaper(options?: GuestCallOptions): Promise<Buffer | null> {
    return this.call(
      {
        operation: 'wallpaper',
        method: 'POST',
        path: '/wallpaper',
        idempotent: true,
        acceptStatus: status => status === 404,
        parse: ({ status, body }) => (status === 404 ? null : body),
      },
      options,
    );
  }

  platform(options?: GuestCallOptions): Promise<string> {
    return this.call(
      {
        operation: 'platform',
        method: 'GET',
        path: '/platform',
        idempotent: true,
        parse: ({ body }) => body.toString('utf8').trim(),
      },
      options,
    );
  }

  async startRecording(options?: GuestCallOptions): Promise<void> {
    await this.call(
      {
        operation: 'startRecording',
        method: 'POST',
        path: '/start_recording',
        idempotent: false,
        parse: () => undefined,
      },
      options,
    );
  }

  endRecording(options?: GuestCallOptions): Promise<Buffer> {
    return this.call(
      {
        operation: 'endRecording',
        method: 'POST',
        path: '/end_recording',
        idempotent: false,
        parse: ({ body }) => {
          if (body.length === 0) throw new InvalidAnswer('the recording is empty');
          return body;
        },
      },
      options,
    );
  }

  private async windowCall(
    operation: GuestOperation,
    path: string,
    windowName: string,
    options?: GuestCallOptions & { strict?: boolean; byClass?: boolean },
  ): Promise<void> {
    await this.call(
      {
        operation,
        method: 'POST',
        path,
        body: {
          kind: 'json',
          value: {
            window_name: windowName,
            strict: options?.strict ?? false,
            by_class: options?.byClass ?? false,
          },
        },
        idempotent: false,
        parse: () => undefined,
      },
      options,
    );
  }

  private async call<T>(spec: CallSpec<T>, options: GuestCallOptions | undefined): Promise<T> {
    const maxRetries = spec.idempotent ? this.maxRetries : 0;
    for (let retry = 0; ; retry++) {
      const result = await this.attempt(spec, options);
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
      const body = Buffer.from(await response.body.arrayBuffer());
      answer = {
        status: response.statusCode,
        contentType: headerValue(response.headers['content-type']) ?? '',
        truncated: headerValue(response.headers['x-osharm-truncated']),
        body,
      };
      retryAfterMs = parseRetryAfter(response.headers);
    } catch (cause) {
      if (options?.abortSignal?.aborted) return { ok: false, error: abortedError(path, cause) };
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
 * Creates the guest protocol client for a running environment: over `endpoint.socketPath` when set,
 * else TCP to `endpoint.baseUrl`; sends `Authorization: Bearer <token>` when `endpoint.token` is set.
 * Does no I/O until a method is called.
 */
export function createGuestClient(
  endpoint: GuestEndpoint,
  settings: GuestClientSettings = {},
): UndiciGuestClient {
  return new UndiciGuestClient(endpoint, settings);
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

/** Backoff before retry `retry` (0-based): min(0.5·2^n, cap) s, minus up to 25 % jitter. */
export function backoffDelayMs(retry: number, capMs = 8_000): number {
  const base = Math.min(500 * 2 ** retry, capMs);
  return Math.round(base * (1 - Math.random() * 0.25));
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

function startsWith(body: Buffer, magic: Buffer): boolean {
  return body.length >= magic.length && body.subarray(0, magic.length).equals(magic);
}

function parseJson(answer: Answer): unknown {
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    throw new InvalidAnswer('the body is not JSON');
  }
}

function parseJsonObject(answer: Answer): Record<string, unknown> {
  const json = parseJson(answer);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new InvalidAnswer('expected a JSON object');
  }
  return json as Record<string, unknown>;
}

function requireString(json: Record<string, unknown>, field: string): string {
  const value = json[field];
  if (typeof value !== 'string') throw new InvalidAnswer(`"${field}" is missing or not a string`);
  return value;
}

function requireNumber(json: Record<string, unknown>, field: string): number {
  const value = json[field];
  if (typeof value !== 'number') throw new InvalidAnswer(`"${field}" is missing or not a number`);
  return value;
}

function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function parseExecuteResult(json: Record<string, unknown>): ExecuteResult {
  return {
    status: json.status === 'success' ? 'success' : 'error',
    output: stringOr(json.output),
    error: stringOr(json.error),
    returncode: requireNumber(json, 'returncode'),
  };
}

function parseSize(json: Record<string, unknown>): { width: number; height: number } {
  return { width: requireNumber(json, 'width'), height: requireNumber(json, 'height') };
}

function isDirectoryTree(value: unknown): value is DirectoryTree {
  if (value === null || typeof value !== 'object') return false;
  const node = value as Record<string, unknown>;
  if ((node.type !== 'directory' && node.type !== 'file') || typeof node.name !== 'string') {
    return false;
  }
  return (
    node.children === undefined ||
    (Array.isArray(node.children) && node.children.every(isDirectoryTree))
  );
}

function posixBasename(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? 'file';
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

/** Sleeps `ms`, rejecting with the signal's reason when it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
