/**
 * Retirement dates from the pinned SDKs' own deprecation data: @anthropic-ai/sdk 1.14.0
 * (`DEPRECATED_MODELS`, the end-of-life the SDK warns about), openai 7.57.0 (the "Deprecated values
 * … Announced shutdown date" list of the Responses `model` field). The Gemini SDK (3.3.0) carries
 * none. `model-retirements.test.ts` re-reads both SDK files and compares.
 */
import { undatedModelId } from './model-capabilities';

/** One model's end of life. */
export interface ModelRetirement {
  /** The model id of the SDK's data. */
  readonly modelId: string;
  /** End of life (`YYYY-MM-DD`): from that day on the vendor answers no call. */
  readonly date: string;
  /** What the vendor names instead (see `replacementSource`). */
  readonly replacement: string;
  /** Where the date comes from. */
  readonly source: string;
}

const ANTHROPIC_SOURCE = '@anthropic-ai/sdk 1.14.0 DEPRECATED_MODELS';
const OPENAI_SOURCE = 'openai 7.57.0 (Responses `model`: announced shutdown dates)';
const OPENAI_REPLACEMENT =
  'the replacement OpenAI names at https://developers.openai.com/api/docs/deprecations';

/** Anthropic: the newest model of the same line (`ModelLine`) in the SDK's `Model` list. */
const ANTHROPIC: Readonly<Record<string, readonly [date: string, replacement: string]>> = {
  'claude-mythos-preview': ['2026-06-30', 'claude-mythos-5-2'],
  'claude-opus-4-5': ['2027-01-22', 'claude-opus-5-5'],
  'claude-opus-4-5-20251101': ['2027-01-22', 'claude-opus-5-5'],
  'claude-sonnet-4-5': ['2026-11-30', 'claude-sonnet-5-5'],
  'claude-sonnet-4-5-20250929': ['2026-11-30', 'claude-sonnet-5-5'],
};

const OPENAI: Readonly<Record<string, readonly string[]>> = {
  '2027-04-01': ['gpt-5.4-nano', 'gpt-5.4-nano-2026-03-17', 'gpt-5.1', 'gpt-5.1-2025-11-13'],
  '2026-08-10': ['gpt-5.3-chat-latest', 'gpt-5.2-chat-latest'],
  '2026-07-23': [
    'gpt-5.1-codex',
    'gpt-5.1-chat-latest',
    'gpt-5-chat-latest',
    'gpt-4o-search-preview',
    'gpt-4o-mini-search-preview',
    'gpt-4o-search-preview-2025-03-11',
    'gpt-4o-mini-search-preview-2025-03-11',
    'o3-deep-research',
    'o3-deep-research-2025-06-26',
    'o4-mini-deep-research',
    'o4-mini-deep-research-2025-06-26',
    'computer-use-preview',
    'computer-use-preview-2025-03-11',
    'gpt-5-codex',
    'gpt-5.1-codex-max',
  ],
  '2026-12-11': [
    'gpt-5',
    'gpt-5-mini',
    'gpt-5-nano',
    'gpt-5-2025-08-07',
    'gpt-5-mini-2025-08-07',
    'gpt-5-nano-2025-08-07',
    'o3',
    'o3-2025-04-16',
    'o3-pro',
    'o3-pro-2025-06-10',
    'gpt-5-pro',
    'gpt-5-pro-2025-10-06',
  ],
  '2027-01-14': [
    'gpt-4.1',
    'gpt-4.1-mini',
    'gpt-4.1-2025-04-14',
    'gpt-4.1-mini-2025-04-14',
    'gpt-4o',
    'gpt-4o-2024-11-20',
    'gpt-4o-2024-08-06',
    'gpt-4o-mini',
    'gpt-4o-mini-2024-07-18',
  ],
  '2026-10-23': [
    'gpt-4.1-nano',
    'gpt-4.1-nano-2025-04-14',
    'o4-mini',
    'o4-mini-2025-04-16',
    'o3-mini',
    'o3-mini-2025-01-31',
    'o1',
    'o1-2024-12-17',
    'gpt-4o-2024-05-13',
    'gpt-4-turbo',
    'gpt-4-turbo-2024-04-09',
    'gpt-4-1106-preview',
    'gpt-4',
    'gpt-4-0613',
    'gpt-3.5-turbo',
    'gpt-3.5-turbo-0125',
    'o1-pro',
    'o1-pro-2025-03-19',
  ],
  '2025-07-28': ['o1-preview', 'o1-preview-2024-09-12'],
  '2025-10-27': ['o1-mini', 'o1-mini-2024-09-12'],
  '2027-01-20': ['gpt-audio-mini', 'gpt-audio-mini-2025-12-15'],
  '2026-05-07': [
    'gpt-4o-audio-preview',
    'gpt-4o-audio-preview-2024-12-17',
    'gpt-4o-audio-preview-2025-06-03',
    'gpt-4o-mini-audio-preview',
    'gpt-4o-mini-audio-preview-2024-12-17',
  ],
  '2025-10-10': ['gpt-4o-audio-preview-2024-10-01'],
  '2026-02-17': ['chatgpt-4o-latest'],
  '2026-02-12': ['codex-mini-latest'],
  '2026-03-26': ['gpt-4-0125-preview', 'gpt-4-turbo-preview', 'gpt-4-0314'],
  '2024-12-06': ['gpt-4-vision-preview'],
  '2025-06-06': ['gpt-4-32k', 'gpt-4-32k-0314', 'gpt-4-32k-0613'],
  '2024-09-13': [
    'gpt-3.5-turbo-16k',
    'gpt-3.5-turbo-0301',
    'gpt-3.5-turbo-0613',
    'gpt-3.5-turbo-16k-0613',
  ],
  '2026-09-28': ['gpt-3.5-turbo-1106'],
};

/** Every retirement of the SDKs' data, by model id. */
export const MODEL_RETIREMENTS: ReadonlyMap<string, ModelRetirement> = new Map<
  string,
  ModelRetirement
>([
  ...Object.entries(ANTHROPIC).map(
    ([modelId, [date, replacement]]) =>
      [modelId, { modelId, date, replacement, source: ANTHROPIC_SOURCE }] as const,
  ),
  ...Object.entries(OPENAI).flatMap(([date, ids]) =>
    ids.map(
      modelId =>
        [
          modelId,
          { modelId, date, replacement: OPENAI_REPLACEMENT, source: OPENAI_SOURCE },
        ] as const,
    ),
  ),
]);

/** Days before end of life from which a run prints the date. */
export const RETIREMENT_WARNING_DAYS = 60;

/** A model's place in its life on a given day. */
export type ModelLifecycle =
  | { readonly state: 'active' }
  | { readonly state: 'retiring'; readonly retirement: ModelRetirement; readonly daysLeft: number }
  | { readonly state: 'retired'; readonly retirement: ModelRetirement };

const DAY_MS = 86_400_000;

/**
 * Where `modelId` (routed, without a `provider/` prefix) is on `today`: `retired` from its end-of-life
 * day on, `retiring` within {@link RETIREMENT_WARNING_DAYS} days of it, else `active` (also for a
 * model the SDKs date no end for). A dated snapshot the data does not name takes its undated id's
 * date.
 */
export function modelLifecycle(modelId: string, today: Date = new Date()): ModelLifecycle {
  const undated = undatedModelId(modelId);
  const retirement =
    MODEL_RETIREMENTS.get(modelId) ??
    (undated === undefined ? undefined : MODEL_RETIREMENTS.get(undated));
  if (!retirement) return { state: 'active' };
  const day = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  const end = Date.parse(`${retirement.date}T00:00:00Z`);
  const daysLeft = Math.round((end - day) / DAY_MS);
  if (daysLeft <= 0) return { state: 'retired', retirement };
  if (daysLeft <= RETIREMENT_WARNING_DAYS) return { state: 'retiring', retirement, daysLeft };
  return { state: 'active' };
}

/** The one line a run prints for a model that is retired or retiring; undefined when active. */
export function describeLifecycle(
  role: string,
  modelName: string,
  lifecycle: ModelLifecycle,
): string | undefined {
  if (lifecycle.state === 'active') return undefined;
  const { date, replacement } = lifecycle.retirement;
  return lifecycle.state === 'retired'
    ? `${role} model ${modelName} was retired on ${date} (end of life; the vendor answers no call): use ${replacement}`
    : `${role} model ${modelName} reaches end of life on ${date} (in ${lifecycle.daysLeft} day${lifecycle.daysLeft === 1 ? '' : 's'}); replacement: ${replacement}`;
}
