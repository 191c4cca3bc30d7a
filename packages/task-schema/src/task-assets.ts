import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';

/** Where a task's `local_path` asset was found, or why it cannot be used. */
export type TaskAssetResolution =
  | { readonly ok: true; readonly path: string; readonly root: string }
  | { readonly ok: false; readonly reason: 'unsafe' | 'missing'; readonly message: string };

/**
 * The directories a `local_path` (upload_file, injection `params.file_path_local`) may resolve
 * against, in order: the dataset base dir itself (osharm layout: `evaluation_examples/assets/…`),
 * then its parent (upstream layout: `assets/…` at the repository root beside
 * `evaluation_examples/`).
 */
export function taskAssetRoots(baseDir: string): string[] {
  const base = resolve(baseDir);
  return [base, dirname(base)];
}

/**
 * Resolves a task asset path. Absolute paths and paths that climb out of the root (`..`) are
 * refused: task files must not make the harness upload arbitrary host files.
 */
export function resolveTaskAsset(
  localPath: string,
  { baseDir }: { baseDir: string },
): TaskAssetResolution {
  const normalized = normalize(localPath);
  if (isAbsolute(localPath) || /^[a-zA-Z]:[\\/]/.test(localPath)) {
    return {
      ok: false,
      reason: 'unsafe',
      message: `"${localPath}" is an absolute path; asset paths must be relative to the dataset (e.g. "assets/file.docx")`,
    };
  }
  if (
    normalized === '..' ||
    normalized.startsWith(`..${sep}`) ||
    localPath.split(/[\\/]/).includes('..')
  ) {
    return {
      ok: false,
      reason: 'unsafe',
      message: `"${localPath}" contains "..": asset paths must stay inside the dataset's asset root`,
    };
  }
  const roots = taskAssetRoots(baseDir);
  for (const root of roots) {
    const candidate = join(root, normalized);
    if (!relative(root, candidate).startsWith('..') && existsSync(candidate)) {
      return { ok: true, path: candidate, root };
    }
  }
  return {
    ok: false,
    reason: 'missing',
    message: `asset "${localPath}" not found under ${roots.map(root => `"${root}"`).join(' or ')}`,
  };
}
