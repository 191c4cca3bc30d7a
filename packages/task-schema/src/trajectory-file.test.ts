import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureDirInside, writeArtifact } from './artifact-write';
import {
  checkTrajectoryFile,
  readTrajectoryFile,
  UnsafeFileError,
  type UnsafeFileReason,
} from './trajectory-file';

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from('rest of a png'),
]);

let base: string;
let dir: string;
let outside: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'osharm-trajfile-'));
  dir = join(base, 'traj');
  await mkdir(dir);
  // A host file the trajectory must never reach.
  outside = join(base, 'secret.png');
  await writeFile(outside, Buffer.concat([PNG, Buffer.from('HOST SECRET')]));
});
afterEach(() => rm(base, { recursive: true, force: true }));

const reasonOf = async (name: string, maxBytes = 1 << 20, kind: 'image' | 'any' = 'image') => {
  try {
    await readTrajectoryFile(name, { within: dir, maxBytes, kind });
    return 'read';
  } catch (error) {
    if (!UnsafeFileError.isInstance(error)) throw error;
    expect(error.message).toContain(join(dir));
    return error.reason;
  }
};

describe('readTrajectoryFile', () => {
  it('reads a regular image inside the dir', async () => {
    await writeFile(join(dir, 'step_0.png'), PNG);
    expect(
      await readTrajectoryFile('step_0.png', { within: dir, maxBytes: 1000, kind: 'image' }),
    ).toEqual(PNG);
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'sub', 'a.png'), PNG);
    expect(await reasonOf('sub/a.png')).toBe('read');
  });

  it('refuses names that climb out, absolute paths and symlinks out', async () => {
    const cases: [string, UnsafeFileReason][] = [
      ['../secret.png', 'outside'],
      [outside, 'outside'],
      ['a/../../secret.png', 'outside'],
      ['.', 'outside'],
    ];
    for (const [name, reason] of cases) expect(await reasonOf(name), name).toBe(reason);
    await symlink(outside, join(dir, 'step_1.png'));
    expect(await reasonOf('step_1.png')).toBe('symlink');
    // a symlinked parent dir: the final component is a plain file, but it lives outside
    await symlink(base, join(dir, 'up'));
    expect(await reasonOf('up/secret.png')).toBe('outside');
    // a sibling whose name extends the dir's (`traj` → `traj-evil`) is outside all the same
    await mkdir(`${dir}-evil`);
    await writeFile(join(`${dir}-evil`, 'x.png'), PNG);
    await symlink(`${dir}-evil`, join(dir, 'sibling'));
    expect(await reasonOf('sibling/x.png')).toBe('outside');
    // a symlink to a file inside is refused too (never followed)
    await writeFile(join(dir, 'real.png'), PNG);
    await symlink(join(dir, 'real.png'), join(dir, 'alias.png'));
    expect(await reasonOf('alias.png')).toBe('symlink');
  });

  it('refuses a FIFO without blocking, devices and directories', async () => {
    const fifo = join(dir, 'step_2.png');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(await reasonOf('step_2.png')).toBe('not-regular');
    await mkdir(join(dir, 'd.png'));
    expect(await reasonOf('d.png')).toBe('not-regular');
    expect(await reasonOf('/dev/zero')).toBe('outside');
  });

  it('refuses files over the cap and non-images by content', async () => {
    await writeFile(join(dir, 'big.png'), Buffer.concat([PNG, Buffer.alloc(5000)]));
    expect(await reasonOf('big.png', 1000)).toBe('too-large');
    expect(await reasonOf('big.png', 10_000)).toBe('read');
    await writeFile(join(dir, 'shadow.png'), 'root:$6$hash:19000:0:99999:7:::\n');
    expect(await reasonOf('shadow.png')).toBe('not-image');
    expect(await reasonOf('shadow.png', 1000, 'any')).toBe('read');
    expect(await reasonOf('nope.png')).toBe('missing');
  });

  it('the remembered real path of the dir never widens what is read: re-pointed dirs are resolved again', async () => {
    // The trajectory dir reached through a symlink, read once (its real path is remembered) ...
    const first = join(base, 'first');
    const second = join(base, 'second');
    for (const real of [first, second]) {
      await mkdir(real);
      await writeFile(join(real, 'step_0.png'), Buffer.concat([PNG, Buffer.from(real)]));
    }
    const link = join(base, 'link');
    await symlink(first, link);
    const read = (name: string) =>
      readTrajectoryFile(name, { within: link, maxBytes: 1000, kind: 'image' }).then(
        bytes => bytes.toString('latin1'),
        (error: unknown) => (UnsafeFileError.isInstance(error) ? error.reason : 'thrown'),
      );
    expect(await read('step_0.png')).toContain(first);
    // ... then re-pointed: the file of the new target is read (resolved again), not refused ...
    await rm(link);
    await symlink(second, link);
    expect(await read('step_0.png')).toContain(second);
    // ... and a parent symlink inside still cannot lead outside, remembered or not.
    await symlink(base, join(second, 'up'));
    expect(await read('up/secret.png')).toBe('outside');
    expect(await read('up/first/step_0.png')).toBe('outside');
  });

  it('checkTrajectoryFile reports instead of throwing', async () => {
    await symlink('/etc/passwd', join(dir, 'x.png'));
    const check = await checkTrajectoryFile('x.png', {
      within: dir,
      maxBytes: 1000,
      kind: 'image',
    });
    expect(check).toMatchObject({ ok: false, reason: 'symlink' });
  });
});

describe('writeArtifact', () => {
  it('writes atomically under real dirs, creating them', async () => {
    const path = await writeArtifact(dir, 'judgment/gpt-4.1/aer/v3/judgment.json', '{"a":1}\n');
    expect(path).toBe(join(dir, 'judgment/gpt-4.1/aer/v3/judgment.json'));
    expect(await readFile(path, 'utf8')).toBe('{"a":1}\n');
  });

  it('refuses a symlinked judgment/ or captions/ dir and leaves the target untouched', async () => {
    const elsewhere = join(base, 'elsewhere');
    await mkdir(elsewhere);
    await symlink(elsewhere, join(dir, 'judgment'));
    await expect(writeArtifact(dir, 'judgment/m/aer/v3/judgment.json', '{}')).rejects.toMatchObject(
      {
        reason: 'symlink',
      },
    );
    await mkdir(join(dir, 'captions'));
    await symlink(elsewhere, join(dir, 'captions', 'gpt-4o'));
    await expect(writeArtifact(dir, 'captions/gpt-4o/x.json', '{}')).rejects.toMatchObject({
      reason: 'symlink',
    });
    expect(spawnSync('find', [elsewhere, '-mindepth', '1']).stdout.toString()).toBe('');
    await expect(writeArtifact(dir, '../escape.json', '{}')).rejects.toMatchObject({
      reason: 'outside',
    });
    await writeFile(join(dir, 'file'), '');
    await expect(ensureDirInside(dir, 'file/x')).rejects.toMatchObject({ reason: 'not-regular' });
  });

  it('a dir written into before and re-pointed since is refused, not written through', async () => {
    await writeArtifact(dir, 'judgment/m/aer/v3/judgment.json', '{}');
    const elsewhere = join(base, 'elsewhere');
    await mkdir(join(elsewhere, 'm', 'aer', 'v3'), { recursive: true });
    await rm(join(dir, 'judgment'), { recursive: true });
    await symlink(elsewhere, join(dir, 'judgment'));
    await expect(writeArtifact(dir, 'judgment/m/aer/v3/messages.json', '[]')).rejects.toMatchObject(
      { reason: 'symlink' },
    );
    expect(spawnSync('find', [elsewhere, '-type', 'f']).stdout.toString()).toBe('');
    // and a remembered dir removed since is made again
    await rm(join(dir, 'judgment'));
    await writeArtifact(dir, 'judgment/m/aer/v3/messages.json', '[]');
    expect(await readFile(join(dir, 'judgment/m/aer/v3/messages.json'), 'utf8')).toBe('[]');
  });

  it('replaces a symlink at the file name instead of writing through it', async () => {
    await symlink(outside, join(dir, 'messages.json'));
    await writeArtifact(dir, 'messages.json', '[]\n');
    expect((await readFile(outside)).subarray(0, 8)).toEqual(PNG.subarray(0, 8));
    expect(await readFile(join(dir, 'messages.json'), 'utf8')).toBe('[]\n');
  });

  it('redacts API keys in what it writes', async () => {
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz123456';
    const path = await writeArtifact(
      dir,
      'errors.json',
      JSON.stringify({ error: `401: bad key ${key}` }),
    );
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain(key);
    expect(JSON.parse(text)).toEqual({ error: '401: bad key [REDACTED]' });
  });
});
