import { z } from 'zod';

/** File name of a run's token and cost summary in its result dir, beside upstream's files. */
export const RUN_USAGE_FILE = 'run_usage.json';

const tokens = z.number().int().min(0);
const usd = z.number().finite().min(0);

/** The list price a role's cost was computed with (USD per 1M tokens). */
export const runUsagePriceSchema = z
  .object({
    input: usd,
    output: usd,
    cached_input: usd.optional(),
    cache_write: usd.optional(),
  })
  .strict();

/**
 * One role's model calls in a run: the model asked for, the calls, the tokens summed over them
 * (input counts cache reads and writes, output counts reasoning; a part is absent where the vendor
 * reported none), the price used and the cost. `cost_usd` is null when it is not known: the model has
 * no price, a call reported no usage, or the role failed (`failed`: its calls' tokens are unknown);
 * it is 0 for a role that made no call (an offline baseline agent).
 */
export const runRoleUsageSchema = z
  .object({
    model: z.string().min(1),
    calls: tokens,
    input_tokens: tokens,
    output_tokens: tokens,
    cached_input_tokens: tokens.optional(),
    cache_write_tokens: tokens.optional(),
    reasoning_tokens: tokens.optional(),
    /** Calls whose answer carried no usage (their tokens are not in the counts). */
    unreported_calls: tokens.optional(),
    /** The calls went through a batch API (half price). */
    batch: z.boolean(),
    price: runUsagePriceSchema.nullable(),
    cost_usd: usd.nullable(),
    /** Why the role's calls failed (the tokens of those calls are unknown, so is the cost). */
    failed: z.string().optional(),
  })
  .strict()
  .superRefine((role, context) => {
    const parts = (role.cached_input_tokens ?? 0) + (role.cache_write_tokens ?? 0);
    if (parts > role.input_tokens)
      context.addIssue({
        code: 'custom',
        path: ['cached_input_tokens'],
        message: 'cache reads and writes are part of input_tokens and cannot exceed it',
      });
    if ((role.reasoning_tokens ?? 0) > role.output_tokens)
      context.addIssue({
        code: 'custom',
        path: ['reasoning_tokens'],
        message: 'reasoning tokens are part of output_tokens and cannot exceed it',
      });
    if (
      role.cost_usd !== null &&
      (role.failed !== undefined ||
        (role.unreported_calls ?? 0) > 0 ||
        (role.price === null && !(role.calls === 0 && role.cost_usd === 0)))
    )
      context.addIssue({
        code: 'custom',
        path: ['cost_usd'],
        message:
          'a cost needs a price (or no calls), reported usage and no failure (else it is null: unknown)',
      });
  });

export const RUN_USAGE_ROLES = ['agent', 'judge', 'captioner'] as const;
export type RunUsageRole = (typeof RUN_USAGE_ROLES)[number];

/**
 * `run_usage.json`: the run's model calls per role (agent; judge and captioner when the run was
 * judged inline) and the total cost, null when any role's cost is unknown. Rewritten atomically as
 * the run goes (after the agent, after judging); a resumed batch that runs a run again starts it from
 * an empty dir, so nothing is counted twice.
 */
export const runUsageSchema = z
  .object({
    version: z.literal(1),
    roles: z
      .object({
        agent: runRoleUsageSchema.optional(),
        judge: runRoleUsageSchema.optional(),
        captioner: runRoleUsageSchema.optional(),
      })
      .strict(),
    cost_usd: usd.nullable(),
  })
  .strict()
  .superRefine((record, context) => {
    const roles = Object.values(record.roles);
    const costs = roles.map(role => role.cost_usd);
    const expected = costs.some(cost => cost === null)
      ? null
      : costs.reduce<number>((sum, cost) => sum + cost!, 0);
    const same =
      expected === null
        ? record.cost_usd === null
        : record.cost_usd !== null && Math.abs(record.cost_usd - expected) <= 1e-9;
    if (!same)
      context.addIssue({
        code: 'custom',
        path: ['cost_usd'],
        message: `must be the sum of the roles' costs (${expected === null ? 'null: one is unknown' : expected})`,
      });
  });

export type RunRoleUsage = z.infer<typeof runRoleUsageSchema>;
export type RunUsage = z.infer<typeof runUsageSchema>;
