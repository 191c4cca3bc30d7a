import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { ModelError, type ModelProvider } from '@osharm/model-spec';
import { registerSecret } from '@osharm/task-schema/artifacts';

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
): OpenAI {
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
  return new OpenAI({
    apiKey,
    baseURL,
    maxRetries: settings.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeout: settings.timeout ?? DEFAULT_TIMEOUT_MS,
  });
}

/** An `@anthropic-ai/sdk` client. */
export function anthropicClient(modelId: string, settings: VendorClientSettings): Anthropic {
  const env = settings.env ?? process.env;
  return new Anthropic({
    apiKey: apiKeyFor('anthropic', 'Anthropic', 'ANTHROPIC_API_KEY', modelId, settings),
    baseURL: settings.baseURL ?? env.ANTHROPIC_BASE_URL,
    maxRetries: settings.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeout: settings.timeout ?? DEFAULT_TIMEOUT_MS,
  });
}

/** A `@google/genai` client (its retry option counts attempts, not retries). */
export function geminiClient(modelId: string, settings: VendorClientSettings): GoogleGenAI {
  const env = settings.env ?? process.env;
  const apiKey = apiKeyFor('google', 'Gemini', 'GEMINI_API_KEY', modelId, settings);
  const baseUrl = settings.baseURL ?? env.GEMINI_BASE_URL;
  return new GoogleGenAI({
    apiKey,
    httpOptions: {
      ...(baseUrl !== undefined && { baseUrl }),
      timeout: settings.timeout ?? DEFAULT_TIMEOUT_MS,
      retryOptions: { attempts: (settings.maxRetries ?? DEFAULT_MAX_RETRIES) + 1 },
    },
  });
}
