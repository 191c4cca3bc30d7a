/** Tokens of one call or a sum of calls, as the vendor reports them. The one token-usage type. */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** The name @osharm/metrics gave {@link TokenUsage}. */
export type TokenCounts = TokenUsage;

/** USD per million tokens (input, output) at list price. Batch APIs cost half. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
}

/**
 * List prices of common agent, judge and captioner models (USD per 1M tokens, standard tier, as published
 * by the vendors in 2025). Unknown models have no price: their cost is reported as null. Pass your
 * own table to override.
 */
export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-2024-11-20': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'o4-mini': { input: 1.1, output: 4.4 },
  o3: { input: 2, output: 8 },
  'claude-3-7-sonnet-20250219': { input: 3, output: 15 },
  'claude-sonnet-4-20250514': { input: 3, output: 15 },
  'claude-3-5-haiku-20241022': { input: 0.8, output: 4 },
};

/** Cost in USD of some usage, or null when the model has no known price. */
export function usageCost(
  modelId: string,
  usage: TokenUsage,
  options: { batch?: boolean; prices?: Readonly<Record<string, ModelPrice>> } = {},
): number | null {
  const price = (options.prices ?? MODEL_PRICES)[modelId];
  if (!price) return null;
  const cost = (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
  return options.batch ? cost / 2 : cost;
}
