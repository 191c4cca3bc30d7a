import type { ModelRouting } from './router';
import { routeModel } from './router';

/** The three roles that call a model: the agent (`osharm run`), the judge, the captioner. */
export type ModelRole = 'agent' | 'judge' | 'captioner';

/** The env var that names a role's base URL (`OSHARM_JUDGE_BASE_URL` …). */
export const ROLE_BASE_URL_ENV: Readonly<Record<ModelRole, string>> = {
  agent: 'OSHARM_AGENT_BASE_URL',
  judge: 'OSHARM_JUDGE_BASE_URL',
  captioner: 'OSHARM_CAPTIONER_BASE_URL',
};

/** Default per-request timeouts in seconds per role. */
export const DEFAULT_TIMEOUT_SECONDS: Readonly<Record<ModelRole, number>> = {
  agent: 600,
  judge: 120,
  captioner: 120,
};

/** Default HTTP retries of the SDKs (on 408, 409, 429, 5xx, dropped connections, timeouts). */
export const DEFAULT_MAX_RETRIES = 2;

/** Where and how a role's model is called. */
export interface ModelEndpoint {
  readonly role: ModelRole;
  /** The model name as given (`gpt-4.1`, `anthropic/claude-…`). */
  readonly model: string;
  /** The wire format the name routes to: `openai` (also compatible servers) or `anthropic`. */
  readonly vendor: 'openai' | 'anthropic' | 'gemini';
  /** The base URL used; undefined: the vendor's public API. */
  readonly baseURL: string | undefined;
  /** Where `baseURL` came from, for messages: `--judge-base-url`, `OSHARM_JUDGE_BASE_URL`, `OPENAI_BASE_URL`. */
  readonly baseURLFrom: string | undefined;
  readonly maxRetries: number;
  /** Per-request timeout in ms. */
  readonly timeoutMs: number;
}

/**
 * A role's endpoint. The vendor comes from {@link routeModel}; the base URL is, first found: the
 * role's flag (`--base-url` for the agent, `--judge-base-url`, `--captioner-base-url`), the role's
 * env var (`OSHARM_AGENT_BASE_URL`, `OSHARM_JUDGE_BASE_URL`, `OSHARM_CAPTIONER_BASE_URL`), the
 * vendor's env var (`OPENAI_BASE_URL`, or `ANTHROPIC_BASE_URL` for Anthropic names), else the
 * vendor's public API.
 */
export function resolveEndpoint(options: {
  role: ModelRole;
  model: string;
  /** The role's base URL flag value and its spelling, when given. */
  flag?: { readonly name: string; readonly value: string | undefined };
  /** @default DEFAULT_MAX_RETRIES */
  maxRetries?: number;
  /** In seconds. @default DEFAULT_TIMEOUT_SECONDS[role] */
  timeoutSeconds?: number;
  env: Readonly<Record<string, string | undefined>>;
}): ModelEndpoint {
  const vendor = routeModel(options.model).wire;
  const vendorVar =
    vendor === 'anthropic'
      ? 'ANTHROPIC_BASE_URL'
      : vendor === 'gemini'
        ? 'GEMINI_BASE_URL'
        : 'OPENAI_BASE_URL';
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

/** The adapters' settings for an endpoint: the same base URL, retries and timeout whichever wire. */
export function endpointRouting(
  endpoint: ModelEndpoint,
  env: Readonly<Record<string, string | undefined>>,
): Required<Pick<ModelRouting, 'openai' | 'anthropic'>> {
  const settings = {
    env,
    ...(endpoint.baseURL === undefined ? {} : { baseURL: endpoint.baseURL }),
    maxRetries: endpoint.maxRetries,
    timeout: endpoint.timeoutMs,
  };
  return { openai: settings, anthropic: settings };
}

/** `http://host:port/v1 (from --judge-base-url)`, or `the OpenAI API (api.openai.com)`. */
export function describeEndpoint(endpoint: ModelEndpoint): string {
  if (endpoint.baseURL === undefined)
    return endpoint.vendor === 'anthropic'
      ? 'the Anthropic API (api.anthropic.com)'
      : endpoint.vendor === 'gemini'
        ? 'the Gemini API (generativelanguage.googleapis.com)'
        : 'the OpenAI API (api.openai.com)';
  return `${endpoint.baseURL} (from ${endpoint.baseURLFrom})`;
}

/**
 * Why a role's model cannot be called, or undefined when it can: Anthropic names need
 * ANTHROPIC_API_KEY, every other name OPENAI_API_KEY or a base URL (a local server needs no key).
 */
export function missingCredentials(
  endpoint: ModelEndpoint,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (endpoint.vendor === 'anthropic')
    return env.ANTHROPIC_API_KEY ? undefined : 'ANTHROPIC_API_KEY';
  if (endpoint.vendor === 'gemini') return env.GEMINI_API_KEY ? undefined : 'GEMINI_API_KEY';
  return env.OPENAI_API_KEY || endpoint.baseURL
    ? undefined
    : 'OPENAI_API_KEY, or a base URL for an OpenAI-compatible server (OPENAI_BASE_URL, vLLM, Ollama)';
}
