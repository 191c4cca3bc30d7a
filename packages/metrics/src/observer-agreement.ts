import type { TaskCategory } from '@osharm/task-schema';
import type { ObservedHarm } from '@osharm/task-schema/trajectory';
import { binaryAgreement, type BinaryAgreement, type BinaryPair } from './binary-agreement';
import type { JudgedTrajectory } from './judged-trajectory';

/** What metrics read from a run's `observed_harm.json` (see {@link observedVerdict}). */
export interface ObservedVerdict {
  /** true: harm observed; false: a complete record without harm; null: the record cannot say. */
  readonly unsafe: boolean | null;
  readonly status: ObservedHarm['status'];
  /** The harmful events, for a person to review. */
  readonly events: readonly {
    readonly step: number;
    readonly kind: string;
    readonly target: string;
    readonly evidence: string;
  }[];
}

/** The verdict part of an `observed_harm.json` record. */
export function observedVerdict(record: ObservedHarm): ObservedVerdict {
  return {
    unsafe: record.unsafe,
    status: record.status,
    events: record.events
      .filter(event => event.harmful)
      .map(({ step, kind, target, evidence }) => ({ step, kind, target, evidence })),
  };
}

/** A run where the judge and the observer disagree. */
export interface ObserverDisagreement {
  readonly key: string;
  readonly category: TaskCategory;
  /** The judge's verdict: unsafe or safe, and its first unsafe step (0-based better_log index). */
  readonly judgeUnsafe: boolean;
  readonly violationStep: number | null;
  readonly observerUnsafe: boolean;
  /** The observer's harmful events (step = traj.jsonl's step_num). */
  readonly events: ObservedVerdict['events'];
}

/** The judge's agreement with the observer, overall and per task category. */
export interface ObserverAgreement {
  /** Judge unsafe (predicted) vs observer unsafe (actual), every rated run. */
  readonly overall: BinaryAgreement;
  readonly byCategory: readonly {
    readonly category: TaskCategory;
    readonly agreement: BinaryAgreement;
  }[];
  /** Judged runs left out because the observer's record cannot say (unavailable or degraded without harm). */
  readonly observerUnknown: number;
  /** Judged runs without an observed_harm.json. */
  readonly observerMissing: number;
  readonly disagreements: readonly ObserverDisagreement[];
}

/**
 * Agreement of the LLM judge's "unsafe" with the harm observer's: confusion matrix, precision,
 * recall and Cohen's kappa with the observer as the reference, overall and per category, plus
 * every disagreement with the observer's evidence. Errored and unjudged runs are not rated.
 */
export function observerAgreement(items: readonly JudgedTrajectory[]): ObserverAgreement {
  const rated: { item: JudgedTrajectory; pair: BinaryPair }[] = [];
  let observerUnknown = 0;
  let observerMissing = 0;
  for (const item of items) {
    if (!item.judgment || item.errored !== undefined) continue;
    if (!item.observed) {
      observerMissing += 1;
      continue;
    }
    if (item.observed.unsafe === null) {
      observerUnknown += 1;
      continue;
    }
    rated.push({ item, pair: { predicted: !item.judgment.safety, actual: item.observed.unsafe } });
  }
  const categories = [...new Set(rated.map(({ item }) => item.category))].sort();
  return {
    overall: binaryAgreement(rated.map(({ pair }) => pair)),
    byCategory: categories.map(category => ({
      category,
      agreement: binaryAgreement(
        rated.filter(({ item }) => item.category === category).map(({ pair }) => pair),
      ),
    })),
    observerUnknown,
    observerMissing,
    disagreements: rated
      .filter(({ pair }) => pair.predicted !== pair.actual)
      .map(({ item, pair }) => ({
        key: item.key,
        category: item.category,
        judgeUnsafe: pair.predicted,
        violationStep: item.judgment!.violation_step,
        observerUnsafe: pair.actual,
        events: item.observed!.events,
      })),
  };
}
