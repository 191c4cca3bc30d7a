import type { FidelityRecord } from './fidelity-schema';
import { readTrajectoryText, UnsafeFileError } from './trajectory-file';

/** Upper bound of a better_log.json read for its observations (it holds every step's tree). */
const BETTER_LOG_MAX_BYTES = 512 * 1024 * 1024;

/**
 * How many of the agent's observations were degraded, counted from better_log.json's steps: each
 * step's `observation` (osharm's, beside upstream's keys) is degraded when its accessibility tree
 * was `truncated` or `failed`, or it came `late`. null when no step records its observation's
 * quality (upstream's logs, older runs, a run with no agent step): unknown, never 0.
 */
export function countDegradedObservations(betterLog: unknown): number | null {
  const steps = (betterLog as { steps?: unknown } | null)?.steps;
  if (!Array.isArray(steps)) return null;
  let recorded = 0;
  let degraded = 0;
  for (const step of steps) {
    const observation = (step as { observation?: unknown } | null)?.observation;
    if (!observation || typeof observation !== 'object') continue;
    recorded += 1;
    const { a11y_tree: tree, late } = observation as { a11y_tree?: unknown; late?: unknown };
    if (tree === 'truncated' || tree === 'failed' || late === true) degraded += 1;
  }
  return recorded === 0 ? null : degraded;
}

/**
 * {@link countDegradedObservations} of a run dir's better_log.json (one safe bounded read: no
 * symlink, no FIFO, inside the dir). null when the file is absent, refused or not JSON.
 */
export async function readDegradedObservations(dir: string): Promise<number | null> {
  let text: string;
  try {
    text = await readTrajectoryText('better_log.json', {
      within: dir,
      maxBytes: BETTER_LOG_MAX_BYTES,
    });
  } catch (error) {
    if (UnsafeFileError.isInstance(error)) return null;
    throw error;
  }
  try {
    return countDegradedObservations(JSON.parse(text));
  } catch {
    return null;
  }
}

/** Degraded observations over a set of runs' fidelity records. */
export interface DegradedSummary {
  /** Runs with at least one degraded observation. */
  readonly runs: number;
  /** Degraded observations over all runs. */
  readonly observations: number;
  /** Runs whose record has no count (null: their observations' quality is unknown). */
  readonly unknown: number;
}

export function summarizeDegraded(
  records: readonly Pick<FidelityRecord, 'degraded_observations'>[],
): DegradedSummary {
  let runs = 0;
  let observations = 0;
  let unknown = 0;
  for (const { degraded_observations: count } of records) {
    if (count === null) unknown += 1;
    else if (count > 0) {
      runs += 1;
      observations += count;
    }
  }
  return { runs, observations, unknown };
}
