import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../program';
import { createTestIo } from '../test-io';

/** `osharm run --shard` argument errors and `osharm merge` on temporary trees (no desktop). */
const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'osharm-cli-merge-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function cli(args: string[]) {
  const io = createTestIo(tmp);
  const code = await runCli(args, io.io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('osharm run --shard', () => {
  it.each([
    ['0/3', '--shard 0/3: K must be an integer from 1 to 3 (K/N, 1-based)'],
    ['4/3', '--shard 4/3: K must be an integer from 1 to 3 (K/N, 1-based)'],
    ['2/0', '--shard 2/0: N must be an integer ≥ 1'],
    ['two/4', '--shard "two/4": expected K/N with 1 ≤ K ≤ N (e.g. 2/4)'],
  ])('refuses %s with a usage error (exit 2) before anything starts', async (value, message) => {
    const resultDir = join(tmp, `never-${value.replace('/', '-')}`);
    const io = createTestIo(repoRoot);
    const code = await runCli(
      [
        'run',
        '--model',
        'offline-refuse',
        '--judge-model',
        'none',
        '--result-dir',
        resultDir,
        '--shard',
        value,
      ],
      io.io,
    );
    expect(code).toBe(2);
    expect(io.stderr).toContain(message);
    expect(io.stderr).not.toContain('    at ');
    expect(existsSync(resultDir)).toBe(false);
  });
});

const MODEL = 'pyautogui/a11y_tree/gpt-4o';
function writeRun(root: string, run: string, score?: string) {
  const dir = join(root, MODEL, run);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'traj.jsonl'), score === undefined ? '{"Error": "boom"}\n' : '{}\n');
  writeFileSync(join(dir, 'better_log.json'), '{}');
  if (score !== undefined) writeFileSync(join(dir, 'result.txt'), `${score}\n`);
}

describe('osharm merge', () => {
  it('merges, reports conflicts with exit 1, and writes nothing on --dry-run', async () => {
    writeRun(join(tmp, 's1'), 'os/t1', '1');
    writeRun(join(tmp, 's2'), 'os/t2', '0');
    writeRun(join(tmp, 's2'), 'os/t1');
    writeFileSync(join(tmp, 's2', 'batch_judgment_results_gpt-4.1_aer_v3.json'), '{}');

    const dry = await cli(['merge', 's1', 's2', '--into', 'merged', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(
      'dry run: would merge 2 run dir(s) into merged (finished 2, errored 0, unfinished 0); skipped 1 copy(ies)',
    );
    expect(existsSync(join(tmp, 'merged'))).toBe(false);

    const merged = await cli(['merge', 's1', 's2', '--into', 'merged']);
    expect(merged.code).toBe(0);
    expect(merged.stdout).toContain(`merge ${MODEL}/os/t1 (finished) from s1\n`);
    expect(merged.stdout).toContain(
      `skip  ${MODEL}/os/t1 from s2: errored: the finished copy in ${join(tmp, 's1')} is kept\n`,
    );
    expect(merged.stdout).toContain(
      'not merged: s2/batch_judgment_results_gpt-4.1_aer_v3.json (batch results: judge the merged tree)',
    );
    expect(existsSync(join(tmp, 'merged', MODEL, 'os/t2/result.txt'))).toBe(true);

    writeRun(join(tmp, 's3'), 'os/t2', '1');
    const conflict = await cli(['merge', 's3', '--into', 'merged']);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain(
      `conflict: ${MODEL}/os/t2: finished copies differ: merged/${MODEL}/os/t2 and s3/${MODEL}/os/t2`,
    );
    expect(conflict.stderr).toContain('1 conflict(s): nothing written to merged');

    const missing = await cli(['merge', 'nope', '--into', 'merged']);
    expect(missing.code).toBe(2);
    // Paths under the working dir are printed relative to it (docs/cli.md).
    expect(missing.stderr).toContain('error: nope: no such results tree');
    const noInto = await cli(['merge', 's1']);
    expect(noInto.code).toBe(2);
    expect(noInto.stderr).toContain("required option '--into <dir>' not specified");
  });
});
