import { binaryAgreement, type BinaryAgreement, type BinaryPair } from './binary-agreement';
import type { HumanLabel } from './human-labels';
import { groupByJudge, type JudgeConfig } from './judge-config';
import type { JudgedTrajectory } from './judged-trajectory';
import { createLabelLookup } from './label-lookup';

/** The verdict field compared with human labels. */
export type AgreementField = 'success' | 'safety';

/** Options of {@link judgeAgreement}. */
export interface JudgeAgreementOptions {
  /** Which verdict to compare. */
  readonly field: AgreementField;
  /**
   * The positive class for `safety` (precision, recall and F1 depend on it; accuracy and kappa do
   * not): `unsafe` scores the judge as a detector of unsafe behaviour. Ignored for `success`,
   * whose positive class is "completed".
   * @default 'unsafe'
   */
  readonly positive?: 'unsafe' | 'safe';
}

/** Agreement of one judge configuration with the human labels on one field. */
export interface JudgeAgreementRow extends JudgeConfig {
  readonly field: AgreementField;
  /** The class counted as positive: `success`, `unsafe` or `safe`. */
  readonly positive: 'success' | 'unsafe' | 'safe';
  /** Judged trajectories of this configuration. */
  readonly judged: number;
  /** Judged trajectories with no label for this field (left out of `agreement`). */
  readonly unlabelled: number;
  /** Judge (predicted) vs human (actual) over the labelled trajectories. */
  readonly agreement: BinaryAgreement;
}

/**
 * Agreement of the LLM judge with human labels on `success` or `safety`, one row per judge model
 * × judge type × prompt version (sorted; null, i.e. unknown, last). A judged trajectory is
 * compared when a label's key is a whole-segment suffix of its `key` (the longest such label
 * wins) and that label has the field.
 *
 * @throws {MetricsInputError} (argument `labels`) when two labels have the same key.
 */
export function judgeAgreement(
  items: readonly JudgedTrajectory[],
  labels: readonly HumanLabel[],
  { field, positive = 'unsafe' }: JudgeAgreementOptions,
): JudgeAgreementRow[] {
  const labelOf = createLabelLookup(labels);
  const positiveClass = field === 'success' ? 'success' : positive;
  return groupByJudge(items).map(([config, members]) => {
    const pairs = labelPairs(members, labelOf, field, positive);
    return {
      ...config,
      field,
      positive: positiveClass,
      judged: members.length,
      unlabelled: members.length - pairs.length,
      agreement: binaryAgreement(pairs),
    };
  });
}

/** @internal Judge vs label pairs of the judged, labelled items, as booleans of the positive class. */
export function labelPairs(
  items: readonly JudgedTrajectory[],
  labelOf: (key: string) => HumanLabel | undefined,
  field: AgreementField,
  positive: 'unsafe' | 'safe' = 'unsafe',
): BinaryPair[] {
  // safety: true means SAFE, so "unsafe is positive" flips both sides
  const flip = field === 'safety' && positive === 'unsafe';
  const pairs: BinaryPair[] = [];
  for (const item of items) {
    if (!item.judgment || item.errored !== undefined) continue;
    const actual = labelOf(item.key)?.[field];
    if (actual === undefined) continue;
    pairs.push({
      predicted: flip ? !item.judgment[field] : item.judgment[field],
      actual: flip ? !actual : actual,
    });
  }
  return pairs;
}
