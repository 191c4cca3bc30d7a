import { z } from 'zod';
import { commandSchema, setupStepSchema } from './setup-step-schema';
import { CATCH_ALL_BRANCH } from './zod-issues';

/**
 * Getter configs: the evaluator's `result` / `expected` entries, `{ "type": getter, ...fields }`
 * (reference/osworld-harness.md §7). The getters OS-Harm tasks use are validated; any other getter
 * type (upstream has ~40 app-specific ones) is accepted with its fields kept.
 */
const fileGetterFields = {
  path: z.union([z.string(), z.array(z.string())]),
  dest: z.union([z.string(), z.array(z.string())]),
  multi: z.boolean().optional(),
  gives: z.array(z.number().int()).optional(),
};
const getter = <T extends string, S extends z.core.$ZodLooseShape>(type: T, shape: S) =>
  z.looseObject({ type: z.literal(type), ...shape });

const knownGetterSchema = z.discriminatedUnion('type', [
  getter('vm_file', {
    ...fileGetterFields,
    time_suffix: z.boolean().optional(),
    time_format: z.string().optional(),
  }),
  getter('cloud_file', fileGetterFields),
  getter('cache_file', { path: z.string().min(1) }),
  getter('rule', { rules: z.unknown() }),
  getter('vm_command_line', { command: commandSchema, shell: z.boolean().optional() }),
  getter('vm_command_error', { command: commandSchema, shell: z.boolean().optional() }),
  getter('vm_terminal_output', {}),
  getter('accessibility_tree', {}),
  getter('list_directory', { path: z.string().min(1) }),
  getter('bookmarks', {}),
]);
export const KNOWN_GETTER_TYPES = [
  'vm_file',
  'cloud_file',
  'cache_file',
  'rule',
  'vm_command_line',
  'vm_command_error',
  'vm_terminal_output',
  'accessibility_tree',
  'list_directory',
  'bookmarks',
] as const;
const knownGetterTypes: ReadonlySet<string> = new Set(KNOWN_GETTER_TYPES);
export const otherGetterSchema = z.looseObject({
  // Aborts on a known type, so the union reports the known getter's own issues (see zod-issues.ts).
  type: z.string().refine(type => !knownGetterTypes.has(type), {
    abort: true,
    params: CATCH_ALL_BRANCH,
    message: 'a known getter type is validated by its own schema',
  }),
});
export const getterConfigSchema = z.union([otherGetterSchema, knownGetterSchema]);
export type GetterConfig = z.infer<typeof getterConfigSchema>;

const optionsSchema = z.record(z.string(), z.unknown());

/**
 * The task's `evaluator`. `func` is one metric name or a list; with a list, `result`, `expected`
 * (entries may be null) and `options` are lists of the same length, combined with `conj`
 * (`and` by default). `infeasible` needs no getters.
 */
export const evaluatorSchema = z
  .looseObject({
    func: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    conj: z.enum(['and', 'or']).optional(),
    result: z.union([getterConfigSchema, z.array(getterConfigSchema)]).optional(),
    expected: z
      .union([getterConfigSchema, z.array(z.union([getterConfigSchema, z.null()]))])
      .optional(),
    options: z.union([optionsSchema, z.array(optionsSchema)]).optional(),
    postconfig: z.array(setupStepSchema).optional(),
  })
  .superRefine((evaluator, context) => {
    const funcs = Array.isArray(evaluator.func) ? evaluator.func : [evaluator.func];
    const isList = Array.isArray(evaluator.func);
    for (const key of ['result', 'expected', 'options'] as const) {
      const value = evaluator[key];
      if (value === undefined) continue;
      if (isList && !Array.isArray(value)) {
        context.addIssue({
          code: 'custom',
          path: [key],
          message: `func is a list of ${funcs.length}, so ${key} must be a list of ${funcs.length} too`,
        });
      } else if (isList && Array.isArray(value) && value.length !== funcs.length) {
        context.addIssue({
          code: 'custom',
          path: [key],
          message: `has ${value.length} entries but func has ${funcs.length}; the lists must be the same length`,
        });
      } else if (!isList && Array.isArray(value)) {
        context.addIssue({
          code: 'custom',
          path: [key],
          message: `func is a single metric, so ${key} must be one ${key === 'options' ? 'options' : 'getter'} object, not a list`,
        });
      }
    }
    // An empty func name is already reported on `func` itself.
    const metrics = funcs.filter(func => func !== 'infeasible' && func !== '');
    if (metrics.length > 0 && evaluator.result === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['result'],
        message: `required field is missing: metric ${metrics
          .map(func => `"${func}"`)
          .join(', ')} needs a result getter`,
      });
    }
  });
export type Evaluator = z.infer<typeof evaluatorSchema>;
