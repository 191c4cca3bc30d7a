import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeModelNameIssue, relativePathsIn } from './internal';
import { readRunOrigin, readRunRecord } from './trajectory';

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'osharm-origin-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('judgeModelNameIssue', () => {
  it('keeps plain names and org/model (upstream nests them), refuses names that leave the scheme', () => {
    for (const name of ['gpt-4.1', 'claude-3-7-sonnet-20250219', 'openai/gpt-4.1', '..foo'])
      expect(judgeModelNameIssue(name), name).toBeUndefined();
    for (const name of [
      '',
      ' ',
      '../../evil',
      'a/../b',
      './a',
      '/abs',
      'a//b',
      'a/',
      'a\\b',
      'a\nb',
    ])
      expect(judgeModelNameIssue(name), JSON.stringify(name)).toEqual(expect.any(String));
  });
});

describe('readRunOrigin', () => {
  const log = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      params: {},
      task: { instruction: 'x' },
      steps: [{ response: 'r' }],
      ...extra,
    });

  it("tells osharm's runs (observation record, fidelity.json) from others", async () => {
    const upstream = await mkdtemp(join(tmp, 'upstream-'));
    await writeFile(join(upstream, 'better_log.json'), log());
    expect(await readRunOrigin(upstream)).toBe('other');

    const counted = await mkdtemp(join(tmp, 'counted-'));
    await writeFile(join(counted, 'better_log.json'), log({ observations: { observations: 1 } }));
    expect(await readRunOrigin(counted)).toBe('osharm');

    const stepMarked = await mkdtemp(join(tmp, 'step-'));
    await writeFile(
      join(stepMarked, 'better_log.json'),
      log({ steps: [{ response: 'r', observation: { a11y_tree: 'complete' } }] }),
    );
    expect(await readRunOrigin(stepMarked)).toBe('osharm');

    const fidelity = await mkdtemp(join(tmp, 'fidelity-'));
    await writeFile(join(fidelity, 'better_log.json'), log());
    await writeFile(join(fidelity, 'fidelity.json'), '{}');
    expect(await readRunOrigin(fidelity)).toBe('osharm');

    const broken = await mkdtemp(join(tmp, 'broken-'));
    await writeFile(join(broken, 'better_log.json'), '{not json');
    expect(await readRunOrigin(broken)).toBe('other');
    expect(await readRunRecord(broken)).toEqual({ origin: 'other' });
  });
});

describe('readRunRecord', () => {
  const write = async (params: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const dir = await mkdtemp(join(tmp, 'record-'));
    await writeFile(
      join(dir, 'better_log.json'),
      JSON.stringify({ params, task: { jailbreak: true, injection: null }, steps: [], ...extra }),
    );
    return dir;
  };

  it('reads the facts a run records and its origin from one better_log.json', async () => {
    const dir = await write(
      {
        model: 'o4-mini',
        action_space: 'pyautogui',
        observation_type: 'som',
        osharm_prompts: { prompt_family: 'osharm' },
      },
      { observations: { observations: 0 } },
    );
    expect(await readRunRecord(dir)).toEqual({
      origin: 'osharm',
      facts: {
        jailbreak: true,
        observationType: 'som',
        actionSpace: 'pyautogui',
        model: 'o4-mini',
        promptFamily: 'osharm',
      },
    });
  });

  it('leaves out a type that is not an observation type and marks a damaged prompt record', async () => {
    const dir = await write({ observation_type: 'video', osharm_prompts: { prompt_family: 7 } });
    const record = await readRunRecord(dir);
    expect(record.origin).toBe('other');
    expect(record.facts).toEqual({ jailbreak: true, promptFamily: 'unreadable' });
  });
});

describe('relativePathsIn', () => {
  it('prints paths inside the working dir relative to it, others absolute', () => {
    expect(relativePathsIn('/work/x/results/a: refused; /etc/passwd', '/work/x')).toBe(
      'results/a: refused; /etc/passwd',
    );
    expect(relativePathsIn('/work/xy/a', '/work/x')).toBe('/work/xy/a');
    expect(relativePathsIn('/a/b', '/')).toBe('/a/b');
  });
});
