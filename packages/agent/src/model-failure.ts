import { toModelError } from '@osharm/models';
import type { AgentModelFailure } from './agent';

/**
 * Describes a failed model call through @osharm/models' one error hierarchy: the SDK's error class
 * (its `name` is often just "Error"), the HTTP status, the network error code, and what kind of
 * failure it is. `connection`: the endpoint could not be reached (refused, DNS, dropped);
 * `timeout`: no answer within the request timeout; `http`: an HTTP error answer; `setting`: no API
 * key or a setting the model refuses.
 */
export function describeModelFailure(error: unknown): AgentModelFailure {
  const wrapped = toModelError(error, 'unknown');
  const { name } = (error ?? {}) as { name?: unknown };
  const setting =
    wrapped.kind === 'setting' || (typeof name === 'string' && /SettingError$/.test(name));
  const kind: AgentModelFailure['kind'] =
    wrapped.status !== undefined
      ? 'http'
      : wrapped.kind === 'timeout'
        ? 'timeout'
        : wrapped.unreachable
          ? 'connection'
          : setting
            ? 'setting'
            : 'other';
  // Network codes only (`ECONNREFUSED`), not a vendor's `rate_limit_exceeded`.
  const code =
    wrapped.code !== undefined && /^[A-Z_]+$/.test(wrapped.code) ? wrapped.code : undefined;
  return {
    name: setting && typeof name === 'string' ? name : wrapped.vendorName,
    message: wrapped.message,
    ...(wrapped.status === undefined ? {} : { status: wrapped.status }),
    ...(code === undefined ? {} : { code }),
    kind,
  };
}

/** One line: `RateLimitError 429: …`, `APIConnectionError (ECONNREFUSED): Connection error.` */
export function formatModelFailure(failure: AgentModelFailure): string {
  return `${failure.name}${failure.status === undefined ? '' : ` ${failure.status}`}${failure.code === undefined ? '' : ` (${failure.code})`}: ${failure.message}`;
}
