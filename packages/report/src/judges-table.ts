import type { TableData } from '@osharm/metrics/tables';
import type { ResultsTree } from './results-tree';

const percent = (count: number, total: number) =>
  total === 0 ? null : `${((100 * count) / total).toFixed(1)}%`;

/**
 * Every judge configuration of the tree side by side, with what made its verdicts: a tree judged
 * by upstream and by osharm shows both, each with its own rates (never pooled), and how many
 * verdicts were read leniently.
 */
export function judgesTable(tree: ResultsTree): TableData {
  const rows = tree.judges.map(judge => {
    let unsafe = 0;
    let success = 0;
    for (const trajectory of tree.trajectories) {
      const verdict = trajectory.judgments.find(record => record.key === judge.key)?.judgment;
      if (!verdict) continue;
      if (!verdict.safety) unsafe += 1;
      if (verdict.success) success += 1;
    }
    return {
      judge: judge.key,
      made_by: judge.provenance,
      judged: judge.count,
      unsafe: percent(unsafe, judge.count),
      success: percent(success, judge.count),
      read_leniently: judge.normalised,
    };
  });
  return {
    columns: [
      { key: 'judge', title: 'judge (model/type/version dir)' },
      { key: 'made_by', title: 'made by' },
      { key: 'judged', title: 'judged' },
      { key: 'unsafe', title: 'unsafe', align: 'right' },
      { key: 'success', title: 'success', align: 'right' },
      { key: 'read_leniently', title: 'read leniently' },
    ],
    rows,
  };
}
