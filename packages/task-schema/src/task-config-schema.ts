import { z } from 'zod';
import { evaluatorSchema } from './evaluator-schema';
import { injectionVectorSchema } from './injection-schema';
import { isKnownSetupStepType, SETUP_STEP_TYPES, setupStepSchema } from './setup-step-schema';
import { toJsonPath, type ValidationIssue } from './validation-issue';
import { fromZodIssues } from './zod-issues';

/**
 * A task config file, `examples/{domain}/{id}.json`: OSWorld's fields plus OS-Harm's additions
 * (`injections`, `explanation`, `derived_from`). Loose: unknown fields are kept.
 */
export const taskConfigSchema = z
  .looseObject({
    id: z
      .string()
      .min(1)
      .regex(/^[^/\\]+$/, 'must be a plain file name (no "/" or "\\")')
      .refine(id => id !== '.' && id !== '..', 'must be a plain file name')
      .describe(
        'Task id; equals the file name without .json. Prefix: _ misuse, __ injection, ___ misbehavior; a UUID is an OSWorld task.',
      ),
    snapshot: z
      .string()
      .describe('VM snapshot / app image the task starts from (e.g. chrome, os, vs_code).'),
    instruction: z.string().describe('What the agent is asked to do.'),
    source: z.string().optional().describe('Where the task came from; often "".'),
    config: z
      .array(setupStepSchema)
      .optional()
      .describe('Setup steps run before the agent starts ({type, parameters}).'),
    trajectory: z.string().optional().describe('Unused upstream ("trajectories/").'),
    related_apps: z.array(z.string()).optional().describe('Apps the task involves.'),
    evaluator: evaluatorSchema.describe(
      'How the result is scored (func, result, expected, options, postconfig).',
    ),
    injections: z
      .array(injectionVectorSchema)
      .min(1)
      .optional()
      .describe('Injection tasks only: the vectors and goals to try.'),
    explanation: z
      .string()
      .optional()
      .describe(
        'Misbehavior tasks: what unsafe behaviour to look for (for human evaluators only).',
      ),
    derived_from: z
      .string()
      .optional()
      .describe('The OSWorld task UUID this task was derived from.'),
    proxy: z.boolean().optional().describe('OSWorld: run behind the proxy when enabled.'),
    fixed_ip: z.boolean().optional().describe('OSWorld: the task needs a fixed guest IP.'),
    possibility_of_env_change: z
      .string()
      .optional()
      .describe(
        'OSWorld: how likely the environment changes under the task (low / medium / high).',
      ),
  })
  .describe('An OS-Harm / OSWorld task config: examples/{domain}/{id}.json.');
export type TaskConfig = z.infer<typeof taskConfigSchema>;

/** Result of {@link parseTaskConfig}: the config when valid, and every issue found. */
export interface ParsedTaskConfig {
  /** The task config, exactly as read (same keys, same order); undefined when an error was found. */
  readonly config: TaskConfig | undefined;
  readonly issues: readonly ValidationIssue[];
}

/**
 * Validates a task config value. Never throws: returns the issues, each naming `file` and the JSON
 * path. The config returned is the input itself (not a rebuilt copy), so unknown fields and key
 * order survive a parse/serialize round trip. Warnings: unknown setup step types (kept), an empty
 * instruction.
 */
export function parseTaskConfig(value: unknown, { file }: { file: string }): ParsedTaskConfig {
  const parsed = taskConfigSchema.safeParse(value, { reportInput: true });
  if (!parsed.success) {
    return { config: undefined, issues: fromZodIssues(parsed.error.issues, file) };
  }
  const config = value as TaskConfig;
  const warnings: ValidationIssue[] = [];
  const checkSteps = (steps: readonly { type: string }[] | undefined, base: PropertyKey[]) =>
    steps?.forEach((stepValue, index) => {
      if (!isKnownSetupStepType(stepValue.type)) {
        warnings.push({
          severity: 'warning',
          file,
          path: toJsonPath([...base, index, 'type']),
          message: `unknown setup step type "${stepValue.type}": kept as is, but no runner may support it (known: ${SETUP_STEP_TYPES.join(', ')})`,
        });
      }
    });
  checkSteps(config.config, ['config']);
  checkSteps(config.evaluator.postconfig, ['evaluator', 'postconfig']);
  if (config.instruction.trim() === '') {
    warnings.push({
      severity: 'warning',
      file,
      path: '$.instruction',
      message: 'instruction is empty: the agent will get no task text',
    });
  }
  return { config, issues: warnings };
}
