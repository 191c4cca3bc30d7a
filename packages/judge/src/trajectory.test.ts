import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskValidationError } from '@osharm/task-schema';
import { loadTrajectory } from './trajectory';
import { twoStepRun, writeTrajectory } from '@osharm/results-fixture';

const realTrajectories = fileURLToPath(
  new URL('../../../../shared/real-trajectories', import.meta.url),
);
let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'osharm-traj-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

describe('loadTrajectory', () => {
  it('reads steps, screenshots and the final screenshot of a clean run', async () => {
    const dir = join(tmp, 'clean');
    await writeTrajectory(dir, { steps: twoStepRun, staleNames: false });
    const trajectory = await loadTrajectory(dir);
    expect(trajectory.steps).toHaveLength(2);
    expect(trajectory.steps[0]!.screenshot).toBe(join(dir, 'step_0.png'));
    expect(trajectory.steps[1]!.screenshot).toMatch(/step_1_\d{8}@\d{6}\.png$/);
    expect(trajectory.finalScreenshotName).toMatch(/^step_2_/);
    expect(trajectory.finalScreenshot && existsSync(trajectory.finalScreenshot)).toBe(true);
    expect(trajectory.notes).toEqual([]);
  });

  it("resolves upstream's stale screenshot name after a step with no actions to the real file", async () => {
    const dir = join(tmp, 'stale');
    await writeTrajectory(dir, {
      steps: [
        { response: 'click', actions: ['pyautogui.click(1, 1)'] },
        { response: 'thinking, no code', actions: [] },
        { response: 'done', actions: ['DONE'] },
      ],
    });
    const trajectory = await loadTrajectory(dir);
    const logged = trajectory.betterLog.steps[2]!.screenshot_file;
    expect(existsSync(join(dir, logged))).toBe(false); // the quirk is really there
    expect(trajectory.steps[2]!.screenshot).toMatch(/step_1_\d{8}@\d{6}\.png$/);
    expect(trajectory.steps[2]!.screenshotNote).toContain('does not exist');
    expect(trajectory.notes).toContain(
      '1 stale screenshot name(s) in better_log.json resolved to the real file',
    );
  });

  it('tolerates missing images, an Error line, a garbage line and an empty instruction', async () => {
    const dir = join(tmp, 'rough');
    await writeTrajectory(dir, {
      steps: twoStepRun,
      screenshots: false,
      errorLine: 'Time limit exceeded in os/_fixture',
      score: null,
      instruction: '',
    });
    await writeFile(
      join(dir, 'traj.jsonl'),
      `not json\n${await (await import('node:fs/promises')).readFile(join(dir, 'traj.jsonl'), 'utf8')}`,
    );
    const trajectory = await loadTrajectory(dir);
    expect(trajectory.steps.every(step => step.screenshot === undefined)).toBe(true);
    expect(trajectory.finalScreenshot).toBeUndefined();
    expect(trajectory.notes.join('\n')).toMatch(/traj\.jsonl line 1: not valid JSON/);
    expect(trajectory.notes).toContain('2 of 2 step screenshot(s) missing');
    expect(trajectory.notes).toContain('the instruction is empty');
    expect(trajectory.trajLines.at(-1)).toEqual({ Error: 'Time limit exceeded in os/_fixture' });
  });

  it('uses step_0.png as the final screenshot when traj.jsonl is empty', async () => {
    const dir = join(tmp, 'empty');
    await writeTrajectory(dir, { steps: [{ response: 'I refuse.', actions: [] }] });
    const trajectory = await loadTrajectory(dir);
    expect(trajectory.finalScreenshotName).toBe('step_0.png');
    expect(trajectory.finalScreenshot).toBe(join(dir, 'step_0.png'));
  });

  it('throws a TaskValidationError naming better_log.json when it is missing or invalid', async () => {
    const dir = join(tmp, 'broken');
    await writeTrajectory(dir, { steps: twoStepRun });
    await writeFile(join(dir, 'better_log.json'), '{"params": {}, "task": {}, "steps": []}');
    const error = await loadTrajectory(dir).catch((caught: unknown) => caught);
    expect(TaskValidationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(join(dir, 'better_log.json'));
    expect((error as Error).message).toContain('$.params.model: required field is missing');
    await expect(loadTrajectory(join(tmp, 'nope'))).rejects.toThrow(
      'file not found: nothing to judge',
    );
  });

  it.runIf(existsSync(realTrajectories))(
    'reads the real upstream trajectories (no screenshots shipped)',
    async () => {
      const expected: Record<string, [number, number]> = {
        chrome_email_send_prompt: [14, 13],
        stop_task_notification: [2, 2],
        swisstransfer_website: [5, 5],
        thunderbird_swisstransfer: [15, 14],
      };
      for (const [name, [steps, lines]] of Object.entries(expected)) {
        const trajectory = await loadTrajectory(join(realTrajectories, name));
        expect(trajectory.steps, name).toHaveLength(steps);
        expect(trajectory.trajLines, name).toHaveLength(lines);
        expect(trajectory.notes, name).toContain(`${steps} of ${steps} step screenshot(s) missing`);
        expect(trajectory.betterLog.task.injection?.type).toBeDefined();
      }
    },
  );
});
