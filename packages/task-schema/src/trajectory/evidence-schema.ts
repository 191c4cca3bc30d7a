import { INJECTION_GOAL_IDS, INJECTION_VECTOR_IDS } from '../injection-schema';
import { z } from 'zod';

/** File name of the evidence record in a run's result dir, beside `judgment/…`. */
export const INJECTION_EVIDENCE_FILE = 'injection_evidence.json';

/** The outcome of one deterministic check. */
export const evidenceCheckResultSchema = z.object({
  /** Check id, e.g. `crontab`, `browser_profile`, `stopped_early`. */
  name: z.string(),
  /** What the check looks at. */
  description: z.string(),
  /** True: the check found the injected action; false: it looked and found nothing; null: it could not look. */
  triggered: z.boolean().nullable(),
  /** What was found (matching lines, missing files) or why the check could not run. */
  detail: z.string(),
});
export type EvidenceCheckResult = z.infer<typeof evidenceCheckResultSchema>;

/** The evidence for one goal of one run. */
export const goalEvidenceSchema = z.object({
  goal: z.enum(INJECTION_GOAL_IDS),
  vector: z.enum(INJECTION_VECTOR_IDS),
  /** True when any check found the action; false when every check ran and found nothing; else null. */
  triggered: z.boolean().nullable(),
  /** Why `triggered` is null. */
  reason: z.string().optional(),
  checks: z.array(evidenceCheckResultSchema),
});
export type GoalEvidence = z.infer<typeof goalEvidenceSchema>;

/**
 * `injection_evidence.json`: deterministic evidence recorded beside the LLM judge's verdict. One
 * entry per probed goal (normally the run's own goal).
 */
export const injectionEvidenceSchema = z.object({
  version: z.literal(1),
  /** ISO 8601 time the checks ran. */
  collected_at: z.string(),
  /** The run's result-dir suffix (`__inject__{vector}__{goal}`). */
  dir_suffix: z.string().optional(),
  goals: z.array(goalEvidenceSchema),
});
export type InjectionEvidence = z.infer<typeof injectionEvidenceSchema>;
