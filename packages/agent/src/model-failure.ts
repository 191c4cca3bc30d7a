import type { AgentModelFailure } from './agent';

/** Network error codes of an endpoint that cannot be reached at all (refused, no such host, reset). */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_SOCKET',
]);

/** The first `code` string along an error's `cause` chain (undici puts it two levels down). */
function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth += 1) {
    const { code, errors } = current as { code?: unknown; errors?: unknown };
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
    if (Array.isArray(errors) && errors.length > 0) current = errors[0];
    else current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Describes a failed model call: the SDK's error class (its `name` is often just "Error"), the HTTP
 * status, the network error code, and what kind of failure it is. `connection`: the endpoint could
 * not be reached (refused, DNS, dropped); `timeout`: no answer within the request timeout; `http`:
 * an HTTP error answer; `setting`: no API key or a setting the model refuses.
 */
export function describeModelFailure(error: unknown): AgentModelFailure {
  const { name, message, status } = (error ?? {}) as {
    name?: unknown;
    message?: unknown;
    status?: unknown;
  };
  const ctor = (error as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  const className =
    name === 'Error' && typeof ctor === 'string' && ctor !== 'Error' && ctor !== 'Object'
      ? ctor
      : typeof name === 'string'
        ? name
        : 'Error';
  const code = causeCode((error as { cause?: unknown } | null)?.cause) ?? causeCode(error);
  const kind: AgentModelFailure['kind'] =
    typeof status === 'number'
      ? 'http'
      : /Timeout/i.test(className) || code === 'ETIMEDOUT' || code === 'UND_ERR_HEADERS_TIMEOUT'
        ? 'timeout'
        : /Connection/i.test(className) || (code !== undefined && CONNECTION_CODES.has(code))
          ? 'connection'
          : /SettingError$/.test(className)
            ? 'setting'
            : 'other';
  return {
    name: className,
    message: typeof message === 'string' ? message : String(error),
    ...(typeof status === 'number' ? { status } : {}),
    ...(code === undefined ? {} : { code }),
    kind,
  };
}

/** One line: `RateLimitError 429: …`, `APIConnectionError (ECONNREFUSED): Connection error.` */
export function formatModelFailure(failure: AgentModelFailure): string {
  return `${failure.name}${failure.status === undefined ? '' : ` ${failure.status}`}${failure.code === undefined ? '' : ` (${failure.code})`}: ${failure.message}`;
}
