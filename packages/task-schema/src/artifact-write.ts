import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { rename } from 'node:fs/promises';
import { isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { redactSecrets } from './secrets';
import { realDirPath } from './real-dirs';
import { UnsafeFileError } from './trajectory-file';

/**
 * Makes sure every directory of `relativeDir` under `root` is a real directory inside `root`
 * (creating missing ones), never a symlink or a file; returns the absolute dir.
 * @throws {UnsafeFileError} when a component is a symlink or not a directory, or the path climbs out.
 */
export async function ensureDirInside(root: string, relativeDir: string): Promise<string> {
  const base = resolve(root);
  const current = walkDirInside(base, relativeDir);
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

/** ensureDirInside's walk: each component lstat'ed (created when missing), no final resolve. */
function walkDirInside(base: string, relativeDir: string): string {
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
  const base = resolve(root);
  const relativeDir = parts.join(sep) || '.';
  const content = redactSecrets(text);
  // A remembered dir or real root is tried first; when the temp file's real path shows it stale
  // (a dir re-pointed since), everything is checked once more from scratch.
  const key = `${base}\0${relativeDir}`;
  for (const trusting of [true, false]) {
    if (!trusting) verifiedDirs.delete(key);
    const dir = verifiedDirs.has(key) ? join(base, relativeDir) : walkDirInside(base, relativeDir);
    const realBase = realDirPath(base, !trusting);
    const path = join(dir, name);
    let temporary: string | undefined;
    try {
      temporary = writeTemporary(path, content, join(realBase, relative(base, path)));
    } catch (error) {
      // A remembered dir removed since: check (and create) it again.
      if (trusting && (error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    if (temporary === undefined) {
      if (trusting) continue;
      throw new UnsafeFileError({
        file: dir,
        reason: 'outside',
        message: 'resolves outside the trajectory dir (a directory on the way was replaced)',
      });
    }
    try {
      // Through the pool: a rename over an existing file can wait on the disk (ext4 flushes first).
      await rename(temporary, path);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
    if (verifiedDirs.size >= VERIFIED_DIRS_KEPT)
      verifiedDirs.delete(verifiedDirs.values().next().value!);
    verifiedDirs.add(key);
    return path;
  }
  throw new Error('unreachable');
}

// The dirs writeArtifact found, component by component, real directories inside their root, in this
// process (a judge writes 2-3 artifacts per trajectory, dirs ~10 components deep: resolving them each
// time was ~40 readlink calls per trajectory); the root's real path is remembered beside the
// trajectory reader's (realDirPath). Trusting them is safe: each temp file's real path is read back
// from its descriptor and must be where the checked dirs put it; if not, it is removed and
// everything is checked again.
const verifiedDirs = new Set<string>();
const VERIFIED_DIRS_KEPT = 4096;

const CREATE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Creates `path`'s temp file (`O_EXCL`, never through a symlink) and writes `text` synchronously
 * (a small local file: cheaper than a thread-pool round trip; see trajectory-file.ts). The temp
 * file's real path, read from its descriptor, must be `expectedReal`'s temp file: if not, it is
 * removed and `undefined` returned.
 */
function writeTemporary(path: string, text: string, expectedReal: string): string | undefined {
  const suffix = `.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const temporary = `${path}${suffix}`;
  const fd = openSync(temporary, CREATE_FLAGS, 0o644);
  try {
    let real: string;
    try {
      real = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      real = realpathSync.native(temporary); // no /proc
    }
    if (real !== `${expectedReal}${suffix}`) {
      closeSync(fd);
      rmSync(temporary, { force: true });
      return undefined;
    }
    const bytes = Buffer.from(text, 'utf8');
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    closeSync(fd);
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // closed already
    }
    rmSync(temporary, { force: true });
    throw error;
  }
  return temporary;
}
