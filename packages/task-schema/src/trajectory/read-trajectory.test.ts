import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPythonJson } from '../python-json';
import { discoverTrajectories } from './discover-trajectories';
import { readTrajectory } from './read-trajectory';
import { readRunFacts } from './run-facts';

const REAL = fileURLToPath(new URL('../../../../../shared/real-trajectories', import.meta.url));
// 1×1 PNG: the reader checks screenshots by content.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'osharm-read-trajectory-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** A small run dir: better_log steps, the traj lines of their actions, and which PNGs exist. */
async function writeRun(
  dir: string,
  steps: { actions: string[]; logged: string }[],
  pngs: readonly string[],
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const log = {
    params: { model: 'o4-mini', max_steps: 15 },
    task: { jailbreak: false, injection: null, instruction: 'Do it.' },
    steps: steps.map(step => ({
      a11y_tree: 'tree',
      screenshot_file: step.logged,
      response: 'r',
      actions: step.actions,
    })),
  };
  await writeFile(join(dir, 'better_log.json'), toPythonJson(log));
  const lines = steps.flatMap((step, index) =>
    step.actions.map((action, at) => ({
      step_num: index + 1,
      action_timestamp: `20260320@2300${index}${at}`,
      action,
      reward: 0,
      done: action === 'DONE',
      info: {},
      screenshot_file: `step_${index + 1}_20260320@2300${index}${at}.png`,
    })),
  );
  await writeFile(join(dir, 'traj.jsonl'), lines.map(line => `${toPythonJson(line)}\n`).join(''));
  for (const name of pngs) await writeFile(join(dir, name), PNG);
}

describe('readTrajectory on real upstream logs (no screenshots published)', () => {
  const cases = [
    { name: 'chrome_email_send_prompt', steps: 14, lines: 13, skipped: 8 },
    { name: 'stop_task_notification', steps: 2, lines: 2 },
    { name: 'swisstransfer_website', steps: 5, lines: 5 },
    { name: 'thunderbird_swisstransfer', steps: 15, lines: 14, skipped: 3 },
  ];
  for (const example of cases)
    it(`${example.name}: steps, actions per step, missing images as notes`, async () => {
      const dir = join(REAL, example.name);
      expect(existsSync(dir), `real trajectory expected at ${dir}`).toBe(true);
      const read = await readTrajectory(dir);
      expect(read.betterLogProblem).toBeUndefined();
      expect(read.steps).toHaveLength(example.steps);
      expect(read.stepLines).toHaveLength(example.lines);
      expect(read.errors).toEqual([]);
      // No PNG was published: every step lacks its image, and nothing is guessed.
      expect(read.missingScreenshots).toBe(example.steps);
      expect(read.steps.every(step => step.screenshot === undefined)).toBe(true);
      expect(read.finalScreenshot).toBeUndefined();
      const traj = (await readFile(join(dir, 'traj.jsonl'), 'utf8')).trim().split('\n');
      expect(read.finalScreenshotName).toBe(
        (JSON.parse(traj.at(-1)!) as { screenshot_file: string }).screenshot_file,
      );
      // A step whose actions list was empty has no traj line (upstream's gap in step_num).
      if (example.skipped !== undefined) {
        expect(read.steps[example.skipped]!.executed).toEqual([]);
        expect(read.steps[example.skipped]!.actions).toEqual([]);
      }
      expect(read.steps.reduce((sum, step) => sum + step.executed.length, 0)).toBe(example.lines);
      // The run facts the report and the judge slice by come from the same log.
      expect((await readRunFacts(dir))?.injection?.vector).toBe(
        read.betterLog?.task.injection?.type,
      );
    });
});

describe('readTrajectory quirks and hostile files', () => {
  it("resolves upstream's stale screenshot name to the last earlier action's screenshot", async () => {
    const dir = join(tmp, 'stale');
    await writeRun(
      dir,
      [
        { actions: ['pyautogui.click(1, 1)'], logged: 'step_0.png' },
        { actions: [], logged: 'step_1_20260320@230000.png' },
        // After a step with no actions, upstream logs a name that was never written.
        { actions: ['DONE'], logged: 'step_2_20260320@239999.png' },
      ],
      ['step_0.png', 'step_1_20260320@230000.png', 'step_3_20260320@230020.png'],
    );
    const read = await readTrajectory(dir);
    expect(read.steps[2]!.screenshot).toBe(join(dir, 'step_1_20260320@230000.png'));
    expect(read.steps[2]!.screenshotNote).toMatch(/which does not exist; showing step_1_/);
    expect(read.staleScreenshots).toBe(1);
    expect(read.missingScreenshots).toBe(0);
    expect(read.finalScreenshot).toBe(join(dir, 'step_3_20260320@230020.png'));
  });

  it('a symlinked better_log.json is refused, a FIFO traj.jsonl and an outside screenshot are notes', async () => {
    const dir = join(tmp, 'hostile');
    await writeRun(dir, [{ actions: ['DONE'], logged: '../outside.png' }], []);
    await writeFile(join(tmp, 'outside.png'), PNG);
    await rm(join(dir, 'traj.jsonl'));
    execFileSync('mkfifo', [join(dir, 'traj.jsonl')]);
    const read = await readTrajectory(dir);
    expect(read.steps[0]!.screenshot).toBeUndefined();
    expect(read.steps[0]!.screenshotNote).toMatch(/was refused \(outside\), not read/);
    expect(read.notes.join('\n')).toMatch(/traj\.jsonl refused \(not read\).*not a regular file/);
    expect(read.hasTraj).toBe(false);

    const linked = join(tmp, 'linked');
    await mkdir(linked);
    await symlink(join(dir, 'better_log.json'), join(linked, 'better_log.json'));
    const refused = await readTrajectory(linked);
    expect(refused.betterLog).toBeUndefined();
    expect(refused.betterLogProblem?.reason).toBe('refused');
  });

  it('an invalid better_log.json is a problem with the field named, not a throw', async () => {
    const dir = join(tmp, 'invalid');
    await mkdir(dir);
    await writeFile(join(dir, 'better_log.json'), '{"task": {}, "steps": []}');
    const read = await readTrajectory(dir);
    expect(read.betterLogProblem?.reason).toBe('invalid');
    const issues = read.betterLogProblem?.reason === 'invalid' ? read.betterLogProblem.issues : [];
    expect(issues.map(issue => issue.path)).toContain('$.params');
    await writeFile(join(dir, 'better_log.json'), '{"params": ');
    expect((await readTrajectory(dir)).betterLogProblem?.reason).toBe('not-json');
    expect((await readTrajectory(join(tmp, 'none'))).betterLogProblem?.reason).toBe('missing');
  });
});

describe('discoverTrajectories', () => {
  it('finds run dirs, skips judgment/ and captions/, collects batch results files', async () => {
    const root = join(tmp, 'tree');
    const runA = join(root, 'pyautogui/a11y_tree/o4-mini/os/_a');
    const runB = join(root, 'pyautogui/a11y_tree/Qwen/Qwen2.5-VL/os/_b');
    await writeRun(runA, [{ actions: ['DONE'], logged: 'step_0.png' }], []);
    await writeRun(runB, [{ actions: ['DONE'], logged: 'step_0.png' }], []);
    const errored = join(root, 'pyautogui/a11y_tree/o4-mini/os/_errored');
    await mkdir(errored, { recursive: true });
    await writeFile(join(errored, 'traj.jsonl'), '{"Error": "boom"}\n');
    await mkdir(join(runA, 'judgment/gpt-4.1/aer/v3/inner'), { recursive: true });
    await writeFile(join(runA, 'judgment/gpt-4.1/aer/v3/inner/better_log.json'), '{}');
    await writeFile(join(root, 'batch_judgment_results_gpt-4.1_aer_v3.json'), '{}');

    const resultsFiles: string[] = [];
    expect(await discoverTrajectories(root, { resultsFiles })).toEqual([runB, runA].sort());
    expect(resultsFiles).toEqual([join(root, 'batch_judgment_results_gpt-4.1_aer_v3.json')]);
    expect(await discoverTrajectories(root, { runDirs: true })).toEqual(
      [runA, runB, errored].sort(),
    );
    expect(await discoverTrajectories(join(tmp, 'missing-root'))).toEqual([]);
  });
});
