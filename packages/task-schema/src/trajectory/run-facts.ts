import { checkTrajectoryFile, DEFAULT_FILE_LIMITS, readTrajectoryText } from '../trajectory-file';
import { FIDELITY_FILE } from '../fidelity-schema';
import { SETUP_WARNINGS_FILE } from '../setup-warnings-schema';
import { promptProvenanceSchema } from '../prompt-provenance';
import { OBSERVATION_TYPES, type ObservationType } from '../run-options';
import type { BetterLog } from '../trajectory-schema';

/**
 * What better_log.json says about a run: the one reader of a run's recorded facts (the judge takes
 * the observation type from here, the report the prompt family). Injection and jailbreak win over
 * the dir name when slicing results (`describeTrajectoryPath`'s overrides); the category follows
 * from them and the path.
 */
export interface RunFacts {
  /**
   * The injection better_log.json records; undefined when it records none, so the dir name's
   * `__inject__` suffix (if any) still counts — either source marks an injection run.
   */
  readonly injection?: { readonly vector: string; readonly goal: string };
  /** True when better_log.json marks a jailbreak run; undefined keeps the dir name's `_jailbreak`. */
  readonly jailbreak?: true;
  /** `params.observation_type` when it names one of `OBSERVATION_TYPES`; undefined otherwise. */
  readonly observationType?: ObservationType;
  /** `params.action_space`, as recorded. */
  readonly actionSpace?: string;
  /** `params.model`: the agent model as the run named it. */
  readonly model?: string;
  /**
   * Whose prompts ran the agent, from `params.osharm_prompts`: `osharm` or `upstream`; undefined
   * when the run does not record it (upstream's runs, older osharm runs), `unreadable` when the
   * record is damaged.
   */
  readonly promptFamily?: 'osharm' | 'upstream' | 'unreadable';
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** Run facts from a parsed better_log.json (`params` may be missing or damaged: its facts are then absent). */
export function runFactsOf(betterLog: Pick<BetterLog, 'task'> & { params?: unknown }): RunFacts {
  const injection = betterLog.task.injection;
  const params =
    typeof betterLog.params === 'object' && betterLog.params !== null
      ? (betterLog.params as Record<string, unknown>)
      : {};
  const observationType = (OBSERVATION_TYPES as readonly unknown[]).includes(
    params.observation_type,
  )
    ? (params.observation_type as ObservationType)
    : undefined;
  const actionSpace = text(params.action_space);
  const model = text(params.model);
  const promptFamily =
    params.osharm_prompts === undefined
      ? undefined
      : (promptProvenanceSchema.safeParse(params.osharm_prompts).data?.prompt_family ??
        'unreadable');
  return {
    ...(injection?.goal_id
      ? { injection: { vector: injection.type, goal: injection.goal_id } }
      : {}),
    ...(betterLog.task.jailbreak ? { jailbreak: true as const } : {}),
    ...(observationType && { observationType }),
    ...(actionSpace && { actionSpace }),
    ...(model && { model }),
    ...(promptFamily && { promptFamily }),
  };
}

/** What a run dir says about itself: who wrote it, and the facts its better_log.json records. */
export interface RunRecord {
  /** Who wrote the dir (see {@link readRunOrigin}). */
  readonly origin: 'osharm' | 'other';
  /** The recorded facts; undefined when better_log.json cannot be read. */
  readonly facts?: RunFacts;
}

async function readBetterLogJson(dir: string): Promise<unknown> {
  try {
    return JSON.parse(
      await readTrajectoryText('better_log.json', {
        within: dir,
        maxBytes: DEFAULT_FILE_LIMITS.maxTextBytes,
      }),
    ) as unknown;
  } catch {
    return undefined; // unreadable: judged as upstream would (and fails there, with its reason)
  }
}

function factsOfJson(log: unknown): RunFacts | undefined {
  const task = (log as { task?: unknown } | null | undefined)?.task;
  if (typeof task !== 'object' || task === null) return undefined;
  return runFactsOf(log as BetterLog);
}

/** osharm's observation record: the top-level `observations` counts or a step's `observation`. */
function carriesObservationRecord(log: unknown): boolean {
  if (typeof log !== 'object' || log === null) return false;
  const { observations, steps } = log as { observations?: unknown; steps?: unknown };
  if (typeof observations === 'object' && observations !== null) return true;
  return (
    Array.isArray(steps) &&
    steps.some(
      step =>
        typeof step === 'object' &&
        step !== null &&
        typeof (step as { observation?: unknown }).observation === 'object',
    )
  );
}

async function hasOsharmFiles(dir: string): Promise<boolean> {
  for (const name of [FIDELITY_FILE, SETUP_WARNINGS_FILE])
    if ((await checkTrajectoryFile(name, { within: dir, maxBytes: Number.MAX_SAFE_INTEGER })).ok)
      return true;
  return false;
}

/**
 * Who wrote a run dir and what its better_log.json records, from one read of the file: what
 * {@link readRunOrigin} and {@link readRunFacts} each return.
 */
export async function readRunRecord(dir: string): Promise<RunRecord> {
  const log = await readBetterLogJson(dir);
  const facts = factsOfJson(log);
  const origin = (await hasOsharmFiles(dir)) || carriesObservationRecord(log) ? 'osharm' : 'other';
  return { origin, ...(facts && { facts }) };
}

/** Reads the run facts of a trajectory dir; undefined when better_log.json cannot be read. */
export async function readRunFacts(dir: string): Promise<RunFacts | undefined> {
  return factsOfJson(await readBetterLogJson(dir));
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
  if (await hasOsharmFiles(dir)) return 'osharm';
  return carriesObservationRecord(await readBetterLogJson(dir)) ? 'osharm' : 'other';
}
