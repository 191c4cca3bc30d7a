import type { RateValue } from '@osharm/task-schema/artifacts';
import { formatFixed } from './python-format';

/** @internal A fraction as a percentage with one decimal, without the `%` sign: `0.667` → `66.7`. */
const percentNumber = (fraction: number): string => formatFixed(fraction * 100, 1);

/**
 * @internal A rate for display: `66.7% [20.8–93.9]` with its interval, `66.7%` without; `–` when
 * there is no rate (no trials, or no value at all).
 */
export function formatRate(
  value: RateValue | null | undefined,
  { interval = true }: { interval?: boolean } = {},
): string {
  if (!value || value.rate === null) return '–';
  const bounds =
    interval && value.low !== null && value.high !== null
      ? ` [${percentNumber(value.low)}–${percentNumber(value.high)}]`
      : '';
  return `${percentNumber(value.rate)}%${bounds}`;
}

/** @internal A ratio that may be undefined, with `digits` decimals; `–` when null. */
export const formatRatio = (value: number | null, digits = 2): string =>
  value === null ? '–' : formatFixed(value, digits);
