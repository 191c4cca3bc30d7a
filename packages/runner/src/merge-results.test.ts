import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OsharmError } from '@osharm/task-schema';
import { readRunStatus } from '@osharm/task-schema/trajectory';
import { mergeResults } from './merge-results';
import { RunOptionsError } from './run-options';

/** mergeResults on real temporary trees. */
let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'osharm-merge-'));
});
afterEach(() => rm(tmp, { recursive: true, force: true }));

const MODEL = 'pyautogui/a11y_tree/gpt-4o';
type RunState = 'finished' | 'errored' | 'unfinished';

/** Writes a run dir as `osharm run` leaves it: traj.jsonl, better_log.json, result.txt when finished. */
function writeRun(root: string, run: string, state: RunState, { score = '1', note = '' } = {}) {
  const dir = join(root, MODEL, run);
  mkdirSync(join(dir, 'judgment', 'gpt-4.1', 'aer', 'v3'), { recursive: true });
  const steps = `{"step_num": 1, "action": "pyautogui.click(1, 1)${note}"}\n`;
  writeFileSync(
    join(dir, 'traj.jsonl'),
    state === 'errored' ? `${steps}{"Error": "model call failed"}\n` : steps,
  );
  writeFileSync(join(dir, 'better_log.json'), '{"steps": []}');
  if (state === 'finished') {
    writeFileSync(join(dir, 'result.txt'), `${score}\n`);
    writeFileSync(
      join(dir, 'judgment', 'gpt-4.1', 'aer', 'v3', 'judgment.json'),
      '{"safety": true}',
    );
  }
  return dir;
}

/** Every file of a tree, relative, with its text. */
function treeOf(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(join(dir, entry.name), path);
      else files[path] = entry.isFile() ? readFileSync(join(dir, entry.name), 'utf8') : '<link>';
    }
  };
  walk(root, '');
  return files;
}

describe('mergeResults', () => {
  it('joins disjoint shard trees into the same layout, judgments included', async () => {
    const a = join(tmp, 'a');
    const b = join(tmp, 'b');
    writeRun(a, 'chrome/t1', 'finished');
    writeRun(a, 'os/t2', 'errored');
    writeRun(b, 'os/t3__inject__desktop_notification__stop_task', 'finished', { score: '0' });
    writeFileSync(join(a, 'batch_judgment_results_gpt-4.1_aer_v3.json'), '{}');
    const into = join(tmp, 'merged');
    const report = await mergeResults({ inputs: [a, b], into });
    expect(report).toMatchObject({ written: true, conflicts: [], skipped: [] });
    expect(report.merged.map(run => [run.run, run.state])).toEqual([
      [`${MODEL}/chrome/t1`, 'finished'],
      [`${MODEL}/os/t2`, 'errored'],
      [`${MODEL}/os/t3__inject__desktop_notification__stop_task`, 'finished'],
    ]);
    expect(report.notMerged).toEqual([join(a, 'batch_judgment_results_gpt-4.1_aer_v3.json')]);
    const expected = {
      ...Object.fromEntries(
        Object.entries(treeOf(a)).filter(([path]) => !path.startsWith('batch_judgment')),
      ),
      ...treeOf(b),
    };
    expect(treeOf(into)).toEqual(expected);
    expect(
      await readRunStatus(join(into, MODEL, 'os/t3__inject__desktop_notification__stop_task')),
    ).toEqual({
      state: 'finished',
      score: 0,
    });
  });

  it('keeps the finished copy over errored and unfinished ones, whatever the input order', async () => {
    const a = join(tmp, 'a');
    const b = join(tmp, 'b');
    const c = join(tmp, 'c');
    writeRun(a, 'os/t1', 'errored');
    writeRun(b, 'os/t1', 'finished', { score: '0.5' });
    writeRun(c, 'os/t1', 'unfinished');
    writeRun(a, 'os/t2', 'unfinished');
    writeRun(c, 'os/t2', 'errored');
    const into = join(tmp, 'merged');
    const report = await mergeResults({ inputs: [a, b, c], into });
    expect(report.merged.map(run => [run.run, run.from, run.state])).toEqual([
      [`${MODEL}/os/t1`, b, 'finished'],
      [`${MODEL}/os/t2`, c, 'errored'],
    ]);
    expect(report.skipped.map(skip => [skip.run, skip.from])).toEqual([
      [`${MODEL}/os/t1`, a],
      [`${MODEL}/os/t1`, c],
      [`${MODEL}/os/t2`, a],
    ]);
    expect(report.skipped[0]!.reason).toBe(`errored: the finished copy in ${b} is kept`);
    expect(await readRunStatus(join(into, MODEL, 'os/t1'))).toEqual({
      state: 'finished',
      score: 0.5,
    });

    // Merging again into the merged tree: a later finished copy replaces the errored one there.
    const d = join(tmp, 'd');
    writeRun(d, 'os/t2', 'finished');
    const again = await mergeResults({ inputs: [d], into });
    expect(again.merged).toEqual([
      { run: `${MODEL}/os/t2`, from: d, state: 'finished', replaces: 'errored', refused: [] },
    ]);
    expect(await readRunStatus(join(into, MODEL, 'os/t2'))).toEqual({
      state: 'finished',
      score: 1,
    });
    expect(treeOf(join(into, MODEL, 'os/t2'))).toEqual(treeOf(join(d, MODEL, 'os/t2')));
    expect(readdirSync(into).filter(name => name.startsWith('.osharm-merge-'))).toEqual([]);
  });

  it('takes identical finished copies once; differing ones are a conflict naming both, unless --prefer', async () => {
    const a = join(tmp, 'a');
    const b = join(tmp, 'b');
    writeRun(a, 'os/same', 'finished');
    writeRun(b, 'os/same', 'finished');
    const older = writeRun(a, 'os/t1', 'finished', { score: '1' });
    const newer = writeRun(b, 'os/t1', 'finished', { score: '0' });
    writeRun(a, 'os/other', 'finished');
    // Both ends lie after any copy made in this test: a copy that lost its time would look newest.
    utimesSync(join(older, 'result.txt'), new Date(), new Date(Date.now() + 30_000));
    utimesSync(join(newer, 'result.txt'), new Date(), new Date(Date.now() + 60_000));
    const into = join(tmp, 'merged');

    const conflicted = await mergeResults({ inputs: [a, b], into });
    expect(conflicted.written).toBe(false);
    expect(conflicted.conflicts).toEqual([
      { run: `${MODEL}/os/t1`, paths: [join(a, MODEL, 'os/t1'), join(b, MODEL, 'os/t1')] },
    ]);
    expect(existsSync(into)).toBe(false);

    const first = await mergeResults({ inputs: [a, b], into: join(tmp, 'first'), prefer: 'first' });
    expect(first.written).toBe(true);
    expect(first.skipped).toContainEqual({
      run: `${MODEL}/os/same`,
      from: b,
      reason: `same files as ${join(a, MODEL, 'os/same')}`,
    });
    expect(await readRunStatus(join(tmp, 'first', MODEL, 'os/t1'))).toMatchObject({ score: 1 });

    await mergeResults({ inputs: [a, b], into: join(tmp, 'newest'), prefer: 'newest' });
    expect(await readRunStatus(join(tmp, 'newest', MODEL, 'os/t1'))).toMatchObject({ score: 0 });

    // The merged copies keep their times: merging `a` again with --prefer newest keeps b's run.
    const again = await mergeResults({ inputs: [a], into: join(tmp, 'newest'), prefer: 'newest' });
    expect(again.merged).toEqual([]);
    expect(again.skipped.map(skip => [skip.run, skip.reason])).toEqual([
      [`${MODEL}/os/other`, `same files as ${join(tmp, 'newest', MODEL, 'os/other')}`],
      [`${MODEL}/os/same`, `same files as ${join(tmp, 'newest', MODEL, 'os/same')}`],
      [
        `${MODEL}/os/t1`,
        `finished copies differ: --prefer newest kept ${join(tmp, 'newest', MODEL, 'os/t1')}`,
      ],
    ]);
    expect(await readRunStatus(join(tmp, 'newest', MODEL, 'os/t1'))).toMatchObject({ score: 0 });
  });

  it('never follows a symlink in an input, and never writes outside --into', async () => {
    const a = join(tmp, 'a');
    const secret = join(tmp, 'secret.txt');
    writeFileSync(secret, 'host secret');
    const dir = writeRun(a, 'os/t1', 'finished');
    symlinkSync(secret, join(dir, 'screenshot.png'));
    symlinkSync(tmp, join(dir, 'escape'));
    // A whole run dir that is a symlink to a run elsewhere is not a run dir of the tree.
    const elsewhere = writeRun(join(tmp, 'elsewhere'), 'os/t9', 'finished');
    symlinkSync(elsewhere, join(a, MODEL, 'os', 't9'));
    const into = join(tmp, 'merged');
    const report = await mergeResults({ inputs: [a], into });
    expect(report.merged).toEqual([
      { run: `${MODEL}/os/t1`, from: a, state: 'finished', refused: ['escape', 'screenshot.png'] },
    ]);
    const merged = join(into, MODEL, 'os', 't1');
    expect(existsSync(join(merged, 'screenshot.png'))).toBe(false);
    expect(existsSync(join(merged, 'escape'))).toBe(false);
    expect(existsSync(join(into, MODEL, 'os', 't9'))).toBe(false);
    expect(readFileSync(secret, 'utf8')).toBe('host secret');

    // A symlinked dir inside --into is refused, not written through.
    const b = join(tmp, 'b');
    writeRun(b, 'os/t2', 'finished');
    const target = join(tmp, 'target');
    mkdirSync(target);
    const into2 = join(tmp, 'merged2');
    mkdirSync(join(into2, 'pyautogui'), { recursive: true });
    symlinkSync(target, join(into2, 'pyautogui', 'a11y_tree'));
    await expect(mergeResults({ inputs: [b], into: into2 })).rejects.toThrow(/symlink/);
    expect(readdirSync(target)).toEqual([]);
    expect(readdirSync(into2).filter(name => name.startsWith('.osharm-merge-'))).toEqual([]);

    // A run dir inside --into that is itself a symlink: refused with an osharm error (the CLI's
    // exit 1 with one line), before anything is written (was: ENOTDIR from rename, exit 70).
    const into3 = join(tmp, 'merged3');
    mkdirSync(join(into3, MODEL, 'os'), { recursive: true });
    symlinkSync(target, join(into3, MODEL, 'os', 't2'));
    const refused = await mergeResults({ inputs: [b], into: into3 }).catch(
      (error: unknown) => error,
    );
    expect(OsharmError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toMatch(/is a symlink inside --into/);
    expect(readdirSync(target)).toEqual([]);
    expect(readdirSync(into3).filter(name => name.startsWith('.osharm-merge-'))).toEqual([]);
  });

  it('writes nothing on a dry run, and refuses bad inputs with one message', async () => {
    const a = join(tmp, 'a');
    writeRun(a, 'os/t1', 'finished');
    const into = join(tmp, 'merged');
    const report = await mergeResults({ inputs: [a], into, dryRun: true });
    expect(report.written).toBe(false);
    expect(report.merged.map(run => run.run)).toEqual([`${MODEL}/os/t1`]);
    expect(existsSync(into)).toBe(false);

    await expect(mergeResults({ inputs: [join(tmp, 'nope')], into })).rejects.toThrow(
      `${join(tmp, 'nope')}: no such results tree`,
    );
    await expect(mergeResults({ inputs: [a], into: join(a, 'inside') })).rejects.toThrow(/overlap/);
    await expect(mergeResults({ inputs: [a, a], into })).rejects.toThrow(/named twice/);
    await expect(mergeResults({ inputs: [join(a, MODEL, 'os/t1')], into })).rejects.toThrow(
      /is a run dir itself/,
    );
    symlinkSync(a, join(tmp, 'link'));
    await expect(mergeResults({ inputs: [join(tmp, 'link')], into })).rejects.toBeInstanceOf(
      RunOptionsError,
    );
    expect(lstatSync(a).isDirectory()).toBe(true);
    expect(existsSync(into)).toBe(false);
  });
});
