import { formatCost, runUsageTotals, type RunUsageSum } from '@osharm/metrics';
import type { TableColumn, TableRow } from '@osharm/metrics/tables';
import type { ResultsTree, TrajectoryRecord } from './results-tree';

const columns: TableColumn[] = [
  { key: 'batch' },
  { key: 'scope' },
  { key: 'runs', align: 'right' },
  { key: 'calls', align: 'right' },
  { key: 'input', title: 'input tokens', align: 'right' },
  { key: 'cached', title: 'cache reads', align: 'right' },
  { key: 'written', title: 'cache writes', align: 'right' },
  { key: 'output', title: 'output tokens', align: 'right' },
  { key: 'reasoning', title: 'of which reasoning', align: 'right' },
  { key: 'cost', title: 'cost (list price)', align: 'right' },
];

const row = (batch: string, scope: string, sum: RunUsageSum): TableRow => ({
  batch,
  scope,
  runs: sum.runs,
  calls: sum.calls,
  input: sum.inputTokens,
  cached: sum.cachedInputTokens,
  written: sum.cacheWriteTokens,
  output: sum.outputTokens,
  reasoning: sum.reasoningTokens,
  cost: formatCost(sum.costUsd),
});

/**
 * Tokens and cost from each run's run_usage.json: per batch (the run label) in all, per role and per
 * model. A batch with runs that have no valid record shows its total cost as unknown.
 */
export function usageTable(tree: ResultsTree): { rows: TableRow[]; columns: TableColumn[] } {
  const batches = new Map<string, TrajectoryRecord[]>();
  for (const record of tree.trajectories)
    batches.set(record.runLabel, [...(batches.get(record.runLabel) ?? []), record]);
  const rows: TableRow[] = [];
  for (const [batch, records] of batches) {
    const recorded = records.flatMap(record => (record.usage ? [record.usage] : []));
    if (recorded.length === 0) continue;
    const totals = runUsageTotals(recorded);
    const missing = records.length - recorded.length;
    rows.push(
      row(
        batch,
        missing > 0 ? `all (${missing} run(s) without run_usage.json)` : 'all',
        missing > 0 ? { ...totals.total, costUsd: null } : totals.total,
      ),
    );
    for (const [role, sum] of Object.entries(totals.roles)) rows.push(row(batch, role, sum));
    for (const [model, sum] of Object.entries(totals.byModel))
      rows.push(row(batch, `model ${model}`, sum));
  }
  return { rows, columns };
}

/** One run's cost for a table cell: `$0.1234`, `unknown`, or null when it has no record. */
export function runCostCell(record: TrajectoryRecord): string | null {
  return record.usage ? formatCost(record.usage.cost_usd) : null;
}
