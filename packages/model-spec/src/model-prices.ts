import { undatedModelId } from './model-capabilities';

/**
 * Tokens of one call or a sum of calls, as the vendor reports them. The one token-usage type.
 *
 * `inputTokens` counts every input token, those read from or written to a prompt cache included
 * (Anthropic reports them apart; the adapters add them in); `outputTokens` every output token,
 * reasoning (thinking) included. The optional fields are the parts of those two the vendor named:
 * absent where it reports none.
 */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens read from the prompt cache (part of `inputTokens`). */
  readonly cachedInputTokens?: number;
  /** Input tokens written to the prompt cache (part of `inputTokens`; Anthropic). */
  readonly cacheWriteTokens?: number;
  /** Output tokens spent reasoning / thinking (part of `outputTokens`). */
  readonly reasoningTokens?: number;
  /**
   * Calls whose answer carried no usage (an OpenAI-compatible server may send none): their tokens are
   * not in the counts, so a cost including them is unknown.
   */
  readonly unreportedCalls?: number;
}

/** The name @osharm/metrics gave {@link TokenUsage}. */
export type TokenCounts = TokenUsage;

/**
 * USD per million tokens at list price. `cachedInput` / `cacheWrite` price cache reads and (5-minute)
 * cache writes; a price without them cannot price usage that has such tokens (its cost is unknown).
 * Batch APIs cost half.
 */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  readonly cachedInput?: number;
  readonly cacheWrite?: number;
}

const anthropic = (input: number, output: number, cacheWrite: number, cachedInput: number) => ({
  input,
  output,
  cacheWrite,
  cachedInput,
});

/**
 * List prices per model (USD per 1M tokens, standard tier). A dated snapshot
 * (`claude-sonnet-4-5-20250929`) takes its undated id's price. Sources and dates are in
 * docs/packages/model-spec.md: Anthropic from its pricing page as read on 2026-11-27, OpenAI from
 * its pricing page as of 2025-08. A model the table lacks has no price: its cost is unknown (null),
 * never 0. Gemini is absent on purpose (its prices are tiered by prompt length). Pass your own table
 * to override.
 */
export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  // Anthropic (platform.claude.com/docs/en/about-claude/pricing, 2026-11-27)
  'claude-fable-5': anthropic(10, 50, 12.5, 1),
  'claude-fable-5-1': anthropic(10, 50, 12.5, 0.25),
  'claude-mythos-5': anthropic(10, 50, 12.5, 1),
  'claude-mythos-5-1': anthropic(10, 50, 12.5, 0.25),
  'claude-opus-5-5': anthropic(4, 20, 5, 0.2),
  'claude-opus-5': anthropic(5, 25, 6.25, 0.5),
  'claude-opus-4-8': anthropic(5, 25, 6.25, 0.5),
  'claude-opus-4-7': anthropic(5, 25, 6.25, 0.5),
  'claude-opus-4-6': anthropic(5, 25, 6.25, 0.5),
  'claude-opus-4-5': anthropic(5, 25, 6.25, 0.5),
  'claude-sonnet-5': anthropic(2, 10, 2.5, 0.2),
  'claude-sonnet-4-6': anthropic(3, 15, 3.75, 0.3),
  'claude-sonnet-4-5': anthropic(3, 15, 3.75, 0.3),
  'claude-sonnet-4': anthropic(3, 15, 3.75, 0.3),
  'claude-haiku-4-5': anthropic(1, 5, 1.25, 0.1),
  'claude-3-7-sonnet': anthropic(3, 15, 3.75, 0.3),
  'claude-3-5-haiku': anthropic(0.8, 4, 1, 0.08),
  // OpenAI (openai.com/api/pricing, 2025-08)
  'gpt-5': { input: 1.25, output: 10, cachedInput: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cachedInput: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cachedInput: 0.005 },
  'gpt-4.1': { input: 2, output: 8, cachedInput: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cachedInput: 0.025 },
  'gpt-4o': { input: 2.5, output: 10, cachedInput: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cachedInput: 0.075 },
  'o4-mini': { input: 1.1, output: 4.4, cachedInput: 0.275 },
  o3: { input: 2, output: 8, cachedInput: 0.5 },
};

/** The price of a model id: its own row, else its undated id's; undefined when the table has neither. */
export function modelPrice(
  modelId: string,
  prices: Readonly<Record<string, ModelPrice>> = MODEL_PRICES,
): ModelPrice | undefined {
  if (Object.hasOwn(prices, modelId)) return prices[modelId];
  const undated = undatedModelId(modelId);
  return undated !== undefined && Object.hasOwn(prices, undated) ? prices[undated] : undefined;
}

/**
 * Cost in USD of some usage: uncached input at `input`, cache reads at `cachedInput`, cache writes at
 * `cacheWrite`, output (reasoning included) at `output`. Null — unknown, never 0 — when the model has
 * no price, some call reported no usage, the usage has cache tokens its price does not cover, or the
 * counts are inconsistent
 * (cache parts above the input, negative or fractional counts).
 */
export function usageCost(
  modelId: string,
  usage: TokenUsage,
  options: { batch?: boolean; prices?: Readonly<Record<string, ModelPrice>> } = {},
): number | null {
  const price = modelPrice(modelId, options.prices);
  if (!price || (usage.unreportedCalls ?? 0) > 0) return null;
  const cached = usage.cachedInputTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const counts = [usage.inputTokens, usage.outputTokens, cached, written];
  if (!counts.every(count => Number.isSafeInteger(count) && count >= 0)) return null;
  const uncached = usage.inputTokens - cached - written;
  if (uncached < 0) return null;
  if (cached > 0 && price.cachedInput === undefined) return null;
  if (written > 0 && price.cacheWrite === undefined) return null;
  const cost =
    (uncached * price.input +
      cached * (price.cachedInput ?? 0) +
      written * (price.cacheWrite ?? 0) +
      usage.outputTokens * price.output) /
    1_000_000;
  return options.batch ? cost / 2 : cost;
}

/** Adds two usages field by field; an optional field is present in the sum when present in either. */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const part = (
    key: 'cachedInputTokens' | 'cacheWriteTokens' | 'reasoningTokens' | 'unreportedCalls',
  ) =>
    a[key] === undefined && b[key] === undefined ? {} : { [key]: (a[key] ?? 0) + (b[key] ?? 0) };
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    ...part('cachedInputTokens'),
    ...part('cacheWriteTokens'),
    ...part('reasoningTokens'),
    ...part('unreportedCalls'),
  };
}

/** The token counts of a usage, without other keys (a result's `modelId`). */
export function tokensOf(usage: TokenUsage): TokenUsage {
  return addUsage({ inputTokens: 0, outputTokens: 0 }, usage);
}

/** A usage in the snake_case keys of osharm's files (`input_tokens`, `cached_input_tokens`, …). */
export interface UsageRecord {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cached_input_tokens?: number;
  readonly cache_write_tokens?: number;
  readonly reasoning_tokens?: number;
  readonly unreported_calls?: number;
}

/** {@link TokenUsage} as a file records it ({@link UsageRecord}); absent parts stay absent. */
export function usageRecord(usage: TokenUsage): UsageRecord {
  const t = tokensOf(usage);
  return {
    input_tokens: t.inputTokens,
    output_tokens: t.outputTokens,
    ...(t.cachedInputTokens !== undefined && { cached_input_tokens: t.cachedInputTokens }),
    ...(t.cacheWriteTokens !== undefined && { cache_write_tokens: t.cacheWriteTokens }),
    ...(t.reasoningTokens !== undefined && { reasoning_tokens: t.reasoningTokens }),
    ...(t.unreportedCalls !== undefined && { unreported_calls: t.unreportedCalls }),
  };
}
