// Issue 9 §2 for the report and the viewer: a crafted tree cannot make `osharm report
// --embed-images` inline, or `osharm view` serve, a host file; FIFOs, devices and huge files are
// refused, not read; symlinked judgment dirs are not followed. Plus the report fixes: headline
// judge choice, finished upstream traces, and a tree whose judgments all failed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REAL_TRAJECTORIES } from './__fixtures__/standard-tree';
import { makeScreenshots, writeFixtureTrajectory } from '@osharm/results-fixture';
import { buildReport } from './build-report';
import { loadResultsTree, trajectoryId } from './load-results-tree';
import { runEnded } from './tree-files';
import { createViewServer } from './view-server';

const MARKER = 'HOST-SECRET-77a1c3';
let base: string;
let hostFile: string;
let images: Buffer[];

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'osharm-report-hostile-'));
  // A host file that looks like a PNG (so only containment can stop it) and one that does not.
  hostFile = join(base, 'host.png');
  writeFileSync(
    hostFile,
    Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from(MARKER.repeat(20))]),
  );
  images = await makeScreenshots(2, { width: 64, height: 48 });
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

let count = 0;
const newRoot = () => {
  count += 1;
  const root = join(base, `root-${count}`);
  mkdirSync(root);
  return root;
};
const O4 = 'pyautogui/screenshot_a11y_tree/o4-mini';
const markerBase64 = () => Buffer.from(MARKER.repeat(3)).toString('base64').slice(4, 40);

describe('files a trajectory names stay inside it', () => {
  it('`..`, absolute and symlinked screenshots are never inlined by --embed-images', async () => {
    const root = newRoot();
    const dir = writeFixtureTrajectory(root, { dir: `${O4}/os/_escape`, steps: 3 }, images);
    const log = JSON.parse(readFileSync(join(dir, 'better_log.json'), 'utf8')) as {
      steps: { screenshot_file: string }[];
    };
    log.steps[0]!.screenshot_file = `../../../../../../../${hostFile}`;
    log.steps[1]!.screenshot_file = hostFile;
    log.steps[2]!.screenshot_file = 'linked.png';
    writeFileSync(join(dir, 'better_log.json'), JSON.stringify(log));
    symlinkSync(hostFile, join(dir, 'linked.png'));
    // the executed action's "after" screenshot is a symlink too
    const trajLines = readFileSync(join(dir, 'traj.jsonl'), 'utf8').trimEnd().split('\n');
    const first = JSON.parse(trajLines[0]!) as { screenshot_file: string };
    rmSync(join(dir, first.screenshot_file));
    symlinkSync(hostFile, join(dir, first.screenshot_file));

    const tree = await loadResultsTree([root]);
    const record = tree.trajectories[0]!;
    expect(record.steps.map(step => step.screenshot)).toEqual([undefined, undefined, undefined]);
    expect(record.steps[0]!.executed[0]!.screenshot).toBeUndefined();
    expect(record.notes.join('\n')).toMatch(/outside the trajectory dir/);
    expect(record.notes.join('\n')).toMatch(/is a symlink/);

    const html = await buildReport(tree, { embedImages: true, baseDir: base });
    expect(html).not.toContain(markerBase64());
    expect(html).not.toContain(MARKER);
  });

  it('a FIFO, /dev/zero and an over-cap better_log.json are refused with notes, not read', async () => {
    const root = newRoot();
    const fifo = writeFixtureTrajectory(root, { dir: `${O4}/os/_fifo`, steps: 2 }, images);
    rmSync(join(fifo, 'traj.jsonl'));
    expect(spawnSync('mkfifo', [join(fifo, 'traj.jsonl')]).status).toBe(0);
    rmSync(join(fifo, 'step_0.png'));
    symlinkSync('/dev/zero', join(fifo, 'step_0.png'));
    const big = writeFixtureTrajectory(
      root,
      { dir: `${O4}/os/_big`, steps: 2, responses: [`${MARKER} ${'x'.repeat(300_000)}`, 'DONE'] },
      images,
    );
    const tree = await loadResultsTree([root], { limits: { maxTextBytes: 100_000 } });
    const byName = (name: string) => tree.trajectories.find(record => record.dir.endsWith(name))!;
    expect(byName('_fifo').notes.join('\n')).toMatch(/traj\.jsonl refused.*not a regular file/);
    expect(byName('_fifo').steps[0]!.screenshot).toBeUndefined();
    expect(byName('_big').notes.join('\n')).toMatch(
      /better_log\.json refused.*over the 97\.7 KiB cap/,
    );
    expect(byName('_big').steps).toEqual([]);
    expect(big).toBe(byName('_big').dir);
    const html = await buildReport(tree, { embedImages: true, baseDir: base });
    expect(html).not.toContain(MARKER);
  });

  it('key-shaped strings in a trajectory are redacted in every report format and the viewer', async () => {
    const root = newRoot();
    // Built at run time: never a key-shaped literal in the repository.
    const key = ['sk', 'proj', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4'].join('-');
    writeFixtureTrajectory(
      root,
      { dir: `${O4}/os/_keys`, steps: 2, responses: [`export OPENAI_API_KEY=${key}`, 'DONE'] },
      images,
    );
    const tree = await loadResultsTree([root]);
    for (const format of ['html', 'md', 'csv', 'json'] as const) {
      const text = await buildReport(tree, { format, baseDir: base });
      expect(text, format).not.toContain(key);
    }
    expect(await buildReport(tree, { format: 'html', baseDir: base })).toContain('[REDACTED]');
    const viewer = await createViewServer({ roots: [root], port: 0, pollIntervalMs: 0 });
    try {
      const id = tree.trajectories[0]!.id;
      const detail = await (
        await fetch(`${viewer.url}api/trajectory/${encodeURIComponent(id)}`)
      ).text();
      expect(detail).toContain('[REDACTED]');
      expect(detail).not.toContain(key);
    } finally {
      await viewer.close();
    }
  });

  it('a symlinked judgment/ dir is not followed', async () => {
    const root = newRoot();
    const dir = writeFixtureTrajectory(root, { dir: `${O4}/os/_judged`, steps: 2 }, images);
    const elsewhere = join(base, `judgments-elsewhere-${count}`);
    mkdirSync(join(elsewhere, 'gpt-4.1/aer/v3'), { recursive: true });
    writeFileSync(
      join(elsewhere, 'gpt-4.1/aer/v3/judgment.json'),
      JSON.stringify({ reasoning: 'forged', success: true, safety: true, violation_step: null }),
    );
    symlinkSync(elsewhere, join(dir, 'judgment'));
    const tree = await loadResultsTree([root]);
    expect(tree.trajectories[0]!.judgments).toEqual([]);
    expect(tree.trajectories[0]!.notes).toContain('judgment/ is a symlink: not read');
  });

  it('the viewer refuses a screenshot swapped for a symlink after the tree was read', async () => {
    const root = newRoot();
    const dir = writeFixtureTrajectory(root, { dir: `${O4}/os/_swap`, steps: 2 }, images);
    const server = await createViewServer({ roots: [root], pollIntervalMs: 0, debounceMs: 10_000 });
    try {
      const id = trajectoryId(dir);
      const ok = await fetch(new URL(`file/${id}/step_0.png`, server.url));
      expect(ok.status).toBe(200);
      expect(Buffer.from(await ok.arrayBuffer())).toEqual(readFileSync(join(dir, 'step_0.png')));
      rmSync(join(dir, 'step_0.png'));
      symlinkSync(hostFile, join(dir, 'step_0.png'));
      for (const kind of ['file', 'thumb']) {
        const refused = await fetch(new URL(`${kind}/${id}/step_0.png`, server.url));
        expect(refused.status).toBe(404);
        expect(await refused.text()).not.toContain(MARKER);
      }
    } finally {
      await server.close();
    }
  });
});

describe('report fixes', () => {
  it('headline judge: --judge, else the most complete, ties to upstream gpt-4.1/aer/v3 (not alphabetical)', async () => {
    const root = newRoot();
    const verdict = { safety: true, success: true, violation_step: null };
    for (const name of ['_a', '_b']) {
      writeFixtureTrajectory(
        root,
        {
          dir: `${O4}/os/${name}`,
          steps: 2,
          judgments: { 'claude-3-7-sonnet/default/v3': verdict, 'gpt-4.1/aer/v3': verdict },
        },
        images,
      );
    }
    const tied = await loadResultsTree([root]);
    expect(tied.judges.map(judge => judge.key)).toEqual([
      'gpt-4.1/aer/v3',
      'claude-3-7-sonnet/default/v3',
    ]);
    expect(await buildReport(tied, { format: 'md' })).toContain('Judge: `gpt-4.1/aer/v3`');
    expect(
      await buildReport(tied, { format: 'md', judge: 'claude-3-7-sonnet/default/v3' }),
    ).toContain('Judge: `claude-3-7-sonnet/default/v3`');
    // one more trajectory judged by claude only: claude is now the most complete
    writeFixtureTrajectory(
      root,
      { dir: `${O4}/os/_c`, steps: 2, judgments: { 'claude-3-7-sonnet/default/v3': verdict } },
      images,
    );
    const more = await loadResultsTree([root]);
    expect(more.judges[0]!.key).toBe('claude-3-7-sonnet/default/v3');
  });

  it('the task column shows the whole run id (injection suffix included)', async () => {
    const root = newRoot();
    const id = '_x__inject__desktop_notification__email_send_prompt';
    writeFixtureTrajectory(root, { dir: `${O4}/chrome/${id}`, steps: 2 }, images);
    const md = await buildReport(await loadResultsTree([root]), { format: 'md' });
    expect(md).toContain(id);
  });

  it('finished upstream traces are not "running": DONE / FAIL, an Error line, or max_steps', async () => {
    const root = newRoot();
    for (const name of [
      'chrome_email_send_prompt',
      'stop_task_notification',
      'thunderbird_swisstransfer',
    ]) {
      const dir = join(root, `${O4}/chrome/${name}`);
      mkdirSync(dir, { recursive: true });
      for (const file of ['better_log.json', 'traj.jsonl'])
        writeFileSync(join(dir, file), readFileSync(join(REAL_TRAJECTORIES, name, file)));
    }
    const running = writeFixtureTrajectory(
      root,
      { dir: `${O4}/os/_running`, steps: 2, running: true, score: null },
      images,
    );
    const tree = await loadResultsTree([root]);
    const finished = Object.fromEntries(
      tree.trajectories.map(record => [record.dir.split('/').at(-1), record.finished]),
    );
    // DONE, FAIL, and 15 of max_steps 15 (the last line a click, done false)
    expect(finished).toEqual({
      chrome_email_send_prompt: true,
      stop_task_notification: true,
      thunderbird_swisstransfer: true,
      _running: false,
    });
    expect(running).toContain('_running');
    expect(
      runEnded({ hasResult: false, errors: 1, lastLine: undefined, steps: 0, maxSteps: 15 }),
    ).toBe(true);
  });

  it('a tree whose every judgment failed says how many failed and why, not "run osharm judge first"', async () => {
    const root = newRoot();
    const a = writeFixtureTrajectory(root, { dir: `${O4}/os/_a`, steps: 2 }, images);
    const b = writeFixtureTrajectory(root, { dir: `${O4}/os/_b`, steps: 2 }, images);
    writeFileSync(
      join(root, 'batch_judgment_results_gpt-4.1_aer_v3.json'),
      JSON.stringify({
        config: { judge_model: 'gpt-4.1', judge_type: 'aer', sys_prompt_version: 'v3' },
        results: {},
        errors: {
          [a]: `Error processing ${a}: RateLimitError 429: Rate limit reached`,
          [b]: `Error processing ${b}: RateLimitError 429: Rate limit reached`,
        },
      }),
    );
    const tree = await loadResultsTree([root]);
    expect(tree.judgeFailures.map(failure => failure.dir)).toEqual([a, b]);
    const md = await buildReport(tree, { format: 'md' });
    expect(md).not.toContain('run `osharm judge` first');
    expect(md).toContain('2 judgment(s) failed');
    expect(md).toContain('2× RateLimitError 429: Rate limit reached');
    const html = await buildReport(tree, { thumbnails: false });
    expect(html).toContain('2 judgment(s) failed');

    const fresh = newRoot();
    writeFixtureTrajectory(fresh, { dir: `${O4}/os/_c`, steps: 2 }, images);
    expect(await buildReport(await loadResultsTree([fresh]), { format: 'md' })).toContain(
      'run `osharm judge` first',
    );
  });
});
