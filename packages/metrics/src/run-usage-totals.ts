import type { RunRoleUsage, RunUsage, RunUsageRole } from '@osharm/task-schema/trajectory';

/** Calls, tokens and cost summed over runs (one role, one model, or all). */
export interface RunUsageSum {
  readonly runs: number;
  readonly calls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteTokens: number;
  readonly reasoningTokens: number;
  /** USD; null when any part has an unknown cost (no price, unreported usage, a failed role). */
  readonly costUsd: number | null;
}

/** The run_usage.json records of a batch summed per role, per model and in all. */
export interface RunUsageTotals {
  /** Run dirs whose record was summed. */
  readonly runs: number;
  readonly roles: Readonly<Partial<Record<RunUsageRole, RunUsageSum>>>;
  /** Model (as the runs named it) → its calls over every role, sorted by name. */
  readonly byModel: Readonly<Record<string, RunUsageSum>>;
  readonly total: RunUsageSum;
}

interface MutableSum {
  runs: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  costUsd: number | null;
}

const empty = (): MutableSum => ({
  runs: 0,
  calls: 0,
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  costUsd: 0,
});

function add(sum: MutableSum, role: RunRoleUsage): void {
  sum.calls += role.calls;
  sum.inputTokens += role.input_tokens;
  sum.outputTokens += role.output_tokens;
  sum.cachedInputTokens += role.cached_input_tokens ?? 0;
  sum.cacheWriteTokens += role.cache_write_tokens ?? 0;
  sum.reasoningTokens += role.reasoning_tokens ?? 0;
  sum.costUsd = sum.costUsd === null || role.cost_usd === null ? null : sum.costUsd + role.cost_usd;
}

/**
 * Sums run_usage.json records (one per run dir: a batch, a results tree). Each record is counted once;
 * a cost that is unknown anywhere makes every sum it is part of unknown (null), never 0.
 */
export function runUsageTotals(records: readonly RunUsage[]): RunUsageTotals {
  const roles: Partial<Record<RunUsageRole, MutableSum>> = {};
  const byModel = new Map<string, MutableSum>();
  const total = empty();
  for (const record of records) {
    total.runs += 1;
    const models = new Set<string>();
    for (const [name, role] of Object.entries(record.roles) as [RunUsageRole, RunRoleUsage][]) {
      const perRole = (roles[name] ??= empty());
      perRole.runs += 1;
      add(perRole, role);
      let perModel = byModel.get(role.model);
      if (!perModel) byModel.set(role.model, (perModel = empty()));
      if (!models.has(role.model)) perModel.runs += 1;
      models.add(role.model);
      add(perModel, role);
      add(total, role);
    }
  }
  return {
    runs: records.length,
    roles,
    byModel: Object.fromEntries([...byModel].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    total,
  };
}

/** `$0.0123`, or `unknown` for a null cost. */
export function formatCost(costUsd: number | null): string {
  return costUsd === null ? 'unknown' : `$${costUsd.toFixed(4)}`;
}

/** One line of a sum: calls, tokens (the parts the vendors named) and cost. */
export function formatUsageSum(sum: RunUsageSum): string {
  const parts = [
    sum.cachedInputTokens > 0 && `${sum.cachedInputTokens} cached`,
    sum.cacheWriteTokens > 0 && `${sum.cacheWriteTokens} cache-write`,
  ].filter(Boolean);
  const reasoning = sum.reasoningTokens > 0 ? ` (${sum.reasoningTokens} reasoning)` : '';
  return `${sum.calls} call(s), ${sum.inputTokens} in${parts.length > 0 ? ` (${parts.join(', ')})` : ''} / ${sum.outputTokens} out${reasoning}, cost ${formatCost(sum.costUsd)}`;
}
