import { constants, createWriteStream } from 'node:fs';
import { lstat, open, readdir, utimes, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

/** The regular files of a run dir (relative paths, sorted) and the entries refused. */
export interface RunDirListing {
  readonly files: readonly string[];
  /** Symlinks, FIFOs, sockets, devices: never followed, read or copied (relative paths). */
  readonly refused: readonly string[];
}

/**
 * Lists a run dir without following symlinks: regular files are kept, sub-directories walked
 * (judgment/, captions/ come along), everything else refused.
 */
export async function listRunDir(dir: string): Promise<RunDirListing> {
  const files: string[] = [];
  const refused: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    const entries = await readdir(join(dir, relative), { withFileTypes: true });
    for (const entry of entries) {
      const path = relative === '' ? entry.name : join(relative, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) files.push(path);
      else refused.push(path);
    }
  };
  await walk('');
  return { files: files.sort(), refused: refused.sort() };
}

/** Opens a file for reading, refusing a symlink (O_NOFOLLOW) or anything but a regular file. */
async function openRegular(path: string): Promise<FileHandle> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw new Error(`${path}: not a regular file`);
  }
  return handle;
}

const CHUNK = 1024 * 1024;

/** True when two regular files hold the same bytes (read in chunks: recordings are large). */
async function sameBytes(a: string, b: string): Promise<boolean> {
  const [left, right] = [await openRegular(a), await openRegular(b)];
  try {
    const [sizeA, sizeB] = [(await left.stat()).size, (await right.stat()).size];
    if (sizeA !== sizeB) return false;
    const bufferA = Buffer.alloc(CHUNK);
    const bufferB = Buffer.alloc(CHUNK);
    for (let position = 0; position < sizeA; position += CHUNK) {
      const { bytesRead } = await left.read(bufferA, 0, CHUNK, position);
      const { bytesRead: bytesReadB } = await right.read(bufferB, 0, CHUNK, position);
      if (bytesRead === 0 || bytesRead !== bytesReadB) return false;
      if (!bufferA.subarray(0, bytesRead).equals(bufferB.subarray(0, bytesRead))) return false;
    }
    return true;
  } finally {
    await left.close();
    await right.close();
  }
}

/** True when two run dirs hold the same regular files with the same bytes. */
export async function sameRunDir(
  a: { readonly dir: string; readonly listing: RunDirListing },
  b: { readonly dir: string; readonly listing: RunDirListing },
): Promise<boolean> {
  const filesA = a.listing.files;
  const filesB = b.listing.files;
  if (filesA.length !== filesB.length || filesA.some((file, i) => file !== filesB[i])) return false;
  for (const file of filesA)
    if (!(await sameBytes(join(a.dir, file), join(b.dir, file)))) return false;
  return true;
}

/**
 * Copies the listed regular files of `from` into the fresh directory `to` (which the caller
 * created inside the merge target): each source is opened without following symlinks, each target
 * created exclusively (`wx`), so nothing outside `to` is read through a link or written. Access
 * and modification times are kept.
 */
export async function copyRunFiles(
  from: string,
  files: readonly string[],
  to: string,
  makeDir: (relativeDir: string) => Promise<string>,
): Promise<void> {
  for (const file of files) {
    const slash = file.lastIndexOf('/');
    const dir = slash < 0 ? to : await makeDir(file.slice(0, slash));
    const source = await openRegular(join(from, file));
    try {
      const target = join(dir, file.slice(slash + 1));
      await pipeline(
        source.createReadStream({ autoClose: false }),
        createWriteStream(target, { flags: 'wx' }),
      );
      // The copy keeps its times: `--prefer newest` on a later merge compares real run ends.
      const { atime, mtime } = await source.stat();
      await utimes(target, atime, mtime);
    } finally {
      await source.close();
    }
  }
}

/** The modification time of a run's `result.txt` (its end), 0 when it has none. */
export async function finishedAt(dir: string): Promise<number> {
  try {
    const info = await lstat(join(dir, 'result.txt'));
    return info.isFile() ? info.mtimeMs : 0;
  } catch {
    return 0;
  }
}
