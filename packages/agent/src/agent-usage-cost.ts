import type { AgentTokenUsage } from './agent-model';

/** USD per million tokens (input, output) at list price. */
export interface AgentModelPrice {
  readonly input: number;
  readonly output: number;
}

/**
 * List prices of the models OS-Harm ran and common alternatives (USD per 1M tokens, standard tier,
 * as published by the vendors in 2025). Unknown models have no price: their cost is null. Pass your
 * own table to override.
 */
export const AGENT_MODEL_PRICES: Readonly<Record<string, AgentModelPrice>> = {
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-2024-11-20': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'o4-mini': { input: 1.1, output: 4.4 },
  o3: { input: 2, output: 8 },
  'claude-3-7-sonnet-20250219': { input: 3, output: 15 },
  'claude-sonnet-4-20250514': { input: 3, output: 15 },
  'claude-3-5-haiku-20241022': { input: 0.8, output: 4 },
};

/** Cost in USD of some usage, or null when the model has no known price. */
export function agentUsageCost(
  modelId: string,
  usage: AgentTokenUsage,
  { prices = AGENT_MODEL_PRICES }: { prices?: Readonly<Record<string, AgentModelPrice>> } = {},
): number | null {
  const price = prices[modelId];
  if (!price) return null;
  return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
}
