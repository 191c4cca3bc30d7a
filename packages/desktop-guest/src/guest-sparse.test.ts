// storedDataBytes on real files: the filesystem's own hole map, read on an open descriptor.
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedDataBytes } from './guest-sparse';

const MiB = 1024 * 1024;

describe('storedDataBytes', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'osharm-sparse-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  const probe = async (path: string, size: number) => {
    const fd = openSync(path, 'r');
    try {
      return await storedDataBytes(fd, size);
    } finally {
      closeSync(fd);
    }
  };

  it('a dense file is all data, however well it would compress', async () => {
    const path = join(directory, 'dense.bin');
    await writeFile(path, Buffer.alloc(3 * MiB, 7));
    expect(await probe(path, 3 * MiB)).toBe(3 * MiB);
  });

  it('a 100 GiB file of one hole holds no data', async () => {
    const path = join(directory, 'hole.bin');
    await writeFile(path, '');
    await truncate(path, 100 * 1024 * MiB);
    expect(await probe(path, 100 * 1024 * MiB)).toBe(0);
  });

  it('data, a hole, data: only the data counts (to the size asked)', async () => {
    const path = join(directory, 'mixed.bin');
    const fd = openSync(path, 'w');
    writeSync(fd, Buffer.alloc(MiB, 1), 0, MiB, 0);
    writeSync(fd, Buffer.alloc(MiB, 2), 0, MiB, 64 * MiB);
    closeSync(fd);
    // the filesystem's allocation unit rounds each extent: within a few pages of 2 MiB
    const stored = (await probe(path, 65 * MiB))!;
    expect(stored).toBeGreaterThanOrEqual(2 * MiB);
    expect(stored).toBeLessThan(2 * MiB + 64 * 1024);
    // asked for the first MiB only
    expect(await probe(path, MiB)).toBe(MiB);
  });

  it('leaves the descriptor at the start', async () => {
    const path = join(directory, 'dense.bin');
    const fd = openSync(path, 'r');
    try {
      await storedDataBytes(fd, 3 * MiB);
      const buffer = Buffer.alloc(4);
      // a read without a position reads from the descriptor's offset
      expect(readSync(fd, buffer, 0, 4, null)).toBe(4);
      expect([...buffer]).toEqual([7, 7, 7, 7]);
    } finally {
      closeSync(fd);
    }
  });
});
