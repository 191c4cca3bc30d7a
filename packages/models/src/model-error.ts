import { OsharmError } from '@osharm/task-schema';

/**
 * What kind of failure a model call had. `refused` (ECONNREFUSED), `dns` (no such host) and
 * `connection` (reset, unreachable, dropped) all mean the endpoint could not be reached; see
 * {@link ModelError.unreachable}.
 */
export type ModelErrorKind =
  | 'connection'
  | 'refused'
  | 'dns'
  | 'timeout'
  | 'rate-limit'
  | 'server'
  | 'auth'
  | 'bad-request'
  | 'not-found'
  | 'setting'
  | 'aborted'
  | 'other';

const name = 'OsharmModelError';
const marker = `osharm.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * A failed model call, whichever vendor SDK it went through (the SDK error is the `cause`). Thrown
 * by every adapter of @osharm/models after the SDK's own retries.
 */
export class ModelError extends OsharmError {
  private readonly [symbol] = true;
  readonly kind: ModelErrorKind;
  /** `openai`, `anthropic`, `openai-compatible`, … */
  readonly provider: string;
  /** HTTP status of an error answer. */
  readonly status?: number;
  /** Whether the same call may succeed later (408, 409, 429, 5xx, connection, timeout). */
  readonly retryable: boolean;
  /** The vendor's request id (`x-request-id` / `request-id`), when it answered. */
  readonly requestId?: string;
  /** The network error code (`ECONNREFUSED`, …) or the vendor's error code (`context_length_exceeded`, …). */
  readonly code?: string;
  /** The SDK's error class (`RateLimitError`, `APIConnectionError`, …), for messages and logs. */
  readonly vendorName: string;

  constructor(options: {
    message: string;
    kind: ModelErrorKind;
    provider: string;
    status?: number;
    retryable?: boolean;
    requestId?: string;
    code?: string;
    vendorName?: string;
    cause?: unknown;
  }) {
    super({ name, message: options.message, cause: options.cause });
    this.kind = options.kind;
    this.provider = options.provider;
    if (options.status !== undefined) this.status = options.status;
    this.retryable = options.retryable ?? false;
    if (options.requestId !== undefined) this.requestId = options.requestId;
    if (options.code !== undefined) this.code = options.code;
    this.vendorName = options.vendorName ?? name;
  }

  /** True when the endpoint could not be reached at all (refused, DNS, dropped connection). */
  get unreachable(): boolean {
    return this.kind === 'connection' || this.kind === 'refused' || this.kind === 'dns';
  }

  static override isInstance(error: unknown): error is ModelError {
    return OsharmError.hasMarker(error, marker);
  }
}

const REFUSED = new Set(['ECONNREFUSED']);
const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN']);
/** Network error codes of an endpoint that cannot be reached (refused, no such host, reset). */
export const CONNECTION_CODES: ReadonlySet<string> = new Set([
  ...REFUSED,
  ...DNS,
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_SOCKET',
]);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/** The first network code (`ECONNREFUSED`, …) along an error's `cause` chain (undici nests it). */
export function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== null && typeof current === 'object'; depth += 1) {
    const { code, errors } = current as { code?: unknown; errors?: unknown };
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
    if (Array.isArray(errors) && errors.length > 0) current = errors[0];
    else current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The class name of an SDK error (the SDKs leave `name` as "Error"). */
function className(error: unknown): string {
  const { name: errorName } = (error ?? {}) as { name?: unknown };
  const ctor = (error as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  if (errorName === 'Error' && typeof ctor === 'string' && ctor !== 'Error' && ctor !== 'Object')
    return ctor;
  return typeof errorName === 'string' ? errorName : 'Error';
}

function kindOfStatus(status: number): ModelErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not-found';
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate-limit';
  if (status >= 500) return 'server';
  if (status >= 400) return 'bad-request';
  return 'other';
}

/**
 * Wraps any error thrown by a vendor SDK call into a {@link ModelError} (a `ModelError` is
 * returned as is). Reads the SDK's `status`, `requestID` and `code`, the network code along the
 * `cause` chain, and the class name for timeouts, connection failures and aborts.
 */
export function toModelError(error: unknown, provider: string): ModelError {
  if (ModelError.isInstance(error)) return error;
  const vendorName = className(error);
  const value = (error ?? {}) as {
    message?: unknown;
    status?: unknown;
    requestID?: unknown;
    code?: unknown;
    error?: { error?: { type?: unknown }; type?: unknown; code?: unknown };
  };
  const message = typeof value.message === 'string' ? value.message : String(error);
  const requestId = typeof value.requestID === 'string' ? value.requestID : undefined;
  if (typeof value.status === 'number') {
    const status = value.status;
    // OpenAI: `code` (`context_length_exceeded`); Anthropic: the error body's `type`.
    const vendorCode =
      typeof value.code === 'string'
        ? value.code
        : typeof value.error?.error?.type === 'string'
          ? value.error.error.type
          : typeof value.error?.type === 'string'
            ? value.error.type
            : undefined;
    return new ModelError({
      message,
      kind: kindOfStatus(status),
      provider,
      status,
      retryable: status === 408 || status === 409 || status === 429 || status >= 500,
      ...(requestId === undefined ? {} : { requestId }),
      ...(vendorCode === undefined ? {} : { code: vendorCode }),
      vendorName,
      cause: error,
    });
  }
  const code = networkCode((error as { cause?: unknown } | null)?.cause) ?? networkCode(error);
  const kind: ModelErrorKind =
    vendorName === 'AbortError' || vendorName.endsWith('UserAbortError')
      ? 'aborted'
      : /Timeout/i.test(vendorName) || (code !== undefined && TIMEOUT_CODES.has(code))
        ? 'timeout'
        : code !== undefined && REFUSED.has(code)
          ? 'refused'
          : code !== undefined && DNS.has(code)
            ? 'dns'
            : /Connection/i.test(vendorName) || (code !== undefined && CONNECTION_CODES.has(code))
              ? 'connection'
              : 'other';
  return new ModelError({
    message,
    kind,
    provider,
    retryable: kind === 'timeout' || kind === 'connection' || kind === 'refused' || kind === 'dns',
    ...(code === undefined ? {} : { code }),
    vendorName,
    cause: error,
  });
}
