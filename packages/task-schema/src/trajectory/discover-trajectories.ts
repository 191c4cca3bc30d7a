import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Dirs a trajectory search never enters: judge outputs, caption caches, tool dirs. */
const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  'judgment',
  'captions',
  'node_modules',
  '.git',
  '.osharm-batch',
]);

/** `batch_judgment_results_{model}_{type}_{version}.json`, upstream's batch results file. */
export const BATCH_RESULTS_FILE = /^batch_judgment_results_.+\.json$/;

/** Options of {@link discoverTrajectories}. */
export interface DiscoverOptions {
  /**
   * Also list dirs that hold only a `traj.jsonl` (a run that errored before its first step wrote
   * better_log.json). @default false
   */
  readonly runDirs?: boolean;
  /** When given, the batch results files (`batch_judgment_results_*.json`) met are added to it. */
  readonly resultsFiles?: string[];
}

/**
 * Finds every directory under `rootDir` (itself included) that holds a `better_log.json`, sorted,
 * as upstream's batch judge does — the one trajectory search of the judge and the report. Paths
 * are `rootDir` joined with the relative path, so results are keyed the way the user named the
 * root. Symlinked dirs are not followed; `judgment/`, `captions/` and tool dirs are skipped. A
 * `better_log.json` that is not a regular file (symlink, FIFO) still marks the dir: reading it is
 * refused later, where the refusal is reported.
 */
export async function discoverTrajectories(
  rootDir: string,
  { runDirs = false, resultsFiles }: DiscoverOptions = {},
): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    const marks = (name: string) =>
      entries.some(entry => entry.name === name && !entry.isDirectory());
    if (marks('better_log.json') || (runDirs && marks('traj.jsonl'))) found.push(dir);
    if (resultsFiles)
      for (const entry of entries)
        if (entry.isFile() && BATCH_RESULTS_FILE.test(entry.name))
          resultsFiles.push(join(dir, entry.name));
    for (const entry of entries)
      if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) await walk(join(dir, entry.name));
  };
  await walk(rootDir);
  return found.sort();
}
