import type { JudgedTrajectory } from './judged-trajectory';
import { compareKeys } from './key-order';
import { MODEL_PRICES, usageCost, type ModelPrice } from '@osharm/models';

/** Tokens and their cost. */
export interface UsageCost {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** USD at list price; null when some of the tokens are from a model without a price. */
  readonly costUsd: number | null;
}

/** Token and cost totals over trajectories, per role and per model. */
export interface UsageTotals {
  /** Trajectories that carry `usage`. */
  readonly trajectories: number;
  /** The agent's calls. */
  readonly agent: UsageCost;
  /** The judge's calls (half price where `judgeBatch`). */
  readonly judge: UsageCost;
  /** The captioner's calls. */
  readonly captioner: UsageCost;
  /** All roles together. */
  readonly total: UsageCost;
  /** Model id → its tokens and cost over all roles, sorted by id; `(unknown)` for no id. */
  readonly byModel: Record<string, UsageCost>;
  /** Models that used tokens but have no price (sorted); they make the costs above null. */
  readonly unpricedModels: readonly string[];
}

/** Options of {@link usageTotals}. */
export interface UsageTotalsOptions {
  /** Price table. @default MODEL_PRICES */
  readonly prices?: Readonly<Record<string, ModelPrice>>;
}

/** The model key of tokens whose model is not known. */
const unknownModel = '(unknown)';

type Role = 'agent' | 'judge' | 'captioner';

/**
 * Sums the `usage` of trajectories by role (agent, judge, captioner) and by model and prices it
 * with {@link usageCost}. The agent's model is `usage.agentModel`, else the trajectory's `model`;
 * the judge's `usage.judgeModel`, else `judgeModel`; the captioner's `usage.captionerModel`.
 * Tokens of a model without a price (or without an id) make every cost they are part of null
 * and list the model in `unpricedModels`; zero tokens never do.
 */
export function usageTotals(
  items: readonly JudgedTrajectory[],
  { prices = MODEL_PRICES }: UsageTotalsOptions = {},
): UsageTotals {
  const roles: Record<Role, Sum> = { agent: sum(), judge: sum(), captioner: sum() };
  const total = sum();
  const byModel = new Map<string, Sum>();
  const unpriced = new Set<string>();
  let trajectories = 0;
  for (const item of items) {
    const usage = item.usage;
    if (!usage) continue;
    trajectories += 1;
    const parts: [Role, string | undefined, typeof usage.agent, boolean][] = [
      ['agent', usage.agentModel ?? item.model, usage.agent, false],
      ['judge', usage.judgeModel ?? item.judgeModel, usage.judge, usage.judgeBatch === true],
      ['captioner', usage.captionerModel, usage.captioner, false],
    ];
    for (const [role, model, tokens, batch] of parts) {
      if (!tokens || tokens.inputTokens + tokens.outputTokens === 0) continue;
      const modelKey = model ?? unknownModel;
      const cost = model === undefined ? null : usageCost(model, tokens, { batch, prices });
      if (cost === null) unpriced.add(modelKey);
      let perModel = byModel.get(modelKey);
      if (!perModel) byModel.set(modelKey, (perModel = sum()));
      for (const target of [roles[role], total, perModel]) add(target, tokens, cost);
    }
  }
  return {
    trajectories,
    agent: roles.agent,
    judge: roles.judge,
    captioner: roles.captioner,
    total,
    byModel: Object.fromEntries([...byModel].sort(([left], [right]) => compareKeys(left, right))),
    unpricedModels: [...unpriced].sort(compareKeys),
  };
}

type Sum = { inputTokens: number; outputTokens: number; costUsd: number | null };

const sum = (): Sum => ({ inputTokens: 0, outputTokens: 0, costUsd: 0 });

function add(
  target: Sum,
  tokens: { readonly inputTokens: number; readonly outputTokens: number },
  cost: number | null,
): void {
  target.inputTokens += tokens.inputTokens;
  target.outputTokens += tokens.outputTokens;
  target.costUsd = target.costUsd === null || cost === null ? null : target.costUsd + cost;
}
