import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../program';
import { createTestIo } from '../test-io';
import { STANDARD_RUNS, writeResultsTree } from './results-tree-fixture';

let tmp: string;
const prefix = 'pyautogui/screenshot_a11y_tree/o4-mini/os';

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'osharm-cli-agreement-'));
  await writeResultsTree(join(tmp, 'results'), STANDARD_RUNS);
  await writeResultsTree(join(tmp, 'unjudged'), [{ dir: `${prefix}/_a` }]);
  // aer/v3: safety TP 2, FN 1 → F1 0.80; success TP 1, TN 2 → 1.00
  // default/v1: safety TP 1, FN 2 → 0.50; success TP 1, FP 1, TN 1 → 0.67
  writeFileSync(
    join(tmp, 'labels.csv'),
    `trajectory,success,safety\n${prefix}/_a,true,false\n${prefix}/_b,false,false\n${prefix}/___c,false,false\nelsewhere/_z,true,true\n`,
  );
  writeFileSync(
    join(tmp, 'labels.json'),
    JSON.stringify({ [`o4-mini/os/_a`]: { success: true, safety: false } }),
  );
  writeFileSync(join(tmp, 'bad.csv'), 'trajectory,success\nx,maybe\n');
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('osharm agreement', () => {
  it('prints the paper-style table: F1 for success and safety per judge configuration', async () => {
    const io = createTestIo(tmp);
    expect(await runCli(['agreement', '--labels', 'labels.csv', 'results'], io.io)).toBe(0);
    expect(io.stdout).toBe(
      `All runs (3 of 4 labels matched; safety F1 positive class: unsafe)

| judge model | judge type | prompt version | success F1 | safety F1 |   n |
| ----------- | ---------- | -------------- | ---------: | --------: | --: |
| gpt-4.1     | aer        | v3             |       1.00 |      0.80 |   3 |
| gpt-4.1     | default    | v1             |       0.67 |      0.50 |   3 |

`,
    );
    expect(io.stderr).toBe('warning: 1 of 4 label(s) match no trajectory, e.g. elsewhere/_z\n');
  });

  it('also per run, as csv or json, and with labels in JSON', async () => {
    const csv = createTestIo(tmp);
    expect(
      await runCli(
        ['agreement', '--labels', 'labels.csv', 'results', '--by-run', '--format', 'csv'],
        csv.io,
      ),
    ).toBe(0);
    const lines = csv.stdout.trim().split('\n');
    expect(
      lines[0]!.startsWith(
        'run,judge_model,judge_type,prompt_version,judged,n,success_n,success_tp',
      ),
    ).toBe(true);
    expect(lines.slice(1).map(line => line.split(',').slice(0, 6).join(','))).toEqual([
      'all,gpt-4.1,aer,v3,3,3',
      'all,gpt-4.1,default,v1,3,3',
      'o4-mini,gpt-4.1,aer,v3,3,3',
      'o4-mini,gpt-4.1,default,v1,3,3',
    ]);
    const json = createTestIo(tmp);
    expect(
      await runCli(
        ['agreement', '--labels', 'labels.json', 'results', '--format', 'json'],
        json.io,
      ),
    ).toBe(0);
    const [all] = JSON.parse(json.stdout) as {
      run: null;
      rows: { n: number; safety: { tp: number } }[];
    }[];
    expect(all!.run).toBeNull();
    expect(all!.rows.map(row => [row.n, row.safety.tp])).toEqual([
      [1, 1],
      [1, 0],
    ]);
  });

  it('fails with a message: no judgments, no matching label, unreadable labels', async () => {
    const unjudged = createTestIo(tmp);
    expect(await runCli(['agreement', '--labels', 'labels.csv', 'unjudged'], unjudged.io)).toBe(1);
    expect(unjudged.stderr).toContain(
      'error: no judgment found under unjudged (run osharm judge first)',
    );
    const bad = createTestIo(tmp);
    expect(await runCli(['agreement', '--labels', 'bad.csv', 'results'], bad.io)).toBe(1);
    expect(bad.stderr).toMatch(/^error: labels CSV row 2, column "success": expected true, false/);
    const missing = createTestIo(tmp);
    expect(await runCli(['agreement', '--labels', 'nope.csv', 'results'], missing.io)).toBe(2);
    expect(missing.stderr).toBe('error: cannot read labels file nope.csv\n');
    const noLabels = createTestIo(tmp);
    expect(await runCli(['agreement', 'results'], noLabels.io)).toBe(2);
    expect(noLabels.stderr).toContain('give exactly one of --labels <file> and --observer');
  });
});
