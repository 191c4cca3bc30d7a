import { redactSecrets } from '@osharm/task-schema/artifacts';
import { CONNECTION_CODES, ModelError, toModelError } from '@osharm/model-spec';
import {
  describeEndpoint,
  ROLE_BASE_URL_ENV,
  type ModelEndpoint,
  type ModelRole,
} from './endpoint';

// What the command lines and the runner say about endpoints that fail: one home, beside the
// endpoint resolution (moved from @osharm/judge-cli, which re-exports them).

/** Consecutive connection failures after which a batch stops (runs or trajectories). */
export const MAX_CONSECUTIVE_CONNECTION_FAILURES = 3;

/**
 * The one message for endpoints that cannot be reached: each role's model and host, what was tried,
 * and how to point the role elsewhere. Endpoints with the same base URL are named once.
 */
export function unreachableMessage(
  endpoints: readonly ModelEndpoint[],
  failure: { readonly name: string; readonly code?: string; readonly message: string },
  failures: number,
): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  const flags: string[] = [];
  for (const endpoint of endpoints) {
    const key = `${endpoint.vendor} ${endpoint.baseURL ?? ''}`;
    flags.push(`${ROLE_FLAG[endpoint.role]} / ${ROLE_BASE_URL_ENV[endpoint.role]}`);
    if (seen.has(key)) continue;
    seen.add(key);
    const host = endpoint.baseURL === undefined ? undefined : safeHost(endpoint.baseURL);
    parts.push(
      `the ${endpoint.role} model ${endpoint.model} at ${host ? `${host} (${describeEndpoint(endpoint)})` : describeEndpoint(endpoint)}`,
    );
  }
  const first = endpoints[0]!;
  return `cannot reach ${parts.join(' or ')}: ${failure.code ?? failure.name} (${failure.message}); ${failures} call(s) in a row failed to connect, each after ${first.maxRetries} retr${first.maxRetries === 1 ? 'y' : 'ies'} with a ${first.timeoutMs / 1000} s request timeout. Check that the server is up, or set ${[...new Set(flags)].join(', ')}.`;
}

const ROLE_FLAG: Readonly<Record<ModelRole, string>> = {
  agent: '--base-url',
  judge: '--judge-base-url',
  captioner: '--captioner-base-url',
};

/**
 * The failure when `error` (a model error, possibly wrapped in the agent's or judge's error) says
 * the endpoint could not be reached: refused, DNS, reset — not an HTTP answer, not a timeout.
 * Classified by @osharm/models' `toModelError`, the one place that reads vendor SDK errors.
 */
export function connectionFailure(
  error: unknown,
): { name: string; code?: string; message: string } | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== null && typeof current === 'object'; depth += 1) {
    const value = current as { status?: unknown; errors?: unknown; cause?: unknown };
    const ctor = (current as { constructor?: { name?: unknown } }).constructor?.name;
    // A model error, an HTTP answer, or an SDK error class of its own (not a wrapper around one).
    if (
      ModelError.isInstance(current) ||
      typeof value.status === 'number' ||
      (typeof ctor === 'string' && /Connection|Timeout|Abort/.test(ctor))
    ) {
      return unreachable(toModelError(current, 'unknown'));
    }
    current =
      Array.isArray(value.errors) && value.errors.length > 0 ? value.errors[0] : value.cause;
  }
  // No SDK error in the chain: a bare network error (fetch failed → ECONNREFUSED).
  const bare = toModelError(error, 'unknown');
  return bare.code !== undefined && CONNECTION_CODES.has(bare.code)
    ? { name: 'ConnectionError', code: bare.code, message: bare.message }
    : undefined;
}

function unreachable(
  error: ModelError,
): { name: string; code?: string; message: string } | undefined {
  if (!error.unreachable) return undefined;
  return {
    name: error.vendorName,
    ...(error.code === undefined ? {} : { code: error.code }),
    message: error.message,
  };
}

function safeHost(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

/**
 * `redactSecrets` of @osharm/task-schema bound to an env (an SDK message can echo a key): for
 * everything printed, and for error lines written to files.
 */
export function redactor(
  env: Readonly<Record<string, string | undefined>>,
): (text: string) => string {
  return text => redactSecrets(text, env);
}
