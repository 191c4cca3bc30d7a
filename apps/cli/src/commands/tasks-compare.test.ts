// `osharm tasks check --compare` refuses unusable upstream logs before any desktop starts: exit 2,
// one error naming the file and field, nothing written. (The comparison itself on a real desktop:
// docs/datasets.md; the comparison logic: @osharm/runner's upstream-compare.test.ts.)
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../program';
import { createTestIo } from '../test-io';

const shared = fileURLToPath(new URL('../../../../../shared/', import.meta.url));
const dataset = join(shared, 'osharm-dataset', 'evaluation_examples');
const trajectories = join(shared, 'real-trajectories');

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'osharm-compare-cli-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function check(compareDir: string) {
  const out = join(work, 'out');
  const test = createTestIo(work);
  const code = await runCli(
    ['tasks', 'check', '--test-config-base-dir', dataset, '--compare', compareDir, '--out', out],
    test.io,
  );
  return { code, stderr: test.stderr, wrote: existsSync(out) };
}

describe('osharm tasks check --compare: bad upstream logs', () => {
  it('a log without a first observation: exit 2, file and field named, nothing written', async () => {
    const log = JSON.parse(
      await readFile(join(trajectories, 'stop_task_notification', 'better_log.json'), 'utf8'),
    );
    delete log.steps[0].a11y_tree;
    const dir = join(work, 'runs', 'no-tree');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'better_log.json'), JSON.stringify(log));
    const result = await check(join(work, 'runs'));
    expect(result).toMatchObject({ code: 2, wrote: false });
    expect(result.stderr).toContain(
      `${relative(work, join(dir, 'better_log.json'))}: steps[0].a11y_tree: expected`,
    );
  });

  it('a log that is not JSON, and a dir without logs: exit 2', async () => {
    const dir = join(work, 'broken', 'one');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'better_log.json'), '{"task": ');
    const broken = await check(join(work, 'broken'));
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain(relative(work, join(dir, 'better_log.json')));
    await mkdir(join(work, 'empty'));
    const empty = await check(join(work, 'empty'));
    expect(empty).toMatchObject({ code: 2, wrote: false });
    expect(empty.stderr).toMatch(/no better_log\.json found/);
  });
});
