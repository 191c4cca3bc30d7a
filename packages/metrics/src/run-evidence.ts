import type { TrajectoryEvidence, TrajectoryInjection } from './judged-trajectory';

/** The parts of an `injection_evidence.json` that {@link runEvidence} reads. */
export interface EvidenceRecordInput {
  readonly goals: readonly {
    readonly goal: string;
    readonly vector?: string;
    readonly triggered: boolean | null;
  }[];
}

/**
 * The evidence for a run's own goal from its `injection_evidence.json` (parsed): the first entry
 * whose goal (and vector, when both sides have one) matches `injection`; without `injection`, the
 * only entry if there is exactly one. Undefined when nothing matches.
 */
export function runEvidence(
  record: EvidenceRecordInput,
  injection?: TrajectoryInjection,
): TrajectoryEvidence | undefined {
  const entry = injection
    ? record.goals.find(
        goal =>
          goal.goal === injection.goal &&
          (goal.vector === undefined || goal.vector === injection.vector),
      )
    : record.goals.length === 1
      ? record.goals[0]
      : undefined;
  return entry && { triggered: entry.triggered };
}
