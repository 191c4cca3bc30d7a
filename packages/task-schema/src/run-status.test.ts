import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isCountedRun, lastErrorLine, readRunStatus, UNFINISHED_REASON } from './run-status';

const root = mkdtempSync(join(tmpdir(), 'run-status-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let count = 0;
function runDir(files: Record<string, string>): string {
  const dir = join(root, `run${(count += 1)}`);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
const step =
  '{"step_num": 1, "action_timestamp": "20250101@000000", "action": "FAIL", "reward": 0, "done": true, "info": {"fail": true}, "screenshot_file": "s.png"}';

describe('readRunStatus', () => {
  it('finished: result.txt holds the score', async () => {
    expect(
      await readRunStatus(runDir({ 'result.txt': '0.5\n', 'traj.jsonl': `${step}\n` })),
    ).toEqual({ state: 'finished', score: 0.5 });
  });

  it("errored: traj.jsonl ends with an Error line and there is no result.txt (upstream's exception path)", async () => {
    const dir = runDir({
      'traj.jsonl': `${step}\n{"Error": "os/_a - model call failed after retries: RateLimitError 429"}\n\n`,
    });
    expect(await readRunStatus(dir)).toEqual({
      state: 'errored',
      reason: 'os/_a - model call failed after retries: RateLimitError 429',
    });
  });

  it('environment_destroyed_by_agent: the error line carries the step the desktop died after', async () => {
    const dir = runDir({
      'traj.jsonl': `${step}\n{"Error": "os/_a - the desktop stopped answering", "environment_destroyed_by_agent": {"step": 3}}\n`,
    });
    const status = await readRunStatus(dir);
    expect(status).toEqual({
      state: 'environment_destroyed_by_agent',
      step: 3,
      reason: 'os/_a - the desktop stopped answering',
    });
    expect(isCountedRun(status)).toBe(true);
    // a malformed marker is no marker: the run stays errored (uncounted), never invented
    for (const marker of ['{"step": 0}', '{"step": "3"}', 'true', '{"step": 1.5}']) {
      const bad = runDir({
        'traj.jsonl': `{"Error": "x", "environment_destroyed_by_agent": ${marker}}\n`,
      });
      expect((await readRunStatus(bad)).state).toBe('errored');
    }
    // a result.txt wins: the run finished
    const finished = runDir({
      'result.txt': '1',
      'traj.jsonl': `{"Error": "x", "environment_destroyed_by_agent": {"step": 2}}\n`,
    });
    expect(await readRunStatus(finished)).toEqual({ state: 'finished', score: 1 });
  });

  it('unfinished: no result.txt, no error line (running, killed, or copied without it)', async () => {
    expect(await readRunStatus(runDir({ 'traj.jsonl': `${step}\n` }))).toEqual({
      state: 'unfinished',
      reason: UNFINISHED_REASON,
    });
    expect((await readRunStatus(runDir({}))).state).toBe('unfinished');
  });

  it('an error line before later step lines is not the end of the run', async () => {
    const dir = runDir({ 'traj.jsonl': `{"Error": "earlier"}\n${step}\n` });
    expect((await readRunStatus(dir)).state).toBe('unfinished');
  });

  it('a result.txt that is not a number is an error, not a score', async () => {
    expect(await readRunStatus(runDir({ 'result.txt': 'nan\n' }))).toEqual({
      state: 'errored',
      reason: 'result.txt does not hold a score: "nan"',
    });
  });

  it('reads only the end of a huge traj.jsonl, and never follows a symlink or opens a FIFO', async () => {
    const huge = runDir({
      'traj.jsonl': `${`${step}\n`.repeat(20_000)}{"Error": "late"}\n`,
    });
    expect(await readRunStatus(huge)).toEqual({ state: 'errored', reason: 'late' });
    const outside = runDir({ 'result.txt': '1\n' });
    const linked = runDir({});
    symlinkSync(join(outside, 'result.txt'), join(linked, 'result.txt'));
    expect((await readRunStatus(linked)).state).toBe('unfinished');
    const fifo = runDir({});
    execFileSync('mkfifo', [join(fifo, 'result.txt')]);
    expect((await readRunStatus(fifo)).state).toBe('unfinished');
  });
});

describe('lastErrorLine', () => {
  it('gives the reason of a final Error line only', () => {
    expect(lastErrorLine('{"Error": "x"}\n')).toBe('x');
    expect(lastErrorLine('{"Error": 3}\n')).toBeUndefined();
    expect(lastErrorLine('not json\n')).toBeUndefined();
    expect(lastErrorLine('')).toBeUndefined();
  });
});
