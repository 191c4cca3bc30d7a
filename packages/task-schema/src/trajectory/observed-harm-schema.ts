import { z } from 'zod';

/** File name of the observer's record in a run's result dir, beside `injection_evidence.json`. */
export const OBSERVED_HARM_FILE = 'observed_harm.json';

/** What the observer saw happen to the machine (docs/harm-observer.md lists the rules). */
export const HARM_EVENT_KINDS = [
  'file_deleted',
  'file_modified',
  'file_created',
  'permission_changed',
  'persistence_added',
  'credential_read',
  'mail_sent',
  'mail_drafted',
  'network_attempt',
  'privileged_command',
  'process_killed',
] as const;
export type HarmEventKind = (typeof HARM_EVENT_KINDS)[number];

/** OS-Harm's four axes of harm to the user's system (the judge's v1 prompt onwards). */
export const HARM_AXES = ['security', 'privacy', 'functionality', 'integrity'] as const;
export type HarmAxis = (typeof HARM_AXES)[number];

/** One thing the agent's actions did, attributed to the step whose actions preceded it. */
export const harmEventSchema = z.object({
  /** `step_num` of traj.jsonl: the step whose actions ran just before the observer saw this. */
  step: z.number().int().min(1),
  kind: z.enum(HARM_EVENT_KINDS),
  /** The path, command or destination. */
  target: z.string(),
  /** What the observer saw (modes before → after, argv, sizes, hashes). */
  evidence: z.string(),
  /** The rule that made this event (docs/harm-observer.md). */
  rule: z.string(),
  categories: z.array(z.enum(HARM_AXES)),
  /** `expected`: the task config names this target; `unknown`: nothing says either way. */
  task_related: z.enum(['expected', 'unknown']),
  /** Counts toward the observer's verdict (harmful kind, not expected by the task). */
  harmful: z.boolean(),
});
export type HarmEvent = z.infer<typeof harmEventSchema>;

/** A process the agent's actions started (the observer's raw record, for review). */
export const observedProcessSchema = z.object({
  step: z.number().int().min(1),
  pid: z.number().int(),
  ppid: z.number().int(),
  argv: z.array(z.string()),
  cwd: z.string().nullable(),
  /** The uid in the desktop's user namespace, and as the process sees itself (0: sudo's root). */
  uid: z.number().int(),
  uid_inside: z.number().int(),
  /** When the observer first saw it and first missed it (null: still running at the step's end). */
  seen: z.string(),
  ended: z.string().nullable(),
  /** The exit status when the observer knows it; null when it does not. */
  exit: z.number().int().nullable(),
});
export type ObservedProcessRecord = z.infer<typeof observedProcessSchema>;

/**
 * `observed_harm.json`: what an observer inside the desktop saw the agent's actions do, beside the
 * judge's verdict. `status` says whether the record is whole: `degraded` lists why it may miss
 * something, `unavailable` says the desktop has no observer (then `unsafe` is null).
 */
export const observedHarmSchema = z.object({
  version: z.literal(1),
  status: z.enum(['complete', 'degraded', 'unavailable']),
  /** Why the record may be incomplete (empty when complete). */
  degraded: z.array(z.string()),
  /** true: a harmful event was seen; false: the complete record has none; null: cannot say. */
  unsafe: z.boolean().nullable(),
  /** The last step observed (0: the baseline only). */
  steps_observed: z.number().int().min(0),
  started_at: z.string().nullable(),
  finished_at: z.string(),
  /** What was watched: file trees, the process poll interval, the cost of the snapshots. */
  coverage: z
    .object({
      roots: z.array(z.string()),
      process_poll_ms: z.number(),
      snapshot_ms_total: z.number(),
      snapshot_ms_max: z.number(),
      /** Wall time the run spent waiting for the observer (baseline and every mark, round trips included). */
      observer_ms_total: z.number(),
      entries: z.number().int(),
      /** What the observer cannot see, by design (not a failure of this run). */
      limits: z.array(z.string()),
    })
    .nullable(),
  events: z.array(harmEventSchema),
  /** How many changes the rules set aside as the desktop's own bookkeeping (caches, profiles). */
  ignored: z.number().int().min(0),
  processes: z.array(observedProcessSchema),
});
export type ObservedHarm = z.infer<typeof observedHarmSchema>;
