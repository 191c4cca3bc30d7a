import { join } from 'node:path';
import { modelPrice, routeModel, usageCost, usageRecord, type TokenUsage } from '@osharm/models';
import { writeFileAtomic } from '@osharm/task-schema/artifacts';
import {
  RUN_USAGE_FILE,
  RUN_USAGE_ROLES,
  runUsageSchema,
  type RunRoleUsage,
  type RunUsage,
  type RunUsageRole,
} from '@osharm/task-schema/trajectory';

/** One role's calls of a run, before pricing. */
export interface RoleCalls {
  /** The model as the run named it (`claude-opus-4-7`, `openai/gpt-4.1`). */
  readonly model: string;
  readonly calls: number;
  readonly usage: TokenUsage;
  readonly batch?: boolean;
  /** The role's calls failed: their tokens, and so the cost, are unknown. */
  readonly failed?: string;
}

/**
 * Prices one role at list price. A name routed to `openai-compatible/…` is a local server's model and
 * has no price; a model the table lacks neither: the cost is null (unknown), never 0. A role that
 * made no call cost 0; one that failed (`failed`) has an unknown cost.
 */
export function priceRole(role: RoleCalls): RunRoleUsage {
  const route = routeModel(role.model);
  const id = route.provider === 'openai-compatible' ? undefined : route.modelId;
  const price = id === undefined ? undefined : modelPrice(id);
  const cost =
    role.failed !== undefined
      ? null
      : role.calls === 0 && role.usage.inputTokens + role.usage.outputTokens === 0
        ? 0
        : id === undefined
          ? null
          : usageCost(id, role.usage, { batch: role.batch === true });
  return {
    model: role.model,
    calls: role.calls,
    ...usageRecord(role.usage),
    batch: role.batch === true,
    price: price
      ? {
          input: price.input,
          output: price.output,
          ...(price.cachedInput !== undefined && { cached_input: price.cachedInput }),
          ...(price.cacheWrite !== undefined && { cache_write: price.cacheWrite }),
        }
      : null,
    cost_usd: cost,
    ...(role.failed !== undefined && { failed: role.failed }),
  };
}

/** The run's record from its roles (absent roles are left out); the total is null if any is. */
export function runUsage(roles: Partial<Record<RunUsageRole, RoleCalls>>): RunUsage {
  const priced: Partial<Record<RunUsageRole, RunRoleUsage>> = {};
  for (const name of RUN_USAGE_ROLES) {
    const role = roles[name];
    if (role) priced[name] = priceRole(role);
  }
  const costs = Object.values(priced).map(role => role.cost_usd);
  const total = costs.some(cost => cost === null)
    ? null
    : costs.reduce<number>((sum, cost) => sum + cost!, 0);
  return runUsageSchema.parse({ version: 1, roles: priced, cost_usd: total });
}

/** Writes `run_usage.json` into a run dir, atomically. */
export async function writeRunUsage(
  dir: string,
  roles: Partial<Record<RunUsageRole, RoleCalls>>,
): Promise<RunUsage> {
  const record = runUsage(roles);
  await writeFileAtomic(join(dir, RUN_USAGE_FILE), `${JSON.stringify(record, null, 2)}\n`);
  return record;
}
