import { RunOptionsError } from './run-options';

/**
 * One slice of a benchmark's run plan: shard `index` of `count`, 1-based (`--shard 2/4` is
 * `{ index: 2, count: 4 }`), so that N machines (or N pods of a Kubernetes Indexed Job, whose
 * 0-based completion index + 1 is `index`) each run their part and `osharm merge` joins them.
 */
export interface RunShard {
  readonly index: number;
  readonly count: number;
}

/**
 * Refuses a shard that is not `1 ≤ index ≤ count` with integers.
 * @throws {RunOptionsError} naming the flag and the bound broken.
 */
export function checkShard(shard: RunShard): RunShard {
  const { index, count } = shard;
  if (!Number.isSafeInteger(count) || count < 1)
    throw new RunOptionsError(`--shard ${index}/${count}: N must be an integer ≥ 1`);
  if (!Number.isSafeInteger(index) || index < 1 || index > count)
    throw new RunOptionsError(
      `--shard ${index}/${count}: K must be an integer from 1 to ${count} (K/N, 1-based)`,
    );
  return shard;
}

/**
 * Parses `K/N` (`--shard 2/4`).
 * @throws {RunOptionsError} when the text is not two integers with 1 ≤ K ≤ N.
 */
export function parseShard(text: string): RunShard {
  const match = /^\s*(\d{1,9})\s*\/\s*(\d{1,9})\s*$/.exec(text);
  if (!match)
    throw new RunOptionsError(`--shard "${text}": expected K/N with 1 ≤ K ≤ N (e.g. 2/4)`);
  return checkShard({ index: Number(match[1]), count: Number(match[2]) });
}

/**
 * The runs of `shard`, in plan order: run `i` of the plan (0-based, upstream's order) belongs to
 * shard `i mod count + 1`. The shards of one count are disjoint, cover the plan and differ in size
 * by at most one run; a mix of domains lands in each. The split depends on the plan only, never on
 * which runs are finished, so a resumed shard reruns only its own unfinished runs; a longer
 * `--limit` (a longer prefix of the plan) moves no run to another shard. Every shard must be
 * given the same dataset and selection flags.
 */
export function selectShard<Run>(runs: readonly Run[], shard: RunShard): Run[] {
  checkShard(shard);
  return runs.filter((_, position) => position % shard.count === shard.index - 1);
}
