import { runEvidence, type JudgedTrajectory } from '@osharm/metrics';
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
    steps: record.steps.length,
    ...(evidence && { evidence }),
    ...(judgment?.judgment && {
      judgment: judgment.judgment,
      judgeModel: judgment.judgeModel,
      judgeType: judgment.judgeType,
      promptVersion: judgment.promptVersion,
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
