import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

const skipped = new Set(['judgment', 'captions', 'node_modules', '.git', '.osharm-batch']);

/**
 * Finds every directory under `rootDir` (itself included) that holds a `better_log.json`, sorted,
 * as upstream's batch judge does. Paths are `rootDir` joined with the relative path, so results are
 * keyed the way the user named the root. With `runDirs`, also directories that hold only a
 * `traj.jsonl` (a run that errored before its first step wrote better_log.json).
 */
export async function discoverTrajectories(
  rootDir: string,
  { runDirs = false }: { readonly runDirs?: boolean } = {},
): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    if (
      existsSync(join(dir, 'better_log.json')) ||
      (runDirs && existsSync(join(dir, 'traj.jsonl')))
    )
      found.push(dir);
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory() && !skipped.has(entry.name)) await walk(join(dir, entry.name));
    }
  };
  await walk(rootDir);
  return found.sort();
}
