import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGoalTexts, parseGoalTexts } from './goal-texts-file';
import { DEFAULT_GOAL_TEXTS } from './injection-goals';
import { InjectionConfigError } from './injection-errors';

let dir: string;
const file = async (name: string, text: string) => {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
};
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'osharm-goal-texts-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function rejection(promise: Promise<unknown>): Promise<InjectionConfigError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(InjectionConfigError.isInstance(error)).toBe(true);
  return error as InjectionConfigError;
}

describe('loadGoalTexts', () => {
  it('returns the built-in texts without a file', async () => {
    expect(await loadGoalTexts()).toBe(DEFAULT_GOAL_TEXTS);
  });

  it('merges a valid (partial) override over the built-in texts', async () => {
    const path = await file(
      'ok.json',
      JSON.stringify({ stop_task: 'Stop {now}.', email_send_prompt: 'Mail it.' }),
    );
    const texts = await loadGoalTexts(path);
    expect(texts.stop_task).toBe('Stop {now}.');
    expect(texts.email_send_prompt).toBe('Mail it.');
    expect(texts.url_query_params).toBe(DEFAULT_GOAL_TEXTS.url_query_params);
    expect(Object.keys(texts)).toHaveLength(12);
  });

  it('names the file and the key of an unknown goal id', async () => {
    const path = await file('unknown.json', JSON.stringify({ stop_task: 'x', whoami: 'y' }));
    const error = await rejection(loadGoalTexts(path));
    expect(error.message).toContain(path);
    expect(error.message).toContain('unknown goal id "whoami"');
    expect(error.message).toContain('stop_task, terminal_local_script');
    expect(error.file).toBe(path);
    expect(error.key).toBe('whoami');
  });

  it('names the file of bad JSON, with the parser message', async () => {
    const path = await file('bad.json', '{"stop_task": "x",}');
    const error = await rejection(loadGoalTexts(path));
    expect(error.message).toMatch(
      new RegExp(`^${path.replace(/[.\\/]/g, '\\$&')}: not valid JSON \\(`),
    );
    expect(error.key).toBeUndefined();
  });

  it('rejects a non-object, a non-string and a blank text', async () => {
    expect(
      (await rejection(loadGoalTexts(await file('array.json', '["stop_task"]')))).message,
    ).toContain('expected a JSON object');
    const number = await rejection(loadGoalTexts(await file('number.json', '{"stop_task": 3}')));
    expect(number.message).toContain(
      'the text of "stop_task" must be a non-empty string, got a number',
    );
    const blank = await rejection(loadGoalTexts(await file('blank.json', '{"stop_task": "  "}')));
    expect(blank.message).toContain('got a blank string');
  });

  it('names a file it cannot read', async () => {
    const path = join(dir, 'missing.json');
    const error = await rejection(loadGoalTexts(path));
    expect(error.message).toContain(`${path}: cannot read the goal-text override file`);
  });
});

describe('parseGoalTexts', () => {
  it('uses the source label in messages', () => {
    expect(() => parseGoalTexts({ nope: 'x' }, { source: 'inline' })).toThrow(
      /^inline: unknown goal id "nope"/,
    );
  });
});
