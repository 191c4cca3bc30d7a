import { DEFAULT_FILE_LIMITS, readTrajectoryText } from '../trajectory-file';
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
