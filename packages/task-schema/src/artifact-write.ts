import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { redactSecrets } from './secrets';
import { UnsafeFileError } from './trajectory-file';

/**
 * Makes sure every directory of `relativeDir` under `root` is a real directory inside `root`
 * (creating missing ones), never a symlink or a file; returns the absolute dir.
 * @throws {UnsafeFileError} when a component is a symlink or not a directory, or the path climbs out.
 */
export async function ensureDirInside(root: string, relativeDir: string): Promise<string> {
  const base = resolve(root);
  const rel = normalize(relativeDir);
  if (isAbsolute(rel) || rel === '..' || rel.startsWith(`..${sep}`) || rel.includes('\0'))
    throw new UnsafeFileError({
      file: join(base, relativeDir),
      reason: 'outside',
      message: 'names a path outside the trajectory dir',
    });
  let current = base;
  for (const part of rel.split(sep).filter(part => part !== '' && part !== '.')) {
    current = join(current, part);
    let info;
    try {
      info = lstatSync(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      try {
        mkdirSync(current);
      } catch (made) {
        if ((made as NodeJS.ErrnoException).code !== 'EEXIST') throw made;
      }
      info = lstatSync(current);
    }
    if (info.isSymbolicLink())
      throw new UnsafeFileError({
        file: current,
        reason: 'symlink',
        message: 'is a symlink: refusing to write through it',
      });
    if (!info.isDirectory())
      throw new UnsafeFileError({
        file: current,
        reason: 'not-regular',
        message: 'is not a directory: refusing to write there',
      });
  }
  // A component swapped for a symlink meanwhile would show here.
  // (synchronous: local metadata, cheaper than a thread-pool round trip; see trajectory-file.ts)
  const real = realpathSync.native(current);
  const realBase = realpathSync.native(base);
  if (real !== join(realBase, relative(base, current)))
    throw new UnsafeFileError({
      file: current,
      reason: 'outside',
      message: `resolves to ${real}, outside the trajectory dir`,
    });
  return current;
}

/**
 * Writes a text artifact (judgment.json, messages.json, a caption cache, a batch results file) at
 * `relativePath` under `root`: API keys are redacted ({@link redactSecrets}), every directory on
 * the way must be a real directory inside `root` (a symlinked `judgment/` or `captions/` dir is
 * refused, never written through), and the file is written atomically (temp file + rename, which
 * replaces a symlink at the target rather than following it). Returns the absolute path.
 * @throws {UnsafeFileError} when a directory on the way is a symlink, a file, or outside `root`.
 */
export async function writeArtifact(
  root: string,
  relativePath: string,
  text: string,
): Promise<string> {
  const rel = normalize(relativePath);
  const parts = rel.split(sep);
  const name = parts.pop()!;
  if (name === '' || name === '.' || name === '..')
    throw new UnsafeFileError({
      file: join(resolve(root), relativePath),
      reason: 'outside',
      message: 'is not a file name',
    });
  const dir = await ensureDirInside(root, parts.join(sep) || '.');
  const path = join(dir, name);
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  // The write is synchronous (a small local file; see trajectory-file.ts on the thread pool's cost);
  // the rename is not: replacing a file can wait on the disk (ext4 flushes the new data first).
  try {
    writeFileSync(temporary, redactSecrets(text), { flag: 'wx' });
    await rename(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return path;
}
