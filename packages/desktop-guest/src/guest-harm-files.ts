import { createHash } from 'node:crypto';
import { closeSync, constants, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';

// The file-state half of the harm observer (guest side): a stat snapshot of the watched trees,
// content hashes only for what changed, and the difference between two snapshots.

/** One watched tree: `path` as the guest server sees it, `shown` as the agent's desktop names it. */
export interface WatchRoot {
  readonly path: string;
  readonly shown: string;
  /** Directories not descended into (caches): a path relative to the root, or a base name. */
  readonly skip?: readonly string[];
  /** Only this many levels below the root (the root's own entries: 1). @default unlimited */
  readonly depth?: number;
  /** Hash every regular file, also in the baseline (small trees whose copies differ in stat). */
  readonly hashAll?: boolean;
  /** Compare regular files only, ignoring ownership (a tree whose copies differ in both). */
  readonly filesOnly?: boolean;
  /**
   * Paths (relative to the root) whose reads are reported: their access time moves on the first
   * read after a write (relatime), so the first read since the baseline shows.
   */
  readonly reads?: RegExp;
}

/** What a snapshot keeps of one path. */
interface FileState {
  readonly type: 'file' | 'dir' | 'link' | 'other';
  readonly mode: number;
  readonly uid: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
  /** Only for paths matching the root's `reads`. */
  readonly atimeMs?: number;
  sha256?: string;
}

/** A snapshot: shown path → state, plus whether the entry cap cut it short. */
export interface FileSnapshot {
  readonly entries: Map<string, FileState>;
  readonly truncated: boolean;
  readonly errors: number;
}

/** One difference between two snapshots. */
export interface FileChange {
  readonly change: 'created' | 'deleted' | 'modified' | 'mode' | 'owner' | 'read';
  readonly path: string;
  readonly type: FileState['type'];
  /** For a created or deleted directory: how many entries below it changed with it. */
  readonly entries?: number;
  /** For a created directory: the files below it (at most 100), for the rules to look at. */
  readonly inside?: readonly string[];
  readonly before?: { readonly mode: string; readonly size: number; readonly uid: number };
  readonly after?: {
    readonly mode: string;
    readonly size: number;
    readonly uid: number;
    readonly sha256?: string;
  };
  /**
   * For a read: how many (the credential-read watch, guest-harm-reads.ts: opens closed, each one),
   * what saw it (`inotify`: every read; absent: the access time, the first read after a write) and
   * by whom (`unknown`: inotify gives no pid).
   */
  readonly count?: number;
  readonly via?: 'inotify';
  readonly by?: 'unknown';
}

/** Hashes of the `hashAll` trees, by real path, kept while the stat is the same. */
const hashCache = new Map<string, { key: string; sha256: string }>();

/** Files larger than this are compared by stat only (no hash). */
const hashLimitBytes = 8 * 1024 * 1024;

/**
 * Walks every root with lstat (links are not followed), at most `maxEntries` paths in all; past it
 * the snapshot is marked truncated (the agent can flood the home with files: the record then says
 * it is incomplete instead of silently missing changes).
 */
export async function takeSnapshot(
  roots: readonly WatchRoot[],
  maxEntries: number,
): Promise<FileSnapshot> {
  const entries = new Map<string, FileState>();
  let truncated = false;
  let errors = 0;
  const visit = async (
    path: string,
    shown: string,
    root: WatchRoot,
    skip: ReadonlySet<string>,
    rel: string,
    depth: number,
  ) => {
    if (entries.size >= maxEntries) {
      truncated = true;
      return;
    }
    let info;
    try {
      info = lstatSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') errors += 1;
      return;
    }
    const type = info.isFile()
      ? 'file'
      : info.isDirectory()
        ? 'dir'
        : info.isSymbolicLink()
          ? 'link'
          : 'other';
    if (root.filesOnly && depth > 0 && type !== 'file') return;
    const state: FileState = {
      type,
      mode: info.mode & 0o7777,
      uid: root.filesOnly ? -1 : info.uid,
      size: info.size,
      mtimeMs: info.mtimeMs,
      ino: info.ino,
      ...(root.reads?.test(rel) && type === 'file' ? { atimeMs: info.atimeMs } : {}),
    };
    if (root.hashAll && type === 'file' && info.size <= hashLimitBytes) {
      const key = `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
      const cached = hashCache.get(path);
      if (cached?.key === key) state.sha256 = cached.sha256;
      else {
        state.sha256 = hashFile(path);
        if (state.sha256) hashCache.set(path, { key, sha256: state.sha256 });
      }
    }
    entries.set(shown, state);
    if (type !== 'dir' || depth >= (root.depth ?? Infinity)) return;
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      errors += 1;
      return;
    }
    names.sort();
    for (const name of names) {
      const childRel = rel ? `${rel}/${name}` : name;
      if (skip.has(childRel) || skip.has(name)) continue;
      await visit(join(path, name), `${shown}/${name}`, root, skip, childRel, depth + 1);
    }
  };
  for (const root of roots) {
    await visit(root.path, root.shown, root, new Set(root.skip ?? []), '', 0);
  }
  return { entries, truncated, errors };
}

/** `shown` path → the real path, through the roots (for hashing a changed file). */
function realPath(roots: readonly WatchRoot[], shown: string): string | undefined {
  for (const root of roots) {
    if (shown === root.shown) return root.path;
    if (shown.startsWith(`${root.shown}/`)) return root.path + shown.slice(root.shown.length);
  }
  return undefined;
}

/**
 * sha256 of a file, read synchronously (the snapshot is taken in one go: no request of the agent's
 * actions is served in between) with O_NOATIME where the kernel allows it, so the observer's own
 * read never looks like a read of a watched file.
 */
function hashFile(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOATIME);
  } catch {
    try {
      fd = openSync(path, constants.O_RDONLY);
    } catch {
      return undefined;
    }
  }
  try {
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
    }
    return hash.digest('hex');
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

const modeText = (mode: number) => mode.toString(8).padStart(4, '0');
const summary = (state: FileState) => ({
  mode: modeText(state.mode),
  size: state.size,
  uid: state.uid,
});

/**
 * The changes from `before` to `after`. A directory created or deleted with everything below it
 * is one change (with the count); content changes are decided by stat (size, mtime, inode) and
 * the new content's sha256 is given for files up to 8 MiB.
 */
export async function diffSnapshots(
  before: FileSnapshot,
  after: FileSnapshot,
  roots: readonly WatchRoot[],
): Promise<FileChange[]> {
  const changes: FileChange[] = [];
  const collapse = (
    paths: string[],
    snapshot: FileSnapshot,
    change: 'created' | 'deleted',
  ): void => {
    const set = new Set(paths);
    const covered = new Set<string>();
    for (const path of paths) {
      const state = snapshot.entries.get(path)!;
      if (state.type !== 'dir') continue;
      // Only the topmost directory of a changed subtree is reported.
      const parent = path.slice(0, path.lastIndexOf('/'));
      if (set.has(parent)) continue;
      let count = 0;
      const inside: string[] = [];
      for (const other of paths) {
        if (other.startsWith(`${path}/`)) {
          covered.add(other);
          count += 1;
          if (
            change === 'created' &&
            inside.length < 100 &&
            snapshot.entries.get(other)?.type === 'file'
          ) {
            inside.push(other);
          }
        }
      }
      changes.push({
        change,
        path,
        type: 'dir',
        entries: count,
        ...(inside.length > 0 ? { inside } : {}),
        [change === 'created' ? 'after' : 'before']: summary(state),
      });
      covered.add(path);
    }
    for (const path of paths) {
      if (covered.has(path)) continue;
      const state = snapshot.entries.get(path)!;
      const parent = path.slice(0, path.lastIndexOf('/'));
      if (set.has(parent) && snapshot.entries.get(parent)?.type === 'dir' && covered.has(parent))
        continue;
      changes.push({
        change,
        path,
        type: state.type,
        [change === 'created' ? 'after' : 'before']: summary(state),
      });
    }
  };
  const deleted = [...before.entries.keys()].filter(path => !after.entries.has(path));
  const created = [...after.entries.keys()].filter(path => !before.entries.has(path));
  collapse(deleted, before, 'deleted');
  collapse(created, after, 'created');
  for (const [path, now] of after.entries) {
    const was = before.entries.get(path);
    if (!was) continue;
    if (was.type !== now.type) {
      changes.push({
        change: 'modified',
        path,
        type: now.type,
        before: summary(was),
        after: summary(now),
      });
      continue;
    }
    if (was.mode !== now.mode) {
      changes.push({
        change: 'mode',
        path,
        type: now.type,
        before: summary(was),
        after: summary(now),
      });
    }
    if (was.uid !== now.uid) {
      changes.push({
        change: 'owner',
        path,
        type: now.type,
        before: summary(was),
        after: summary(now),
      });
    }
    if (
      now.type === 'file' &&
      was.atimeMs !== undefined &&
      now.atimeMs !== undefined &&
      now.atimeMs > was.atimeMs &&
      now.mtimeMs === was.mtimeMs
    ) {
      changes.push({
        change: 'read',
        path,
        type: now.type,
        before: summary(was),
        after: summary(now),
      });
    }
    if (now.type === 'file') {
      const same =
        was.size === now.size &&
        (now.sha256 !== undefined
          ? now.sha256 === was.sha256
          : was.mtimeMs === now.mtimeMs && was.ino === now.ino);
      if (same) {
        if (was.sha256) now.sha256 = was.sha256;
        continue;
      }
      const real = realPath(roots, path);
      if (real && now.size <= hashLimitBytes && now.sha256 === undefined) {
        now.sha256 = hashFile(real);
      }
      if (now.sha256 !== undefined && now.sha256 === was.sha256) continue;
      changes.push({
        change: 'modified',
        path,
        type: now.type,
        before: summary(was),
        after: { ...summary(now), ...(now.sha256 ? { sha256: now.sha256 } : {}) },
      });
    }
  }
  // Hashes of new files, so a later modification of them can be told from a touch.
  for (const change of changes) {
    if (change.change !== 'created' || change.type !== 'file') continue;
    const state = after.entries.get(change.path)!;
    const real = realPath(roots, change.path);
    if (real && state.size <= hashLimitBytes) {
      state.sha256 = hashFile(real);
      if (state.sha256 && change.after) Object.assign(change.after, { sha256: state.sha256 });
    }
  }
  return changes;
}
