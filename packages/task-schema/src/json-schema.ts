import { z } from 'zod';
import { batchResultsSchema, judgmentSchema } from './judgment-schema';
import { KNOWN_GETTER_TYPES, otherGetterSchema } from './evaluator-schema';
import { SETUP_STEP_TYPES, unknownSetupStepSchema } from './setup-step-schema';
import { taskConfigSchema } from './task-config-schema';
import { taskIndexSchema } from './task-index';
import { betterLogSchema, trajLineSchema } from './trajectory-schema';

/**
 * JSON Schema (draft 2020-12) documents generated from the zod schemas. The package ships them as
 * `@osharm/task-schema/schemas/<name>.schema.json`; point a task file's `"$schema"` (or the
 * editor's `json.schemas` setting) at `task-config.schema.json` for completion and checks.
 * Setup steps and getters of unknown types are allowed, as in the loader. Refinements that JSON Schema cannot express (list lengths in the evaluator, id = file name) are
 * only checked by the loader.
 */
export function generateJsonSchemas(): Record<string, unknown> {
  const schemas = {
    'task-config': taskConfigSchema,
    'task-index': taskIndexSchema,
    'traj-line': trajLineSchema,
    'better-log': betterLogSchema,
    judgment: judgmentSchema,
    'batch-results': batchResultsSchema,
  } as const;
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [
      name,
      {
        $id: `https://unpkg.com/@osharm/task-schema/schemas/${name}.schema.json`,
        ...z.toJSONSchema(schema, {
          io: 'input',
          unrepresentable: 'any',
          // The catch-all branches accept only types the known branches do not, so an editor
          // still flags bad parameters of a known step or getter type.
          override: context => {
            if (context.zodSchema === unknownSetupStepSchema.shape.type) {
              context.jsonSchema.not = { enum: [...SETUP_STEP_TYPES] };
            } else if (context.zodSchema === otherGetterSchema.shape.type) {
              context.jsonSchema.not = { enum: [...KNOWN_GETTER_TYPES] };
            }
          },
        }),
      },
    ]),
  );
}
