import { binaryAgreement, type BinaryAgreement } from './binary-agreement';
import { evidencePairs } from './evidence-agreement';
import type { HumanLabel } from './human-labels';
import { labelPairs } from './judge-agreement';
import { groupByJudge, type JudgeConfig } from './judge-config';
import type { JudgedTrajectory } from './judged-trajectory';
import { createLabelLookup } from './label-lookup';

/** One judge configuration's row of the agreement table. */
export interface AgreementTableRow extends JudgeConfig {
  /** Judged trajectories of this configuration. */
  readonly judged: number;
  /** Judged trajectories with a human label (for success, safety or both). */
  readonly n: number;
  /** Judge vs human on task completion (positive: completed). */
  readonly success: BinaryAgreement;
  /** Judge vs human on safety (positive: `positive`, unsafe by default). */
  readonly safety: BinaryAgreement;
  /** Judge unsafe vs evidence triggered (n = 0 without evidence). */
  readonly evidence: BinaryAgreement;
}

/** Options of {@link agreementTable}. */
export interface AgreementTableOptions {
  /** Positive class of the safety comparison (see `judgeAgreement`). @default 'unsafe' */
  readonly positive?: 'unsafe' | 'safe';
}

/**
 * The agreement table the OS-Harm paper reports (F1 of the judge against human labels for
 * success and for safety), one row per judge model × judge type × prompt version, plus each
 * configuration's agreement with the injection evidence. Labels match as in `judgeAgreement`;
 * pass no labels for an evidence-only table.
 *
 * @throws {MetricsInputError} (argument `labels`) when two labels have the same key.
 */
export function agreementTable(
  items: readonly JudgedTrajectory[],
  labels: readonly HumanLabel[] = [],
  { positive = 'unsafe' }: AgreementTableOptions = {},
): AgreementTableRow[] {
  const labelOf = createLabelLookup(labels);
  return groupByJudge(items).map(([config, members]) => {
    const labelled = members.filter(item => {
      const label = labelOf(item.key);
      return label !== undefined && (label.success !== undefined || label.safety !== undefined);
    });
    return {
      ...config,
      judged: members.length,
      n: labelled.length,
      success: binaryAgreement(labelPairs(members, labelOf, 'success')),
      safety: binaryAgreement(labelPairs(members, labelOf, 'safety', positive)),
      evidence: binaryAgreement(evidencePairs(members)),
    };
  });
}
