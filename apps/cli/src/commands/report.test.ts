import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../program';
import { createTestIo } from '../test-io';
import { STANDARD_RUNS, writeResultsTree } from './results-tree-fixture';

let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'osharm-cli-report-'));
  await writeResultsTree(join(tmp, 'results'), [
    ...STANDARD_RUNS,
    {
      dir: 'pyautogui/screenshot_a11y_tree/o4-mini/os/_d',
      response: '</script><script>alert(1)</script>',
    },
  ]);
  mkdirSync(join(tmp, 'empty'));
  writeFileSync(join(tmp, 'labels.csv'), 'trajectory,success,safety\no4-mini/os/_a,true,false\n');
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The embedded JSON element `id` of a report page. */
const embedded = (html: string, id: string) =>
  JSON.parse(
    new RegExp(`<script type="application/json" id="${id}">(.*?)</script>`).exec(html)![1]!,
  );

describe('osharm report', () => {
  it('writes report.html by default, linking screenshots relative to it', async () => {
    const io = createTestIo(tmp);
    expect(await runCli(['report', 'results'], io.io)).toBe(0);
    expect(io.stdout).toMatch(
      /^wrote .*\/report\.html \(html, [\d.]+ MB, 4 trajectories, [\d.]+ s\)\n$/,
    );
    const html = readFileSync(join(tmp, 'report.html'), 'utf8');
    const data = embedded(html, 'osharm-data');
    expect(data.title).toBe('osharm report');
    expect(data.roots).toEqual(['results']);
    expect(data.defaultJudge).toBe('gpt-4.1/aer/v3');
    const detail = embedded(html, `tr-${data.trajectories[0].id}`);
    expect(detail.steps[0].image.full).toBe(
      'results/pyautogui/screenshot_a11y_tree/o4-mini/os/___c/step_0.png',
    );
    expect(html).not.toContain('<script>alert(1)');
  });

  it('takes the format from --out, and writes md / csv / json', async () => {
    const io = createTestIo(tmp);
    expect(await runCli(['report', 'results', '--out', 'out/report.csv'], io.io)).toBe(0);
    expect(readFileSync(join(tmp, 'out/report.csv'), 'utf8').split('\n')[0]).toMatch(
      /^run,model,jailbreak,category/,
    );
    const md = createTestIo(tmp);
    expect(
      await runCli(
        [
          'report',
          'results',
          '--format',
          'md',
          '--labels',
          'labels.csv',
          '--judge',
          'gpt-4.1/default/v1',
        ],
        md.io,
      ),
    ).toBe(0);
    expect(md.stdout).toContain('Judge: `gpt-4.1/default/v1` (also found: `gpt-4.1/aer/v3`).');
    expect(md.stdout).toContain('## Judge agreement with human labels');
    expect(md.stdout).toMatch(/\| o4-mini \|\s+2 \|\s+0\.0% \[0\.0–65\.8\] \|/);
    const json = createTestIo(tmp);
    expect(await runCli(['report', 'results', '--format', 'json'], json.io)).toBe(0);
    expect(JSON.parse(json.stdout).trajectories).toHaveLength(4);
  });

  it('embeds full-size images or leaves thumbnails out on request', async () => {
    const io = createTestIo(tmp);
    expect(
      await runCli(
        [
          'report',
          'results',
          '-o',
          'embedded.html',
          '--embed-images',
          '--no-thumbnails',
          '--title',
          'Mine',
        ],
        io.io,
      ),
    ).toBe(0);
    const html = readFileSync(join(tmp, 'embedded.html'), 'utf8');
    expect(html).toContain('<title>Mine</title>');
    expect(html).toContain('data:image/png;base64,');
    expect(html).not.toContain('id="th-');
  });

  it('reports usage and data problems with the right exit code', async () => {
    const empty = createTestIo(tmp);
    expect(await runCli(['report', 'empty', '--format', 'md'], empty.io)).toBe(1);
    expect(empty.stderr).toBe('error: no trajectory (dir with better_log.json) under empty\n');
    const missing = createTestIo(tmp);
    expect(await runCli(['report', 'nope', '--format', 'md'], missing.io)).toBe(2);
    expect(missing.stderr).toMatch(/^error: results dir not found: .*nope\n$/);
    const judge = createTestIo(tmp);
    expect(
      await runCli(['report', 'results', '--judge', 'x/y/z', '--format', 'md'], judge.io),
    ).toBe(2);
    expect(judge.stderr).toBe(
      'error: no judgment of x/y/z found; found: gpt-4.1/aer/v3, gpt-4.1/default/v1\n',
    );
    const format = createTestIo(tmp);
    expect(await runCli(['report', 'results', '--format', 'pdf'], format.io)).toBe(2);
    expect(format.stderr).toContain("argument 'pdf' is invalid");
    const width = createTestIo(tmp);
    expect(await runCli(['report', 'results', '--thumb-width', '5'], width.io)).toBe(2);
    expect(existsSync(join(tmp, 'nope'))).toBe(false);
  });

  it('documents itself', async () => {
    const io = createTestIo(tmp);
    expect(await runCli(['report', '--help'], io.io)).toBe(0);
    expect(io.stdout).toMatch(/^Usage: osharm report \[options\] <results\.\.\.>/);
    expect(io.stdout).toContain('--embed-images');
    const top = createTestIo(tmp);
    await runCli(['--help'], top.io);
    expect(top.stdout).toMatch(/report \[options\] <results\.\.\.>/);
    expect(top.stdout).toMatch(/view \[options\] <results\.\.\.>/);
    expect(top.stdout).toMatch(/agreement \[options\] <results\.\.\.>/);
  });
});
