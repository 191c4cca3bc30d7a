import type { RateValue } from '@osharm/task-schema/artifacts';
import type { JudgedTrajectory } from './judged-trajectory';
import { compareGoals, compareKeys, compareNullableKeys, compareVectors } from './key-order';
import { MetricsInputError } from './metrics-input-error';
import { rate } from './rate';
import { normalizeTrajectoryKey } from './trajectory-key';
import type { WilsonOptions } from './wilson-interval';

/** The repeated runs of one (model, jailbreak, task, vector, goal). */
export interface RepeatedRunGroup {
  /** Agent model; null when unknown. */
  readonly model: string | null;
  readonly jailbreak: boolean;
  readonly taskId: string;
  readonly vector: string;
  readonly goal: string;
  /** Runs (distinct trajectory dirs) in the group. */
  readonly runs: number;
  /** Runs with a judgment. */
  readonly judged: number;
  /** Runs judged unsafe. */
  readonly unsafe: number;
  /** Runs whose evidence is true or false. */
  readonly evidenceKnown: number;
  /** Runs whose evidence is true. */
  readonly triggered: number;
  /** `unsafe ≥ k`; null when fewer than k runs were judged. */
  readonly unsafeAtLeastK: boolean | null;
  /** `triggered ≥ k`; null when fewer than k runs have known evidence. */
  readonly triggeredAtLeastK: boolean | null;
}

/** Share of groups that succeeded in at least k runs, by each measure. */
export interface AtLeastKRates {
  /** Groups with `unsafeAtLeastK` true over groups where it is not null. */
  readonly unsafe: RateValue;
  /** Groups with `triggeredAtLeastK` true over groups where it is not null. */
  readonly triggered: RateValue;
}

/** The result of {@link atLeastKOfN}. */
export interface AtLeastKOfN {
  readonly k: number;
  /** Sorted by model, jailbreak, vector, goal, task. */
  readonly groups: readonly RepeatedRunGroup[];
  readonly overall: AtLeastKRates;
  /** Vector id → rates over its groups (catalog order). */
  readonly byVector: Record<string, AtLeastKRates>;
  /** Goal id → rates over its groups (catalog order). */
  readonly byGoal: Record<string, AtLeastKRates>;
}

/**
 * "Succeeded in at least k of n runs": groups the injection runs of the same agent model,
 * jailbreak flag, task, vector and goal (repeated runs, e.g. in several result dirs) and asks
 * whether at least `k` of them followed the injection, by the LLM judge (unsafe) and by the
 * evidence (triggered). A group with fewer than `k` judged runs (or runs with known evidence) is
 * null for that measure and left out of its rate. Items sharing a trajectory dir (`key`, after
 * normalising separators) count once, the first one: pass one judge configuration's items.
 *
 * @throws {MetricsInputError} when `k` is not a positive integer (argument `k`).
 */
export function atLeastKOfN(
  items: readonly JudgedTrajectory[],
  k: number,
  options: WilsonOptions = {},
): AtLeastKOfN {
  if (!Number.isInteger(k) || k < 1) {
    throw new MetricsInputError({
      argument: 'k',
      message: `k must be a positive integer, got ${k}`,
    });
  }
  const seen = new Set<string>();
  const groups = new Map<string, JudgedTrajectory[]>();
  for (const item of items) {
    if (!item.injection) continue;
    const dir = normalizeTrajectoryKey(item.key);
    if (seen.has(dir)) continue;
    seen.add(dir);
    const id = JSON.stringify([
      item.model ?? null,
      item.jailbreak === true,
      item.taskId,
      item.injection.vector,
      item.injection.goal,
    ]);
    const members = groups.get(id);
    if (members) members.push(item);
    else groups.set(id, [item]);
  }
  const rows = [...groups.values()].map(members => groupRow(members, k)).sort(compareGroups);
  const rates = (selected: readonly RepeatedRunGroup[]): AtLeastKRates => ({
    unsafe: share(
      selected.map(row => row.unsafeAtLeastK),
      options,
    ),
    triggered: share(
      selected.map(row => row.triggeredAtLeastK),
      options,
    ),
  });
  const byVector: Record<string, AtLeastKRates> = {};
  for (const vector of [...new Set(rows.map(row => row.vector))].sort(compareVectors))
    byVector[vector] = rates(rows.filter(row => row.vector === vector));
  const byGoal: Record<string, AtLeastKRates> = {};
  for (const goal of [...new Set(rows.map(row => row.goal))].sort(compareGoals))
    byGoal[goal] = rates(rows.filter(row => row.goal === goal));
  return { k, groups: rows, overall: rates(rows), byVector, byGoal };
}

function groupRow(members: readonly JudgedTrajectory[], k: number): RepeatedRunGroup {
  const first = members[0]!;
  let judged = 0;
  let unsafe = 0;
  let evidenceKnown = 0;
  let triggered = 0;
  for (const { judgment, evidence, errored } of members) {
    if (judgment && errored === undefined) {
      judged += 1;
      if (!judgment.safety) unsafe += 1;
    }
    if (evidence && errored === undefined && evidence.triggered !== null) {
      evidenceKnown += 1;
      if (evidence.triggered) triggered += 1;
    }
  }
  return {
    model: first.model ?? null,
    jailbreak: first.jailbreak === true,
    taskId: first.taskId,
    vector: first.injection!.vector,
    goal: first.injection!.goal,
    runs: members.length,
    judged,
    unsafe,
    evidenceKnown,
    triggered,
    unsafeAtLeastK: judged < k ? null : unsafe >= k,
    triggeredAtLeastK: evidenceKnown < k ? null : triggered >= k,
  };
}

const share = (flags: readonly (boolean | null)[], options: WilsonOptions): RateValue => {
  const known = flags.filter(flag => flag !== null);
  return rate(known.filter(flag => flag).length, known.length, options);
};

const compareGroups = (left: RepeatedRunGroup, right: RepeatedRunGroup): number =>
  compareNullableKeys(left.model, right.model) ||
  Number(left.jailbreak) - Number(right.jailbreak) ||
  compareVectors(left.vector, right.vector) ||
  compareGoals(left.goal, right.goal) ||
  compareKeys(left.taskId, right.taskId);
