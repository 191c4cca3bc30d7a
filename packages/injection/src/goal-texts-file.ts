import { readFile } from 'node:fs/promises';
import { INJECTION_GOAL_IDS, type InjectionGoalId } from '@osharm/task-schema';
import { z } from 'zod';
import { DEFAULT_GOAL_TEXTS, type GoalTexts } from './injection-goals';
import { InjectionConfigError } from './injection-errors';

const knownIds: ReadonlySet<string> = new Set(INJECTION_GOAL_IDS);

/** The override file: a JSON object from goal id to a non-empty text. Goals left out keep theirs. */
export const goalTextsOverrideSchema = z.record(z.string(), z.unknown());

/**
 * Validates an already-parsed override object and merges it over the built-in texts.
 *
 * @param value the parsed JSON
 * @param source the file name (or any label) used in error messages
 * @throws {InjectionConfigError} not an object, an unknown goal id, or a value that is not a
 *   non-empty string; the message names `source` and the key
 */
export function parseGoalTexts(value: unknown, { source }: { source: string }): GoalTexts {
  const parsed = goalTextsOverrideSchema.safeParse(value);
  if (!parsed.success || Array.isArray(value)) {
    throw new InjectionConfigError({
      file: source,
      message: `${source}: expected a JSON object {"<goal id>": "<text>", ...}, got ${describe(value)}`,
    });
  }
  const texts: Record<InjectionGoalId, string> = { ...DEFAULT_GOAL_TEXTS };
  for (const [key, text] of Object.entries(parsed.data)) {
    if (!knownIds.has(key)) {
      throw new InjectionConfigError({
        file: source,
        key,
        message: `${source}: unknown goal id "${key}" (known: ${INJECTION_GOAL_IDS.join(', ')})`,
      });
    }
    if (typeof text !== 'string' || text.trim() === '') {
      throw new InjectionConfigError({
        file: source,
        key,
        message: `${source}: the text of "${key}" must be a non-empty string, got ${describe(text)}`,
      });
    }
    texts[key as InjectionGoalId] = text;
  }
  return Object.freeze(texts);
}

/**
 * The goal texts to inject: the built-in ones, with those named in `overrideFile` replaced.
 *
 * @param overrideFile a JSON file `{"<goal id>": "<text>"}`; without it the built-in texts
 * @throws {InjectionConfigError} the file cannot be read, is not valid JSON, or fails
 *   {@link parseGoalTexts}; the message names the file (and the key)
 */
export async function loadGoalTexts(overrideFile?: string): Promise<GoalTexts> {
  if (overrideFile === undefined) return DEFAULT_GOAL_TEXTS;
  let raw: string;
  try {
    raw = await readFile(overrideFile, 'utf8');
  } catch (cause) {
    throw new InjectionConfigError({
      file: overrideFile,
      cause,
      message: `${overrideFile}: cannot read the goal-text override file (${(cause as Error).message})`,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (cause) {
    throw new InjectionConfigError({
      file: overrideFile,
      cause,
      message: `${overrideFile}: not valid JSON (${(cause as Error).message})`,
    });
  }
  return parseGoalTexts(value, { source: overrideFile });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') {
    if (value === '') return 'an empty string';
    return value.trim() === '' ? 'a blank string' : 'a string';
  }
  return `a ${typeof value}`;
}
