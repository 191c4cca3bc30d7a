import { readTrajectoryRegion, UnsafeFileError } from './trajectory-file';
import { parseResultTxt } from './trajectory-schema';

/**
 * What state a run dir is in, the one definition every osharm tool uses (the CLI's resume and
 * summary, the judge, metrics, the report):
 *
 * - `finished`: `result.txt` holds the evaluator score (written last: the run completed).
 * - `errored`: no usable `result.txt`, and `traj.jsonl` ends with an `{"Error": …}` line (upstream's
 *   exception path: a failed model call, a desktop failure, the time limit). `reason` is that line.
 * - `environment_destroyed_by_agent`: no `result.txt`, and `traj.jsonl` ends with an error line that
 *   also holds `"environment_destroyed_by_agent": {"step": N}` (osharm's key beside upstream's
 *   `Error`): after the agent's actions of step N the desktop stopped answering. Its trajectory up
 *   to there is judged and counts in every rate (a category of its own, never excluded), and
 *   resume keeps it: an agent must not make its run vanish from the numbers by breaking its desktop.
 * - `unfinished`: neither: the run is still going, was killed, or the dir was copied without its
 *   `result.txt` (as some published upstream traces are).
 *
 * An errored or unfinished run has no verdict: it is never judged or counted as safe, unsafe or
 * successful, and `osharm run` runs it again on resume. Errored are only failures the agent did
 * not cause (a model call, the time limit, a harness or desktop fault before the agent acted).
 */
export type RunStatus =
  | { readonly state: 'finished'; readonly score: number }
  | { readonly state: 'errored'; readonly reason: string }
  | {
      readonly state: 'environment_destroyed_by_agent';
      /** The agent step (1-based) after whose actions the desktop stopped answering. */
      readonly step: number;
      readonly reason: string;
    }
  | { readonly state: 'unfinished'; readonly reason: string };

/** The key of traj.jsonl's error line that marks {@link RunStatus} `environment_destroyed_by_agent`. */
export const DESTROYED_BY_AGENT_KEY = 'environment_destroyed_by_agent';

/** True for the states whose trajectory is judged and counted: finished, destroyed by the agent. */
export function isCountedRun(status: RunStatus): boolean {
  return status.state === 'finished' || status.state === 'environment_destroyed_by_agent';
}

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
  try {
    return readTrajectoryRegion(
      name,
      { within: dir, maxBytes: Number.MAX_SAFE_INTEGER },
      { length: max, tail },
    ).text;
  } catch (error) {
    if (UnsafeFileError.isInstance(error)) return undefined;
    throw error;
  }
}

/** The last non-blank line of `traj.jsonl` text when it is an `{"Error": …}` line. */
function lastError(trajText: string): { reason: string; destroyedAtStep?: number } | undefined {
  const lines = trajText.split('\n').filter(line => line.trim() !== '');
  const last = lines.at(-1);
  if (last === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(last);
    if (value === null || typeof value !== 'object') return undefined;
    const error = (value as { Error?: unknown }).Error;
    if (typeof error !== 'string') return undefined;
    const marker = (value as Record<string, unknown>)[DESTROYED_BY_AGENT_KEY];
    const step =
      marker !== null && typeof marker === 'object'
        ? (marker as { step?: unknown }).step
        : undefined;
    return {
      reason: error.slice(0, REASON_MAX_CHARS),
      ...(typeof step === 'number' && Number.isSafeInteger(step) && step >= 1
        ? { destroyedAtStep: step }
        : {}),
    };
  } catch {
    return undefined;
  }
}

/** The reason of the last non-blank line of `traj.jsonl` text when it is an `{"Error": …}` line. */
export function lastErrorLine(trajText: string): string | undefined {
  return lastError(trajText)?.reason;
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
  const error = traj === undefined ? undefined : lastError(traj);
  if (error === undefined) return { state: 'unfinished', reason: UNFINISHED_REASON };
  return error.destroyedAtStep !== undefined
    ? { state: 'environment_destroyed_by_agent', step: error.destroyedAtStep, reason: error.reason }
    : { state: 'errored', reason: error.reason };
}
