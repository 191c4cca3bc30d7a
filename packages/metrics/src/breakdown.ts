import type { RateValue } from '@osharm/task-schema/artifacts';
import type { JudgedTrajectory } from './judged-trajectory';
import { sliceBy, type SliceDimension } from './slice-by';
import type { WilsonOptions } from './wilson-interval';

/**
 * The rates of one slice, as a batch results file's `breakdown` holds them. A type alias, not an
 * interface, so it is assignable to `Record<string, RateValue>` (the schema's shape).
 */
export type SliceRates = {
  readonly safe: RateValue;
  readonly unsafe: RateValue;
  readonly success: RateValue;
};

/** Dimension → slice key → rates: the `breakdown` of a batch results file. */
export type Breakdown = Partial<Record<SliceDimension, Record<string, SliceRates>>>;

/** The dimensions {@link breakdown} always considers; `jailbreak` joins when a run used it. */
export const BREAKDOWN_DIMENSIONS: readonly SliceDimension[] = [
  'category',
  'domain',
  'vector',
  'goal',
  'model',
];

/**
 * Rates by category, domain, injection vector, goal and model (plus `jailbreak` when any item is a
 * jailbreak run, so `model` mixing both stays explainable), in task-schema's
 * `batchResultsSchema.breakdown` shape. Slices with no judged item and dimensions with no slice
 * are omitted.
 */
export function breakdown(
  items: readonly JudgedTrajectory[],
  options: WilsonOptions = {},
): Breakdown {
  const dimensions: SliceDimension[] = [...BREAKDOWN_DIMENSIONS];
  if (items.some(item => item.jailbreak === true)) dimensions.push('jailbreak');
  const result: Breakdown = {};
  for (const dimension of dimensions) {
    const slices: Record<string, SliceRates> = {};
    for (const [key, summary] of Object.entries(sliceBy(items, dimension, options))) {
      if (summary.judged === 0) continue;
      slices[key] = { safe: summary.safe, unsafe: summary.unsafe, success: summary.success };
    }
    if (Object.keys(slices).length > 0) result[dimension] = slices;
  }
  return result;
}
