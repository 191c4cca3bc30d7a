import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { executeOnlyCopy } from './sandbox-runtime';

let workDir: string | undefined;
afterEach(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('executeOnlyCopy', () => {
  it('gives every concurrent caller of one process the same complete execute-only copy', async () => {
    workDir = await mkdtemp(join(tmpdir(), 'osharm-runtime-'));
    // Desktops of one harness start together: same pid, often the same millisecond.
    const paths = await Promise.all(
      Array.from({ length: 8 }, () => executeOnlyCopy(workDir!, process.execPath, 'node')),
    );
    expect(new Set(paths).size).toBe(1);
    const copy = paths[0]!;
    const info = await stat(copy);
    expect(info.mode & 0o777).toBe(0o111);
    expect(info.size).toBe((await stat(process.execPath)).size);
    // No staging file is left behind.
    expect(await readdir(join(workDir, 'runtime'))).toEqual([copy.split('/').at(-1)]);
    // The copy is the binary, byte for byte (root reads through the execute-only mode).
    if (process.getuid?.() === 0) {
      expect((await readFile(copy)).equals(await readFile(process.execPath))).toBe(true);
    }
  });
});
