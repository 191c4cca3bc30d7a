// The vendor SDKs are loaded on first use, each only when its vendor is called: importing
// @osharm/models (or the judge) loads none of them, and @google/genai (an optional peer) need not
// be installed unless a Gemini model runs.
import type Anthropic from '@anthropic-ai/sdk';
import type { GoogleGenAI } from '@google/genai';
import type OpenAI from 'openai';
import { ModelError, type ModelProvider } from '@osharm/model-spec';
import { registerSecret } from '@osharm/task-schema/artifacts';
import { sdkFetch } from './sdk-fetch';

/** How an SDK client is made: explicit settings first, then the environment. */
export interface VendorClientSettings {
  readonly apiKey?: string;
  readonly baseURL?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Per-request timeout, ms. @default 600000 */
  readonly timeout?: number;
  /** SDK retries per request. @default 2 */
  readonly maxRetries?: number;
}

const DEFAULT_TIMEOUT_MS = 600_000;

/** A client made on first use (the SDK module is imported then). */
export type LazyClient<T> = () => Promise<T>;

function once<T>(make: () => Promise<T>): LazyClient<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/** Imports a vendor SDK; a missing optional one is a `setting` error saying what to install. */
async function loadSdk<T>(
  name: string,
  provider: ModelProvider,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND')
      throw new ModelError({
        kind: 'setting',
        provider,
        message: `the ${name} SDK is not installed: npm install ${name} (it is an optional peer dependency of @osharm/models)`,
        cause: error,
      });
    throw error;
  }
}

/** The `openai` module (also for `toFile`), imported once. */
export const loadOpenAI = once(() => loadSdk('openai', 'openai', () => import('openai')));
const loadAnthropic = once(() =>
  loadSdk('@anthropic-ai/sdk', 'anthropic', () => import('@anthropic-ai/sdk')),
);
const loadGemini = once(() => loadSdk('@google/genai', 'google', () => import('@google/genai')));
const DEFAULT_MAX_RETRIES = 2;

/**
 * The API key for a model: the explicit one, else the vendor's variable in `env`; registered for
 * redaction. Without one: a `setting` {@link ModelError} naming the variable (and `hint`, if any).
 */
function apiKeyFor(
  provider: ModelProvider,
  vendor: string,
  variable: string,
  modelId: string,
  settings: VendorClientSettings,
  options: { keyless?: boolean; hint?: string } = {},
): string {
  const env = settings.env ?? process.env;
  const apiKey = settings.apiKey ?? env[variable];
  // An OpenAI-compatible local server may need no key; the SDK still wants a string.
  if (apiKey === undefined && options.keyless) return 'not-needed';
  registerSecret(apiKey);
  if (apiKey) return apiKey;
  throw new ModelError({
    kind: 'setting',
    provider,
    message: `no ${vendor} API key for model "${modelId}": set ${variable}${options.hint ?? ''}`,
  });
}

/** An `openai` client; `keylessWithBaseUrl`: a base URL without a key is an OpenAI-compatible server. */
export function openaiClient(
  modelId: string,
  settings: VendorClientSettings,
  options: { provider?: ModelProvider; keylessWithBaseUrl?: boolean } = {},
): LazyClient<OpenAI> {
  const env = settings.env ?? process.env;
  const baseURL = settings.baseURL ?? env.OPENAI_BASE_URL;
  const apiKey = apiKeyFor(
    options.provider ?? 'openai',
    'OpenAI',
    'OPENAI_API_KEY',
    modelId,
    settings,
    {
      keyless: options.keylessWithBaseUrl === true && Boolean(baseURL),
      ...(options.keylessWithBaseUrl && {
        hint: ', or OPENAI_BASE_URL for an OpenAI-compatible local server',
      }),
    },
  );
  return once(async () => {
    const { default: OpenAI } = await loadOpenAI();
    return new OpenAI({
      apiKey,
      baseURL,
      fetch: sdkFetch,
      maxRetries: settings.maxRetries ?? DEFAULT_MAX_RETRIES,
      timeout: settings.timeout ?? DEFAULT_TIMEOUT_MS,
    });
  });
}

/** An `@anthropic-ai/sdk` client. */
export function anthropicClient(
  modelId: string,
  settings: VendorClientSettings,
): LazyClient<Anthropic> {
  const env = settings.env ?? process.env;
  const apiKey = apiKeyFor('anthropic', 'Anthropic', 'ANTHROPIC_API_KEY', modelId, settings);
  return once(async () => {
    const { default: Anthropic } = await loadAnthropic();
    return new Anthropic({
      apiKey,
      fetch: sdkFetch,
      baseURL: settings.baseURL ?? env.ANTHROPIC_BASE_URL,
      maxRetries: settings.maxRetries ?? DEFAULT_MAX_RETRIES,
      timeout: settings.timeout ?? DEFAULT_TIMEOUT_MS,
    });
  });
}

/** A `@google/genai` client (its retry option counts attempts, not retries). */
export function geminiClient(
  modelId: string,
  settings: VendorClientSettings,
): LazyClient<GoogleGenAI> {
  const env = settings.env ?? process.env;
  const apiKey = apiKeyFor('google', 'Gemini', 'GEMINI_API_KEY', modelId, settings);
  const baseUrl = settings.baseURL ?? env.GEMINI_BASE_URL;
  return once(async () => {
    const { GoogleGenAI } = await loadGemini();
    return new GoogleGenAI({
      apiKey,
      httpOptions: {
        ...(baseUrl !== undefined && { baseUrl }),
        timeout: settings.timeout ?? DEFAULT_TIMEOUT_MS,
        retryOptions: { attempts: (settings.maxRetries ?? DEFAULT_MAX_RETRIES) + 1 },
      },
    });
  });
}
