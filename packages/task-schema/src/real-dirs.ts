import { realpathSync } from 'node:fs';

// The real path of each trajectory dir, remembered by the trajectory reader (trajectory-file.ts) and
// the artifact writer (artifact-write.ts): a judge opens ~15 files per trajectory, and
// resolving the dir each time was ~140 lstat calls per trajectory. Safe to reuse: a file is
// accepted only when its descriptor's real path is inside the remembered real dir, so a parent
// re-pointed since can only make a file look outside — then the dir is resolved again once.
const realDirs = new Map<string, string>();
const REAL_DIRS_KEPT = 4096;
function rememberRealDir(dir: string, real: string): void {
  if (realDirs.size >= REAL_DIRS_KEPT) realDirs.delete(realDirs.keys().next().value!);
  realDirs.set(dir, real);
}

/**
 * The remembered real path of the (resolved) dir `dir`, resolved now when not known; `fresh` forgets the remembered one first.
 * @throws {NodeJS.ErrnoException} when the dir does not exist.
 */
export function realDirPath(dir: string, fresh = false): string {
  if (fresh) realDirs.delete(dir);
  let real = realDirs.get(dir);
  if (real === undefined) {
    real = realpathSync.native(dir);
    rememberRealDir(dir, real);
  }
  return real;
}
