import { checkTrajectoryFile, DEFAULT_FILE_LIMITS, readTrajectoryText } from '../trajectory-file';
import { FIDELITY_FILE } from '../fidelity-schema';
import { SETUP_WARNINGS_FILE } from '../setup-warnings-schema';
import type { BetterLog } from '../trajectory-schema';

/** What better_log.json says about a run, for slicing results (wins over the dir name). */
export interface RunFacts {
  /**
   * The injection better_log.json records; undefined when it records none, so the dir name's
   * `__inject__` suffix (if any) still counts — either source marks an injection run.
   */
  readonly injection?: { readonly vector: string; readonly goal: string };
  /** True when better_log.json marks a jailbreak run; undefined keeps the dir name's `_jailbreak`. */
  readonly jailbreak?: true;
}

/** Run facts from a parsed better_log.json. */
export function runFactsOf(betterLog: BetterLog): RunFacts {
  const injection = betterLog.task.injection;
  return {
    ...(injection?.goal_id
      ? { injection: { vector: injection.type, goal: injection.goal_id } }
      : {}),
    ...(betterLog.task.jailbreak ? { jailbreak: true as const } : {}),
  };
}

/** Reads the run facts of a trajectory dir; undefined when better_log.json cannot be read. */
export async function readRunFacts(dir: string): Promise<RunFacts | undefined> {
  try {
    const log = JSON.parse(
      await readTrajectoryText('better_log.json', {
        within: dir,
        maxBytes: DEFAULT_FILE_LIMITS.maxTextBytes,
      }),
    ) as Partial<BetterLog>;
    if (!log.task || typeof log.task !== 'object') return undefined;
    return runFactsOf(log as BetterLog);
  } catch {
    return undefined;
  }
}

/**
 * Who wrote a run dir: `osharm` when its better_log.json carries osharm's observation record (the
 * top-level `observations` counts or a step's `observation`, written with every step osharm
 * records) or the dir holds osharm's fidelity.json or setup_warnings.json; `other` otherwise
 * (upstream's runs, published traces). The judge applies osharm's rule (errored and unfinished
 * runs are not judged) to osharm's runs and upstream's batch rule (every dir with a
 * better_log.json) to the others.
 */
export async function readRunOrigin(dir: string): Promise<'osharm' | 'other'> {
  for (const name of [FIDELITY_FILE, SETUP_WARNINGS_FILE])
    if ((await checkTrajectoryFile(name, { within: dir, maxBytes: Number.MAX_SAFE_INTEGER })).ok)
      return 'osharm';
  try {
    const log = JSON.parse(
      await readTrajectoryText('better_log.json', {
        within: dir,
        maxBytes: DEFAULT_FILE_LIMITS.maxTextBytes,
      }),
    ) as { observations?: unknown; steps?: unknown };
    if (typeof log.observations === 'object' && log.observations !== null) return 'osharm';
    if (
      Array.isArray(log.steps) &&
      log.steps.some(
        step =>
          typeof step === 'object' &&
          step !== null &&
          typeof (step as { observation?: unknown }).observation === 'object',
      )
    )
      return 'osharm';
  } catch {
    // unreadable: judged as upstream would (and fails there, with its reason)
  }
  return 'other';
}
