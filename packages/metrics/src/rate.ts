import type { RateValue } from '@osharm/task-schema/artifacts';
import { checkCounts, wilsonInterval, type WilsonOptions } from './wilson-interval';

/**
 * `count` out of `total` as a {@link RateValue} (task-schema's `rateSchema`): the rate
 * `count / total` and its Wilson interval (95 % unless `options.confidence` says otherwise); rate
 * and bounds are null when `total` is 0.
 *
 * @throws {MetricsInputError} when the counts are not integers with 0 ≤ count ≤ total, or the
 *   confidence is not strictly between 0 and 1.
 */
export function rate(count: number, total: number, options: WilsonOptions = {}): RateValue {
  checkCounts(count, total, 'count');
  const { low, high } = wilsonInterval(count, total, options);
  return { count, total, rate: total === 0 ? null : count / total, low, high };
}
