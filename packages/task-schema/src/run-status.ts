import { openTrajectoryFile, UnsafeFileError } from './trajectory-file';
import { parseResultTxt } from './trajectory-schema';

/**
 * What state a run dir is in, the one definition every osharm tool uses (the CLI's resume and
 * summary, the judge, metrics, the report):
 *
 * - `finished`: `result.txt` holds the evaluator score (written last: the run completed).
 * - `errored`: no usable `result.txt`, and `traj.jsonl` ends with an `{"Error": …}` line (upstream's
 *   exception path: a failed model call, a desktop failure, the time limit). `reason` is that line.
 * - `unfinished`: neither: the run is still going, was killed, or the dir was copied without its
 *   `result.txt` (as some published upstream traces are).
 *
 * An errored or unfinished run has no verdict: it is never judged or counted as safe, unsafe or
 * successful, and `osharm run` runs it again on resume.
 */
export type RunStatus =
  | { readonly state: 'finished'; readonly score: number }
  | { readonly state: 'errored'; readonly reason: string }
  | { readonly state: 'unfinished'; readonly reason: string };

/** The `reason` of an unfinished run. */
export const UNFINISHED_REASON = 'no result.txt and no error line: the run is unfinished';

/** Bytes of `result.txt` and of the end of `traj.jsonl` read (a crafted file may be huge). */
const RESULT_MAX_BYTES = 256;
const TRAJ_TAIL_BYTES = 64 * 1024;
/** Longest reason kept from an error line. */
const REASON_MAX_CHARS = 2000;

/**
 * Reads at most `max` bytes of a run dir's file (the start, or with `tail` the end), opened by
 * {@link openTrajectoryFile} (inside the dir, no symlink, no FIFO); undefined when absent or refused.
 * A large file is not refused: only its bounded part is read.
 */
async function readBounded(
  dir: string,
  name: string,
  max: number,
  { tail = false } = {},
): Promise<string | undefined> {
  const opened = await openTrajectoryFile(name, {
    within: dir,
    maxBytes: Number.MAX_SAFE_INTEGER,
  }).catch((error: unknown) => {
    if (UnsafeFileError.isInstance(error)) return undefined;
    throw error;
  });
  if (!opened) return undefined;
  try {
    const length = Math.min(max, opened.size);
    const buffer = Buffer.alloc(length);
    await opened.handle.read(buffer, 0, length, tail ? opened.size - length : 0);
    return buffer.toString('utf8');
  } finally {
    await opened.handle.close();
  }
}

/** The reason of the last non-blank line of `traj.jsonl` text when it is an `{"Error": …}` line. */
export function lastErrorLine(trajText: string): string | undefined {
  const lines = trajText.split('\n').filter(line => line.trim() !== '');
  const last = lines.at(-1);
  if (last === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(last);
    const error =
      value !== null && typeof value === 'object'
        ? (value as { Error?: unknown }).Error
        : undefined;
    return typeof error === 'string' ? error.slice(0, REASON_MAX_CHARS) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The {@link RunStatus} of a run dir, from its `result.txt` and the end of its `traj.jsonl`
 * (bounded reads; symlinks, FIFOs and other non-regular files count as absent). A `result.txt`
 * that is not a number makes the run `errored` with that reason.
 */
export async function readRunStatus(dir: string): Promise<RunStatus> {
  const result = await readBounded(dir, 'result.txt', RESULT_MAX_BYTES);
  if (result !== undefined) {
    try {
      return { state: 'finished', score: parseResultTxt(result, { file: 'result.txt' }) };
    } catch {
      return {
        state: 'errored',
        reason: `result.txt does not hold a score: ${JSON.stringify(result.trim().slice(0, 40))}`,
      };
    }
  }
  const traj = await readBounded(dir, 'traj.jsonl', TRAJ_TAIL_BYTES, { tail: true });
  const reason = traj === undefined ? undefined : lastErrorLine(traj);
  return reason === undefined
    ? { state: 'unfinished', reason: UNFINISHED_REASON }
    : { state: 'errored', reason };
}
