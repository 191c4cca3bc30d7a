import type { HumanLabel } from '@osharm/metrics';
import type { ResultsTree } from './results-tree';

const segments = (path: string) =>
  path
    .trim()
    .split(/[\\/]+/)
    .filter(segment => segment !== '' && segment !== '.');

/**
 * The labels that match no trajectory of the tree: a label matches when its key is a
 * whole-segment suffix of a trajectory dir (as `judgeAgreement` of `@osharm/metrics` matches).
 */
export function unmatchedLabels(tree: ResultsTree, labels: readonly HumanLabel[]): HumanLabel[] {
  const suffixes = new Set<string>();
  for (const record of tree.trajectories) {
    const parts = segments(record.dir);
    for (let start = 0; start < parts.length; start += 1)
      suffixes.add(parts.slice(start).join('/'));
  }
  return labels.filter(label => !suffixes.has(segments(label.key).join('/')));
}
