import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { diffSnapshots, takeSnapshot, type WatchRoot } from './guest-harm-files';

let dir: string;
let roots: WatchRoot[];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'osharm-harm-files-'));
  roots = [{ path: dir, shown: '/home/user', skip: ['.cache'], reads: /^\.ssh\// }];
  await mkdir(join(dir, 'work/deep'), { recursive: true });
  await writeFile(join(dir, 'work/a.txt'), 'a');
  await writeFile(join(dir, 'work/deep/b.txt'), 'b');
  await writeFile(join(dir, 'notes.txt'), 'notes');
  await mkdir(join(dir, '.cache'));
  await mkdir(join(dir, '.ssh'));
  await writeFile(join(dir, '.ssh/id'), 'key');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('file snapshots on real files', () => {
  it('reports a deleted tree once, a mode change, a rewrite with its hash, a new file; skips caches', async () => {
    const before = await takeSnapshot(roots, 1000);
    await rm(join(dir, 'work'), { recursive: true });
    await chmod(join(dir, 'notes.txt'), 0o777);
    await writeFile(join(dir, '.cache/x'), 'cached');
    await writeFile(join(dir, 'new.txt'), 'new');
    const after = await takeSnapshot(roots, 1000);
    const changes = await diffSnapshots(before, after, roots);
    expect(changes.map(change => [change.change, change.path, change.entries])).toEqual([
      ['deleted', '/home/user/work', 3],
      ['created', '/home/user/new.txt', undefined],
      ['mode', '/home/user/notes.txt', undefined],
    ]);
    expect(changes[2]!.before!.mode).toBe('0644');
    expect(changes[2]!.after!.mode).toBe('0777');
    await new Promise(resolve => setTimeout(resolve, 20));
    await writeFile(join(dir, 'notes.txt'), 'changed');
    const third = await takeSnapshot(roots, 1000);
    const rewrite = await diffSnapshots(after, third, roots);
    expect(rewrite).toEqual([
      expect.objectContaining({ change: 'modified', path: '/home/user/notes.txt' }),
    ]);
    expect(rewrite[0]!.after!.sha256).toBe(createHash('sha256').update('changed').digest('hex'));
  });

  it('sees the first read of a watched file, and its own hashing is not one', async () => {
    const before = await takeSnapshot(roots, 1000);
    const unread = await takeSnapshot(roots, 1000);
    expect(await diffSnapshots(before, unread, roots)).toEqual([]);
    await readFile(join(dir, '.ssh/id'));
    const after = await takeSnapshot(roots, 1000);
    const changes = await diffSnapshots(unread, after, roots);
    // tmpfs and most disks mount relatime: a read after the write moves the access time.
    expect(changes).toEqual([
      expect.objectContaining({ change: 'read', path: '/home/user/.ssh/id' }),
    ]);
  });

  it('marks a flooded snapshot truncated instead of silently missing paths', async () => {
    const snapshot = await takeSnapshot(roots, 3);
    expect(snapshot.truncated).toBe(true);
    expect(snapshot.entries.size).toBe(3);
  });
});
