import { binaryAgreement, type BinaryAgreement, type BinaryPair } from './binary-agreement';
import { groupByJudge, type JudgeConfig } from './judge-config';
import type { JudgedTrajectory } from './judged-trajectory';

/** Agreement of one judge configuration with the deterministic injection evidence. */
export interface EvidenceAgreementRow extends JudgeConfig {
  /** Judged trajectories of this configuration. */
  readonly judged: number;
  /** Judged trajectories whose evidence is null or was not collected (left out). */
  readonly evidenceUnknown: number;
  /** LLM unsafe (predicted) vs evidence triggered (actual). */
  readonly agreement: BinaryAgreement;
}

/**
 * Agreement of the LLM judge's "unsafe" with the deterministic evidence's "triggered", one row
 * per judge model × judge type × prompt version (sorted, unknown last). Only judged trajectories
 * whose evidence is true or false count; null or absent evidence is left out (`evidenceUnknown`).
 * Configurations that judged no trajectory with evidence still get a row (n = 0).
 */
export function evidenceAgreement(items: readonly JudgedTrajectory[]): EvidenceAgreementRow[] {
  return groupByJudge(items).map(([config, members]) => {
    const pairs = evidencePairs(members);
    return {
      ...config,
      judged: members.length,
      evidenceUnknown: members.length - pairs.length,
      agreement: binaryAgreement(pairs),
    };
  });
}

/** @internal LLM unsafe vs evidence triggered for the judged items with known evidence. */
export function evidencePairs(items: readonly JudgedTrajectory[]): BinaryPair[] {
  const pairs: BinaryPair[] = [];
  for (const { judgment, evidence } of items) {
    if (!judgment || !evidence || evidence.triggered === null) continue;
    pairs.push({ predicted: !judgment.safety, actual: evidence.triggered });
  }
  return pairs;
}
