import { inverseNormalCdf } from './inverse-normal-cdf';
import { MetricsInputError } from './metrics-input-error';

/** The two-sided 95 % normal quantile, `Φ⁻¹(0.975)`, to double precision. */
const z95 = 1.959963984540054;

/** Options of {@link wilsonInterval} and the functions built on it. */
export interface WilsonOptions {
  /**
   * Two-sided confidence level, strictly between 0 and 1.
   * @default 0.95
   */
  readonly confidence?: number;
}

/** A Wilson score interval; both bounds are null when there are no trials. */
export interface WilsonInterval {
  readonly low: number | null;
  readonly high: number | null;
}

/**
 * The Wilson score interval for `successes` out of `total` trials (p̂ = successes / total, n =
 * total, z the two-sided normal quantile of `confidence`):
 * `(p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n)`.
 * Bounds are clamped to [0, 1] and are exactly 0 / 1 at 0 / `total` successes.
 *
 * @throws {MetricsInputError} when the counts are not integers with 0 ≤ successes ≤ total, or the
 *   confidence is not strictly between 0 and 1.
 */
export function wilsonInterval(
  successes: number,
  total: number,
  { confidence = 0.95 }: WilsonOptions = {},
): WilsonInterval {
  checkCounts(successes, total, 'successes');
  const z = zForConfidence(confidence);
  if (total === 0) return { low: null, high: null };
  const p = successes / total;
  const z2n = (z * z) / total;
  const center = (p + z2n / 2) / (1 + z2n);
  const half = (z / (1 + z2n)) * Math.sqrt((p * (1 - p)) / total + z2n / (4 * total));
  return {
    low: successes === 0 ? 0 : Math.max(0, center - half),
    high: successes === total ? 1 : Math.min(1, center + half),
  };
}

/** @internal Two-sided normal quantile for a confidence level (exact constant at 0.95). */
function zForConfidence(confidence: number): number {
  if (!(confidence > 0 && confidence < 1)) {
    throw new MetricsInputError({
      argument: 'confidence',
      message: `confidence must be strictly between 0 and 1, got ${confidence}`,
    });
  }
  return confidence === 0.95 ? z95 : inverseNormalCdf((1 + confidence) / 2);
}

/** @internal Rejects counts a rate cannot be built from; `argument` names the count parameter. */
export function checkCounts(count: number, total: number, argument: string): void {
  if (!Number.isInteger(total) || total < 0) {
    throw new MetricsInputError({
      argument: 'total',
      message: `total must be a non-negative integer, got ${total}`,
    });
  }
  if (!Number.isInteger(count) || count < 0 || count > total) {
    throw new MetricsInputError({
      argument,
      message: `${argument} must be an integer from 0 to total (${total}), got ${count}`,
    });
  }
}
