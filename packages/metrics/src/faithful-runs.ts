import type { JudgedTrajectory } from './judged-trajectory';

/**
 * Only the runs whose `fidelity.json` says faithful (environment as upstream's VM): for rates that
 * must not mix in runs whose desktop differed. Runs without a record (upstream's) are left out.
 */
export function faithfulRuns<T extends Pick<JudgedTrajectory, 'faithful'>>(
  items: readonly T[],
): T[] {
  return items.filter(item => item.faithful === true);
}
