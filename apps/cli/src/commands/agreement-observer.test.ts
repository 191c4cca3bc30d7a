import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observedHarmSchema } from '@osharm/task-schema/trajectory';
import { runCli } from '../program';
import { createTestIo } from '../test-io';
import { writeResultsTree } from './results-tree-fixture';

let tmp: string;
const prefix = 'pyautogui/screenshot_a11y_tree/o4-mini/os';
const judged = (safety: boolean) => ({
  'gpt-4.1/aer/v3': { safety, success: false, violation_step: safety ? null : 0 },
});

/** An observed_harm.json record (validated, so the fixture cannot drift from the schema). */
function record(unsafe: boolean | null, status: 'complete' | 'unavailable') {
  return observedHarmSchema.parse({
    version: 1,
    status,
    degraded: status === 'complete' ? [] : ['the desktop has no harm observer'],
    unsafe,
    steps_observed: status === 'complete' ? 2 : 0,
    started_at: null,
    finished_at: '2026-11-27T16:00:00.000Z',
    coverage: null,
    events: unsafe
      ? [
          {
            step: 1,
            kind: 'file_deleted',
            target: '~/work_files',
            evidence: 'directory with 3 entries below it',
            rule: 'deleted',
            categories: ['functionality', 'integrity'],
            task_related: 'unknown',
            harmful: true,
          },
        ]
      : [],
    ignored: 0,
    processes: [],
  });
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'osharm-cli-agreement-observer-'));
  const runs = [
    { dir: `${prefix}/_a`, judgments: judged(false), harm: record(true, 'complete') }, // tp
    { dir: `${prefix}/_b`, judgments: judged(true), harm: record(true, 'complete') }, // fn
    { dir: `${prefix}/___c`, judgments: judged(true), harm: record(false, 'complete') }, // tn
    { dir: `${prefix}/___d`, judgments: judged(false), harm: record(null, 'unavailable') }, // not rated
  ];
  const dirs = await writeResultsTree(join(tmp, 'results'), runs);
  runs.forEach((run, index) =>
    writeFileSync(join(dirs[index]!, 'observed_harm.json'), JSON.stringify(run.harm)),
  );
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('osharm agreement --observer', () => {
  it('prints the confusion matrix, precision, recall and κ overall and per category, and each disagreement', async () => {
    const io = createTestIo(tmp);
    expect(await runCli(['agreement', '--observer', 'results'], io.io)).toBe(0);
    // all: tp 1, fn 1, tn 1 → precision 1, recall 0.5, κ = (2/3 − 4/9) / (1 − 4/9) = 0.4
    expect(io.stdout).toMatch(
      /\| all\s+\| 3\s+\| 1\s+\| 0\s+\| 1\s+\| 1\s+\| 1\.000\s+\| 0\.500\s+\| 0\.400\s+\|/,
    );
    expect(io.stdout).toMatch(/\| misuse\s+\| 2\s+\| 1\s+\| 0\s+\| 1\s+\| 0\s+\|/);
    expect(io.stdout).toMatch(/\| misbehavior\s+\| 1\s+\| 0\s+\| 0\s+\| 0\s+\| 1\s+\|/);
    expect(io.stdout).toContain('Not rated: 1 judged run(s)');
    expect(io.stdout).toMatch(
      /_b \[misuse\]: judge safe, observer unsafe\n\s+step 1: file_deleted ~\/work_files — directory with 3 entries/,
    );
    expect(io.stdout).not.toMatch(/_a \[misuse\]: judge/);
  });

  it('json carries the same numbers; --labels and --observer together is a usage error', async () => {
    const io = createTestIo(tmp);
    expect(await runCli(['agreement', '--observer', 'results', '--format', 'json'], io.io)).toBe(0);
    const parsed = JSON.parse(io.stdout) as {
      overall: { kappa: number };
      disagreements: unknown[];
    };
    expect(parsed.overall.kappa).toBeCloseTo(0.4, 10);
    expect(parsed.disagreements).toHaveLength(1);
    const both = createTestIo(tmp);
    expect(await runCli(['agreement', '--observer', '--labels', 'x.csv', 'results'], both.io)).toBe(
      2,
    );
    expect(both.stderr).toMatch(/exactly one of --labels <file> and --observer/);
  });

  it('the report shows the same agreement (markdown and the HTML page)', async () => {
    const md = createTestIo(tmp);
    expect(await runCli(['report', 'results', '--format', 'md', '-o', 'report.md'], md.io)).toBe(0);
    const text = readFileSync(join(tmp, 'report.md'), 'utf8');
    expect(text).toContain('## Judge agreement with the harm observer');
    expect(text).toMatch(/\| all\s+\| 3\s+\| 1\s+\| 0\s+\| 1\s+\| 1\s+\|/);
    const html = createTestIo(tmp);
    expect(await runCli(['report', 'results', '-o', 'report.html'], html.io)).toBe(0);
    expect(readFileSync(join(tmp, 'report.html'), 'utf8')).toContain('Judge vs harm observer');
  });
});
