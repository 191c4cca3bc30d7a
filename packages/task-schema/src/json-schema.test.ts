import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KNOWN_GETTER_TYPES } from './evaluator-schema';
import { generateJsonSchemas } from './json-schema';
import { SETUP_STEP_TYPES } from './setup-step-schema';

type Schema = Record<string, unknown>;

/**
 * A validator for the subset of JSON Schema 2020-12 the generated documents use (checked below),
 * so the documents can be tried on real files without a validator dependency. Returns the JSON
 * paths that failed.
 */
function check(schema: Schema, value: unknown, path = '$'): string[] {
  const fail = (why: string) => [`${path}: ${why}`];
  const typeOf = (v: unknown) =>
    v === null
      ? 'null'
      : Array.isArray(v)
        ? 'array'
        : typeof v === 'number' && Number.isInteger(v)
          ? 'integer'
          : typeof v;
  if (schema.type !== undefined) {
    const types = ([] as unknown[]).concat(schema.type);
    const actual = typeOf(value);
    const ok = types.some(type => type === actual || (type === 'number' && actual === 'integer'));
    if (!ok) return fail(`type ${String(schema.type)}`);
  }
  if ('const' in schema && value !== schema.const) return fail(`const ${String(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return fail('enum');
  if (schema.not !== undefined && check(schema.not as Schema, value).length === 0)
    return fail('not');
  if (
    Array.isArray(schema.anyOf) &&
    !schema.anyOf.some(branch => check(branch as Schema, value, path).length === 0)
  )
    return fail('anyOf');
  if (Array.isArray(schema.oneOf)) {
    const matches = schema.oneOf.filter(
      branch => check(branch as Schema, value, path).length === 0,
    );
    if (matches.length !== 1) return fail(`oneOf matched ${matches.length}`);
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength)
      return fail('minLength');
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
      return fail('pattern');
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) return fail('minimum');
    if (typeof schema.maximum === 'number' && value > schema.maximum) return fail('maximum');
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
      return fail('exclusiveMinimum');
  }
  const errors: string[] = [];
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems)
      return fail('minItems');
    if (schema.items !== undefined)
      value.forEach((item, index) =>
        errors.push(...check(schema.items as Schema, item, `${path}[${index}]`)),
      );
  } else if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of (schema.required ?? []) as string[])
      if (!(key in object)) errors.push(`${path}.${key}: required`);
    for (const [key, item] of Object.entries(object)) {
      if (schema.propertyNames !== undefined)
        errors.push(...check(schema.propertyNames as Schema, key, `${path}.${key} (name)`));
      if (key in properties) errors.push(...check(properties[key]!, item, `${path}.${key}`));
      else if (schema.additionalProperties === false) errors.push(`${path}.${key}: not allowed`);
      else if (typeof schema.additionalProperties === 'object')
        errors.push(...check(schema.additionalProperties as Schema, item, `${path}.${key}`));
    }
  }
  return errors;
}

const SUPPORTED = new Set([
  '$id',
  '$schema',
  'description',
  'type',
  'const',
  'enum',
  'not',
  'anyOf',
  'oneOf',
  'minLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'minItems',
  'items',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
]);
function keywords(schema: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) keywords(item, found);
  else if (schema !== null && typeof schema === 'object')
    for (const [key, item] of Object.entries(schema)) {
      found.add(key);
      if (key === 'properties')
        for (const property of Object.values(item as object)) keywords(property, found);
      else if (key !== 'const' && key !== 'enum') keywords(item, found);
    }
  return found;
}

const schemas = generateJsonSchemas() as Record<string, Schema>;
const taskConfig = schemas['task-config']!;
const DATASET = fileURLToPath(
  new URL('../../../../shared/osharm-dataset/evaluation_examples/', import.meta.url),
);
const REAL = fileURLToPath(new URL('../../../../shared/real-trajectories/', import.meta.url));
const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));

describe('generateJsonSchemas', () => {
  it('gives the six documents, draft 2020-12, with their unpkg $id', () => {
    expect(Object.keys(schemas)).toEqual([
      'task-config',
      'task-index',
      'traj-line',
      'better-log',
      'judgment',
      'batch-results',
    ]);
    for (const [name, schema] of Object.entries(schemas)) {
      expect(schema.$id).toBe(`https://unpkg.com/@osharm/task-schema/schemas/${name}.schema.json`);
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    }
  });

  it('uses only the keywords the test validator supports', () => {
    for (const schema of Object.values(schemas)) {
      const unsupported = [...keywords(schema)].filter(key => !SUPPORTED.has(key));
      expect(unsupported).toEqual([]);
    }
  });

  it('task-config: properties, required fields, unknown fields allowed', () => {
    expect(Object.keys(taskConfig.properties as object)).toEqual([
      'id',
      'snapshot',
      'instruction',
      'source',
      'config',
      'trajectory',
      'related_apps',
      'evaluator',
      'injections',
      'explanation',
      'derived_from',
      'proxy',
      'fixed_ip',
      'possibility_of_env_change',
    ]);
    expect(taskConfig.required).toEqual(['id', 'snapshot', 'instruction', 'evaluator']);
    expect(taskConfig.type).toBe('object');
    expect(taskConfig.additionalProperties).toEqual({});
  });

  it('task-config: the unknown-step branch excludes every known type with not/enum', () => {
    const items = (taskConfig.properties as Record<string, Schema>).config!.items as Schema;
    const [unknown, known] = items.anyOf as Schema[];
    expect((unknown!.properties as Record<string, Schema>).type).toEqual({
      type: 'string',
      not: { enum: [...SETUP_STEP_TYPES] },
    });
    const branches = known!.oneOf as Schema[];
    expect(
      branches.map(branch => ((branch.properties as Record<string, Schema>).type as Schema).const),
    ).toEqual([...SETUP_STEP_TYPES]);
  });

  it('task-config: the other-getter branch excludes every known getter type', () => {
    const text = JSON.stringify(taskConfig);
    expect(text).toContain(
      JSON.stringify({ type: 'string', not: { enum: [...KNOWN_GETTER_TYPES] } }),
    );
  });
});

describe('the generated schemas on real files', () => {
  it('task-config accepts all 110 upstream task files; task-index accepts the 3 index files', () => {
    let files = 0;
    for (const indexName of ['test_misuse.json', 'test_injection.json', 'test_misbehavior.json']) {
      const index = readJson(`${DATASET}${indexName}`) as Record<string, string[]>;
      expect(check(schemas['task-index']!, index)).toEqual([]);
      for (const [domain, ids] of Object.entries(index))
        for (const id of ids) {
          const file = `${DATASET}examples/${domain}/${id}.json`;
          expect(check(taskConfig, readJson(file)), file).toEqual([]);
          files += 1;
        }
    }
    expect(files).toBe(110);
  });

  it('traj-line and better-log accept the real run logs', () => {
    for (const example of readdirSync(REAL).filter(name => !name.endsWith('.md'))) {
      expect(check(schemas['better-log']!, readJson(`${REAL}${example}/better_log.json`))).toEqual(
        [],
      );
      for (const line of readFileSync(`${REAL}${example}/traj.jsonl`, 'utf8')
        .split('\n')
        .filter(Boolean))
        expect(check(schemas['traj-line']!, JSON.parse(line))).toEqual([]);
    }
    expect(check(schemas['traj-line']!, { Error: 'Time limit exceeded in os/_x' })).toEqual([]);
  });

  it('judgment accepts a verdict with violation_step null and rejects a negative one', () => {
    const verdict = { reasoning: 'r', success: true, safety: true, violation_step: null };
    expect(check(schemas.judgment!, verdict)).toEqual([]);
    expect(check(schemas.judgment!, { ...verdict, violation_step: 2 })).toEqual([]);
    expect(check(schemas.judgment!, { ...verdict, violation_step: -1 })).not.toEqual([]);
  });

  const task = (fields: Record<string, unknown>) => ({
    id: '_t',
    snapshot: 'os',
    instruction: 'x',
    evaluator: { func: 'infeasible' },
    ...fields,
  });

  it.each([
    [
      'a step of a known type with bad parameters',
      task({ config: [{ type: 'sleep', parameters: { seconds: 'soon' } }] }),
    ],
    [
      'a known getter with a bad field',
      task({ evaluator: { func: 'f', result: { type: 'cache_file', path: 1 } } }),
    ],
    ['a step without a type', task({ config: [{ parameters: {} }] })],
    ['an unknown injection goal', task({ injections: [{ type: 'website', goals: ['nope'] }] })],
    ['an id with a slash', task({ id: 'a/b' })],
    ['a missing evaluator', { id: '_t', snapshot: 'os', instruction: 'x' }],
  ])('task-config rejects %s', (_case, value) => {
    expect(check(taskConfig, value)).not.toEqual([]);
  });

  it('task-config accepts unknown step and getter types, and unknown fields', () => {
    const value = task({
      config: [{ type: 'future_step', parameters: { a: 1 } }],
      evaluator: { func: 'f', result: { type: 'profile_name' }, x_extra: 1 },
      x_top: true,
    });
    expect(check(taskConfig, value)).toEqual([]);
  });
});

const BUILT = fileURLToPath(new URL('../schemas/', import.meta.url));

// schemas/ is a build output (gitignored; `pnpm build` writes it). turbo's `test` task depends on
// the dependencies' build only, so a fresh checkout running `pnpm test` alone has no schemas/.
describe.runIf(existsSync(BUILT))('built schemas/ (after pnpm build)', () => {
  it('holds one <name>.schema.json per generated document, with the same top-level shape', () => {
    expect(readdirSync(BUILT).sort()).toEqual(
      Object.keys(schemas)
        .map(name => `${name}.schema.json`)
        .sort(),
    );
    for (const [name, schema] of Object.entries(schemas)) {
      const built = readJson(`${BUILT}${name}.schema.json`) as Schema;
      expect(built.$id).toBe(schema.$id);
      expect(built.$schema).toBe(schema.$schema);
      expect(Object.keys(built)).toEqual(Object.keys(schema));
      expect(Object.keys((built.properties ?? {}) as object)).toEqual(
        Object.keys((schema.properties ?? {}) as object),
      );
    }
  });
});
