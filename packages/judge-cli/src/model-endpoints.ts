import { InvalidArgumentError } from 'commander';
import { redactSecrets } from '@osharm/task-schema';

/** The three roles that call a model: the agent (`osharm run`), the judge, the captioner. */
export type ModelRole = 'agent' | 'judge' | 'captioner';

/** The env var that names a role's base URL (`OSHARM_JUDGE_BASE_URL` …). */
export const ROLE_BASE_URL_ENV: Readonly<Record<ModelRole, string>> = {
  agent: 'OSHARM_AGENT_BASE_URL',
  judge: 'OSHARM_JUDGE_BASE_URL',
  captioner: 'OSHARM_CAPTIONER_BASE_URL',
};

/** Default per-request timeouts in seconds (the adapters' own defaults). */
export const DEFAULT_TIMEOUT_SECONDS: Readonly<Record<ModelRole, number>> = {
  agent: 600,
  judge: 120,
  captioner: 120,
};

/** Default HTTP retries of the SDKs (on 408, 409, 429, 5xx, dropped connections, timeouts). */
export const DEFAULT_MAX_RETRIES = 2;

/** Consecutive connection failures after which a batch stops (runs or trajectories). */
export const MAX_CONSECUTIVE_CONNECTION_FAILURES = 3;

/** Where and how a role's model is called. */
export interface ModelEndpoint {
  readonly role: ModelRole;
  readonly model: string;
  /** `openai` (also any OpenAI-compatible server) or `anthropic`, by the model name. */
  readonly vendor: 'openai' | 'anthropic';
  /** The base URL used; undefined: the vendor's public API. */
  readonly baseURL: string | undefined;
  /** Where `baseURL` came from, for messages: `--judge-base-url`, `OSHARM_JUDGE_BASE_URL`, `OPENAI_BASE_URL`. */
  readonly baseURLFrom: string | undefined;
  readonly maxRetries: number;
  /** Per-request timeout in ms. */
  readonly timeoutMs: number;
}

/**
 * A role's endpoint. The base URL is, first found: the role's flag (`--base-url` for the agent,
 * `--judge-base-url`, `--captioner-base-url`), the role's env var (`OSHARM_AGENT_BASE_URL`,
 * `OSHARM_JUDGE_BASE_URL`, `OSHARM_CAPTIONER_BASE_URL`), the vendor's env var (`OPENAI_BASE_URL`,
 * or `ANTHROPIC_BASE_URL` for `claude*` names), else the vendor's public API.
 */
export function resolveEndpoint(options: {
  role: ModelRole;
  model: string;
  /** The role's base URL flag value and its spelling, when given. */
  flag?: { readonly name: string; readonly value: string | undefined };
  /** `--max-retries`. @default DEFAULT_MAX_RETRIES */
  maxRetries?: number;
  /** `--timeout` in seconds. @default DEFAULT_TIMEOUT_SECONDS[role] */
  timeoutSeconds?: number;
  env: Readonly<Record<string, string | undefined>>;
}): ModelEndpoint {
  const vendor = options.model.startsWith('claude') ? 'anthropic' : 'openai';
  const vendorVar = vendor === 'anthropic' ? 'ANTHROPIC_BASE_URL' : 'OPENAI_BASE_URL';
  const roleVar = ROLE_BASE_URL_ENV[options.role];
  const candidates: [string | undefined, string][] = [
    [options.flag?.value, options.flag?.name ?? ''],
    [options.env[roleVar], roleVar],
    [options.env[vendorVar], vendorVar],
  ];
  const found = candidates.find(([value]) => value !== undefined && value.trim() !== '');
  return {
    role: options.role,
    model: options.model,
    vendor,
    baseURL: found?.[0]?.trim(),
    baseURLFrom: found?.[1],
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeoutMs: (options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS[options.role]) * 1000,
  };
}

/**
 * The adapters' per-vendor settings for an endpoint (`createAgentModel` / `createJudgeModel`
 * routing): the same base URL, retries and timeout whichever vendor the name routes to.
 */
export function endpointRouting(
  endpoint: ModelEndpoint,
  env: Readonly<Record<string, string | undefined>>,
) {
  const settings = {
    env,
    ...(endpoint.baseURL === undefined ? {} : { baseURL: endpoint.baseURL }),
    maxRetries: endpoint.maxRetries,
    timeout: endpoint.timeoutMs,
  };
  return { openai: settings, anthropic: settings };
}

/** `http://host:port/v1` (from `--judge-base-url`), or `the OpenAI API (api.openai.com)`. */
export function describeEndpoint(endpoint: ModelEndpoint): string {
  if (endpoint.baseURL === undefined)
    return endpoint.vendor === 'anthropic'
      ? 'the Anthropic API (api.anthropic.com)'
      : 'the OpenAI API (api.openai.com)';
  return `${endpoint.baseURL} (from ${endpoint.baseURLFrom})`;
}

/**
 * Why a role's model cannot be called, or undefined when it can: `claude*` names need
 * ANTHROPIC_API_KEY, every other name OPENAI_API_KEY or a base URL (a local server needs no key).
 */
export function missingCredentials(
  endpoint: ModelEndpoint,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (endpoint.vendor === 'anthropic')
    return env.ANTHROPIC_API_KEY ? undefined : 'ANTHROPIC_API_KEY';
  return env.OPENAI_API_KEY || endpoint.baseURL
    ? undefined
    : 'OPENAI_API_KEY, or a base URL for an OpenAI-compatible server (OPENAI_BASE_URL, vLLM, Ollama)';
}

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

/**
 * The failure when `error` (an SDK error, possibly wrapped) says the endpoint could not be
 * reached: a connection error (refused, DNS, reset) rather than an HTTP answer or a timeout.
 */
export function connectionFailure(
  error: unknown,
): { name: string; code?: string; message: string } | undefined {
  let current: unknown = error;
  let name: string | undefined;
  let message = '';
  let code: string | undefined;
  for (let depth = 0; depth < 6 && current !== null && typeof current === 'object'; depth += 1) {
    const value = current as {
      name?: unknown;
      message?: unknown;
      code?: unknown;
      status?: unknown;
      errors?: unknown;
      cause?: unknown;
      constructor?: { name?: unknown };
    };
    if (typeof value.status === 'number') return undefined;
    const className =
      value.name === 'Error' && typeof value.constructor?.name === 'string'
        ? value.constructor.name
        : value.name;
    if (name === undefined && typeof className === 'string' && /Connection/.test(className)) {
      if (/Timeout/.test(className)) return undefined;
      name = className;
      message = typeof value.message === 'string' ? value.message : '';
    }
    if (code === undefined && typeof value.code === 'string' && /^[A-Z_]+$/.test(value.code))
      code = value.code;
    current =
      Array.isArray(value.errors) && value.errors.length > 0 ? value.errors[0] : value.cause;
  }
  if (name === undefined && !(code !== undefined && CONNECTION_CODES.has(code))) return undefined;
  return { name: name ?? 'ConnectionError', ...(code === undefined ? {} : { code }), message };
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

/** commander parser of `--max-retries`: an integer ≥ 0. */
export function parseRetries(value: string): number {
  const number = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(number))
    throw new InvalidArgumentError('expected an integer >= 0.');
  return number;
}

/** commander parser of `--timeout`: seconds > 0. */
export function parseTimeoutSeconds(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number <= 0)
    throw new InvalidArgumentError('expected a number of seconds > 0.');
  return number;
}

/** commander parser of a base URL flag: an http(s) URL. */
export function parseBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected an http:// or https:// URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidArgumentError('expected an http:// or https:// URL.');
  return value;
}
