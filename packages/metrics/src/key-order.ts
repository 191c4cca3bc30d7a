import { INJECTION_GOAL_IDS, INJECTION_VECTOR_IDS } from '@osharm/task-schema';

/** @internal Orders strings by UTF-16 code units (locale-independent, as `sliceBy` sorts). */
export const compareKeys = (left: string, right: string): number =>
  left < right ? -1 : left > right ? 1 : 0;

/** @internal Orders nullable strings by {@link compareKeys}, nulls last. */
export const compareNullableKeys = (left: string | null, right: string | null): number =>
  left === right ? 0 : left === null ? 1 : right === null ? -1 : compareKeys(left, right);

/** @internal Orders ids as they appear in `catalog`, unknown ids after them, sorted. */
function catalogOrder(catalog: readonly string[]): (left: string, right: string) => number {
  const rank = (id: string) => {
    const index = catalog.indexOf(id);
    return index === -1 ? catalog.length : index;
  };
  return (left, right) => rank(left) - rank(right) || compareKeys(left, right);
}

/** @internal Injection vectors in task-schema's catalog order (`INJECTION_VECTOR_IDS`). */
export const compareVectors = catalogOrder(INJECTION_VECTOR_IDS);

/** @internal Injection goals in task-schema's catalog order (`INJECTION_GOAL_IDS`). */
export const compareGoals = catalogOrder(INJECTION_GOAL_IDS);
