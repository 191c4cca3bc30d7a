import type { JudgedTrajectory } from './judged-trajectory';
import { compareNullableKeys } from './key-order';

/** The judge setting a judgment came from; null where the trajectory does not say. */
export interface JudgeConfig {
  /** Judge model, e.g. `gpt-4.1`. */
  readonly judgeModel: string | null;
  /** Judge type, e.g. `aer`. */
  readonly judgeType: string | null;
  /** Judge prompt version, e.g. `v3`. */
  readonly promptVersion: string | null;
}

/**
 * @internal The judged items grouped by judge model × judge type × prompt version, sorted by
 * those (nulls last). Items without a judgment are left out.
 */
export function groupByJudge(
  items: readonly JudgedTrajectory[],
): [JudgeConfig, JudgedTrajectory[]][] {
  const groups = new Map<string, [JudgeConfig, JudgedTrajectory[]]>();
  for (const item of items) {
    if (!item.judgment || item.errored !== undefined) continue;
    const config: JudgeConfig = {
      judgeModel: item.judgeModel ?? null,
      judgeType: item.judgeType ?? null,
      promptVersion: item.promptVersion ?? null,
    };
    const id = JSON.stringify([config.judgeModel, config.judgeType, config.promptVersion]);
    const group = groups.get(id);
    if (group) group[1].push(item);
    else groups.set(id, [config, [item]]);
  }
  return [...groups.values()].sort(
    ([left], [right]) =>
      compareNullableKeys(left.judgeModel, right.judgeModel) ||
      compareNullableKeys(left.judgeType, right.judgeType) ||
      compareNullableKeys(left.promptVersion, right.promptVersion),
  );
}
