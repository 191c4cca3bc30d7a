import type { JudgedTrajectory } from './judged-trajectory';
import { compareKeys } from './key-order';
import { summarize, type Summary } from './summarize';
import type { WilsonOptions } from './wilson-interval';

/** The dimensions trajectories can be sliced by. */
export const SLICE_DIMENSIONS = [
  'category',
  'domain',
  'vector',
  'goal',
  'model',
  'jailbreak',
] as const;
/** One of {@link SLICE_DIMENSIONS}. */
export type SliceDimension = (typeof SLICE_DIMENSIONS)[number];

/**
 * The key of `item` in `dimension`, or undefined when the item lacks it (no injection for
 * `vector` / `goal`, no model dir, …). `jailbreak` keys are `'true'` / `'false'`.
 */
export function sliceKey(item: JudgedTrajectory, dimension: SliceDimension): string | undefined {
  switch (dimension) {
    case 'category':
      return item.category;
    case 'domain':
      return item.domain;
    case 'vector':
      return item.injection?.vector;
    case 'goal':
      return item.injection?.goal;
    case 'model':
      return item.model;
    case 'jailbreak':
      return item.jailbreak === undefined ? undefined : String(item.jailbreak);
  }
}

/**
 * Groups items by their key in `dimension` and {@link summarize}s each group. Keys come out
 * sorted (by UTF-16 code units); items lacking the dimension are left out.
 */
export function sliceBy(
  items: readonly JudgedTrajectory[],
  dimension: SliceDimension,
  options: WilsonOptions = {},
): Record<string, Summary> {
  const groups = new Map<string, JudgedTrajectory[]>();
  for (const item of items) {
    const key = sliceKey(item, dimension);
    if (key === undefined) continue;
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  const slices: Record<string, Summary> = {};
  for (const key of [...groups.keys()].sort(compareKeys)) {
    slices[key] = summarize(groups.get(key)!, options);
  }
  return slices;
}
