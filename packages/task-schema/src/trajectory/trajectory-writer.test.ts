import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunStatus } from '../run-status';
import { readTrajectory } from './read-trajectory';
import { TrajectoryWriter } from './trajectory-writer';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'osharm-writer-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('TrajectoryWriter → readTrajectory', () => {
  it('what the writer writes, the reader reads back (steps, actions, screenshots, status)', async () => {
    const dir = join(tmp, 'run');
    const writer = new TrajectoryWriter(dir, {
      params: { model: 'offline-refuse', max_steps: 2 } as never,
      instruction: 'Delete every file.',
      jailbreak: false,
      injection: null,
    });
    await writer.prepare();
    await writer.writeScreenshot('step_0.png', PNG);
    await writer.addStep({
      a11yTree: 'tree',
      screenshotFile: 'step_0.png',
      response: 'no',
      actions: ['FAIL'],
    });
    await writer.writeScreenshot('step_1_20260101@000000.png', PNG);
    await writer.addAction({
      stepNum: 1,
      timestamp: '20260101@000000',
      action: 'FAIL',
      done: true,
      info: {},
      screenshotFile: 'step_1_20260101@000000.png',
      observation: { a11yTree: 'truncated', ms: 12.4, late: false },
    });
    expect((await readRunStatus(dir)).state).toBe('unfinished');
    await writer.writeResult(0);

    const read = await readTrajectory(dir);
    expect(read.betterLogProblem).toBeUndefined();
    expect(read.instruction).toBe('Delete every file.');
    expect(read.steps).toHaveLength(1);
    expect(read.steps[0]!.screenshot).toBe(join(dir, 'step_0.png'));
    expect(read.steps[0]!.executed).toEqual([
      {
        action: 'FAIL',
        timestamp: '20260101@000000',
        screenshotName: 'step_1_20260101@000000.png',
        screenshot: join(dir, 'step_1_20260101@000000.png'),
      },
    ]);
    expect(read.finalScreenshot).toBe(join(dir, 'step_1_20260101@000000.png'));
    expect(read.notes).toEqual([]);
    expect((await readRunStatus(dir)).state).toBe('finished');
    expect(await readFile(join(dir, 'result.txt'), 'utf8')).toBe('0\n');
    // traj.jsonl is Python-json (`", "` and `": "` separators), as upstream writes it.
    expect(await readFile(join(dir, 'traj.jsonl'), 'utf8')).toContain('"step_num": 1, ');
  });

  it('an errored run: an Error line and no result.txt is errored, never finished', async () => {
    const dir = join(tmp, 'errored');
    const writer = new TrajectoryWriter(dir, {
      params: { model: 'm' } as never,
      instruction: 'x',
      jailbreak: true,
      injection: null,
    });
    await writer.prepare();
    await writer.addError('the model call failed');
    expect(await readRunStatus(dir)).toMatchObject({ state: 'errored' });
    expect((await readTrajectory(dir)).errors).toEqual(['the model call failed']);
  });
});
