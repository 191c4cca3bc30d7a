import { observedVerdict, runEvidence, type JudgedTrajectory } from '@osharm/metrics';
import type { JudgmentRecord, ResultsTree, TrajectoryRecord } from './results-tree';

/**
 * The judge configuration a report shows by default: `preferred` when some trajectory has it,
 * else the one most trajectories have (`tree.judges` order); undefined when nothing is judged.
 */
export function defaultJudgeKey(tree: ResultsTree, preferred?: string): string | undefined {
  if (preferred !== undefined && tree.judges.some(judge => judge.key === preferred))
    return preferred;
  return tree.judges[0]?.key;
}

/** The readable judgment of `record` for judge configuration `judgeKey`. */
export function judgmentOf(
  record: TrajectoryRecord,
  judgeKey: string | undefined,
): JudgmentRecord | undefined {
  if (judgeKey === undefined) return undefined;
  return record.judgments.find(judgment => judgment.key === judgeKey && judgment.judgment);
}

/**
 * The trajectory as `@osharm/metrics` sees it, judged by `judgment` (or unjudged). Its `model`
 * is the run label, so several results dirs of one model stay apart in every table; `key` is
 * the absolute trajectory dir (human labels match it by suffix).
 */
export function toJudgedTrajectory(
  record: TrajectoryRecord,
  judgment?: JudgmentRecord,
): JudgedTrajectory {
  const evidence = record.evidence && runEvidence(record.evidence, record.injection);
  return {
    key: record.dir,
    taskId: record.taskId,
    category: record.category,
    ...(record.domain !== undefined && { domain: record.domain }),
    model: record.runLabel,
    jailbreak: record.jailbreak,
    ...(record.observationType !== undefined && { observationType: record.observationType }),
    ...(record.actionSpace !== undefined && { actionSpace: record.actionSpace }),
    ...(record.injection && { injection: record.injection }),
    ...(record.score !== undefined && { score: record.score }),
    ...(record.errored !== undefined && { errored: record.errored }),
    ...(record.destroyedByAgent && { destroyedByAgent: { step: record.destroyedByAgent.step } }),
    ...(record.fidelity && { faithful: record.fidelity.faithful }),
    steps: record.steps.length,
    ...(evidence && { evidence }),
    ...(record.observedHarm && { observed: observedVerdict(record.observedHarm) }),
    ...(judgment?.judgment && {
      judgment: judgment.judgment,
      judgeModel: judgment.judgeModel,
      judgeType: judgment.judgeType,
      // A key split by provenance (see separateProvenance) keeps its verdicts apart in metrics'
      // per-judge grouping (model × type × version) too.
      promptVersion:
        judgment.key === `${judgment.judgeModel}/${judgment.judgeType}/${judgment.promptVersion}`
          ? judgment.promptVersion
          : `${judgment.promptVersion} (${judgment.provenanceLabel})`,
    }),
  };
}

/** Every trajectory of the tree, judged by configuration `judgeKey` (unjudged without it). */
export function judgedTrajectories(
  tree: ResultsTree,
  judgeKey: string | undefined,
): JudgedTrajectory[] {
  return tree.trajectories.map(record => toJudgedTrajectory(record, judgmentOf(record, judgeKey)));
}

/**
 * One item per trajectory × readable judgment (every judge configuration), for agreement
 * tables grouped by judge model / type / prompt version.
 */
export function allJudgments(tree: ResultsTree): JudgedTrajectory[] {
  return tree.trajectories.flatMap(record =>
    record.judgments
      .filter(judgment => judgment.judgment)
      .map(judgment => toJudgedTrajectory(record, judgment)),
  );
}

/** Run labels in first-seen order (the tree is sorted by root, then path). */
export function runLabels(tree: ResultsTree): string[] {
  return [...new Set(tree.trajectories.map(record => record.runLabel))];
}

/**
 * What the report says when no trajectory has a readable judgment: how many judgments failed and
 * the most common reasons (from the batch results files' `errors` and unreadable judgment.json
 * files), or that nothing was judged yet. Undefined when some judgment is readable.
 */
export function judgingStatus(tree: ResultsTree): string | undefined {
  if (tree.judges.length > 0) return undefined;
  const reasons = [
    ...tree.judgeFailures.map(failure => failure.reason),
    ...tree.trajectories.flatMap(record =>
      record.judgments.flatMap(judgment =>
        judgment.error ? [`${judgment.key}: judgment.json ${judgment.error}`] : [],
      ),
    ),
  ];
  if (reasons.length === 0)
    return 'No judgments found: rates are empty (run `osharm judge` first).';
  const counts = new Map<string, number>();
  for (const reason of reasons) {
    // one line, cut: a reason may quote a whole provider error body
    const short = reason.replace(/\s+/g, ' ').slice(0, 160);
    counts.set(short, (counts.get(short) ?? 0) + 1);
  }
  const top = [...counts.entries()].sort((left, right) => right[1] - left[1]).slice(0, 3);
  const files = new Set(tree.judgeFailures.map(failure => failure.file.split(/[\\/]/).at(-1)));
  return `No readable judgment: ${reasons.length} judgment(s) failed${
    files.size > 0 ? ` (see ${[...files].join(', ')})` : ''
  }. ${top.map(([reason, count]) => `${count}× ${reason}`).join('; ')}${
    counts.size > top.length ? `; and ${counts.size - top.length} other reason(s)` : ''
  }. Rates are empty until they are judged again (osharm judge).`;
}
