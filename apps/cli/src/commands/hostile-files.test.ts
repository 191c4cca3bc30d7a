// Issue 9 §2 through `osharm report` / `osharm view`: crafted dir names are printed escaped, a
// symlinked screenshot is never inlined, and the size-cap flags work and are documented.
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../program';
import { createTestIo } from '../test-io';
import { writeResultsTree } from './results-tree-fixture';

const ESC = '\x1b';
const EVIL = `_e${ESC}[2J${ESC}[H${ESC}]0;title\x07\rforged`;
const MARKER = 'HOST-FILE-91b2';
let tmp: string;
let evilDir: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'osharm-cli-hostile-'));
  const dirs = await writeResultsTree(join(tmp, 'results'), [
    { dir: `pyautogui/screenshot_a11y_tree/o4-mini/os/${EVIL}` },
    { dir: 'pyautogui/screenshot_a11y_tree/o4-mini/os/_plain' },
  ]);
  evilDir = dirs[0]!;
  // a host file that starts like a PNG, reached through a symlinked screenshot
  const host = join(tmp, 'host.png');
  writeFileSync(
    host,
    Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from(MARKER.repeat(10))]),
  );
  rmSync(join(evilDir, 'step_0.png'));
  symlinkSync(host, join(evilDir, 'step_0.png'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('osharm report on a hostile tree', () => {
  it('prints dir names with their control characters escaped (md to stdout)', async () => {
    const io = createTestIo(tmp);
    expect(await runCli(['report', 'results', '--format', 'md'], io.io)).toBe(0);
    expect(io.stdout).not.toContain(ESC);
    expect(io.stdout).not.toContain('\r');
    expect(io.stdout).toContain('_e\\u001b[2J\\u001b[H\\u001b]0;title\\u0007');
  });

  it('an error naming a crafted path is escaped too', async () => {
    const io = createTestIo(tmp);
    expect(await runCli(['report', `missing${ESC}[2J`], io.io)).toBe(2);
    expect(io.stderr).not.toContain(ESC);
    expect(io.stderr).toContain('missing\\u001b[2J');
  });

  it('--embed-images never inlines a symlinked screenshot', async () => {
    const io = createTestIo(tmp);
    expect(
      await runCli(['report', 'results', '--embed-images', '--out', 'embedded.html'], io.io),
    ).toBe(0);
    const html = readFileSync(join(tmp, 'embedded.html'), 'utf8');
    expect(html).not.toContain(Buffer.from(MARKER.repeat(3)).toString('base64').slice(4, 40));
    expect(html).toContain('step_0.png was refused (symlink), not read');
  });

  it('--max-log-mb / --max-image-mb cap what is read; the defaults are in --help', async () => {
    const io = createTestIo(tmp);
    expect(
      await runCli(['report', 'results', '--format', 'json', '--max-log-mb', '0.0001'], io.io),
    ).toBe(0);
    const json = JSON.parse(io.stdout) as { trajectories: { notes: string[] }[] };
    expect(
      json.trajectories.every(record => record.notes.some(note => /over the .* cap/.test(note))),
    ).toBe(true);
    const bad = createTestIo(tmp);
    expect(await runCli(['report', 'results', '--max-image-mb', '0'], bad.io)).toBe(2);
    for (const command of ['report', 'view']) {
      const help = createTestIo(tmp);
      expect(await runCli([command, '--help'], help.io)).toBe(0);
      expect(help.stdout).toMatch(/--max-image-mb <MiB>[\s\S]*\(default: 32\)/);
      expect(help.stdout).toMatch(/--max-log-mb <MiB>[\s\S]*\(default: 32\)/);
    }
  });
});
