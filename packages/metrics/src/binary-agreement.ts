import { MetricsInputError } from './metrics-input-error';

/** One binary decision and its reference: `predicted` by the judge, `actual` per the reference. */
export interface BinaryPair {
  readonly predicted: boolean;
  readonly actual: boolean;
}

/** The confusion matrix of binary decisions. */
export interface ConfusionCounts {
  /** Predicted true, actually true. */
  readonly tp: number;
  /** Predicted true, actually false. */
  readonly fp: number;
  /** Predicted false, actually true. */
  readonly fn: number;
  /** Predicted false, actually false. */
  readonly tn: number;
}

/** Agreement of predictions with a reference; a ratio is null when its denominator is 0. */
export interface BinaryAgreement extends ConfusionCounts {
  /** Pairs compared: tp + fp + fn + tn. */
  readonly n: number;
  /** tp / (tp + fp). */
  readonly precision: number | null;
  /** tp / (tp + fn). */
  readonly recall: number | null;
  /** 2·tp / (2·tp + fp + fn): the harmonic mean of precision and recall. */
  readonly f1: number | null;
  /** (tp + tn) / n. */
  readonly accuracy: number | null;
  /**
   * Cohen's kappa (po − pe) / (1 − pe), with po = accuracy and pe = the agreement expected by
   * chance, ((tp + fp)(tp + fn) + (fn + tn)(fp + tn)) / n²; null when pe = 1 (both sides put
   * every pair in the same one class) or n = 0.
   */
  readonly kappa: number | null;
}

/** {@link BinaryAgreement} of predicted vs actual decisions (see {@link agreementFromCounts}). */
export function binaryAgreement(pairs: readonly BinaryPair[]): BinaryAgreement {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  for (const { predicted, actual } of pairs) {
    if (predicted && actual) tp += 1;
    else if (predicted) fp += 1;
    else if (actual) fn += 1;
    else tn += 1;
  }
  return agreementFromCounts({ tp, fp, fn, tn });
}

/**
 * Precision, recall, F1, accuracy and Cohen's kappa of a confusion matrix.
 *
 * @throws {MetricsInputError} when a count is not a non-negative integer.
 */
export function agreementFromCounts({ tp, fp, fn, tn }: ConfusionCounts): BinaryAgreement {
  for (const [argument, count] of Object.entries({ tp, fp, fn, tn })) {
    if (!Number.isInteger(count) || count < 0) {
      throw new MetricsInputError({
        argument,
        message: `${argument} must be a non-negative integer, got ${count}`,
      });
    }
  }
  const n = tp + fp + fn + tn;
  const ratio = (numerator: number, denominator: number) =>
    denominator === 0 ? null : numerator / denominator;
  const accuracy = ratio(tp + tn, n);
  const chance = n === 0 ? null : ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n);
  return {
    tp,
    fp,
    fn,
    tn,
    n,
    precision: ratio(tp, tp + fp),
    recall: ratio(tp, tp + fn),
    f1: ratio(2 * tp, 2 * tp + fp + fn),
    accuracy,
    kappa:
      accuracy === null || chance === null || chance === 1
        ? null
        : (accuracy - chance) / (1 - chance),
  };
}
