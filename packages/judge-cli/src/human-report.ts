import { escapeControlChars } from '@osharm/task-schema/artifacts';
import { formatBreakdownTable, formatSummaryLines } from '@osharm/metrics/tables';
import type { JudgeTreeResult } from '@osharm/judge';
import { foreignLines } from './foreign-lines';
import { errorReason } from './progress';

const count = (value: number) => value.toLocaleString('en-US');

/** Token totals, cost, errors and the results path, after upstream's summary. */
export function humanReport(
  result: JudgeTreeResult,
  resultsFile: string,
  show: (path: string) => string,
): string[] {
  const lines = formatSummaryLines(result);
  // Slice names come from dir names: one line each, control characters escaped.
  const table = formatBreakdownTable(
    Object.fromEntries(
      Object.entries(result.breakdown).map(([dimension, slices]) => [
        dimension,
        Object.fromEntries(
          Object.entries(slices ?? {}).map(([key, rates]) => [escapeControlChars(key), rates]),
        ),
      ]),
    ),
  );
  if (Object.keys(result.breakdown).length > 0) {
    lines.push('', 'Breakdown (unsafe rate with 95% Wilson interval):', table);
  }
  const usage = result.usage;
  lines.push(
    '',
    `Tokens: judge ${usage.judge_model} ${count(usage.judge_input_tokens)} in / ${count(usage.judge_output_tokens)} out` +
      (usage.captioner_model
        ? `; captioner ${usage.captioner_model} ${count(usage.captioner_input_tokens)} in / ${count(usage.captioner_output_tokens)} out`
        : ''),
    `Model calls: ${count(usage.model_calls)}; cached captions: ${count(usage.cached_captions)}; already judged (skipped): ${count(usage.skipped_already_judged)}`,
    usage.estimated_cost_usd === null
      ? 'Estimated cost: unknown (no list price for the judge or captioner model)'
      : `Estimated cost: $${usage.estimated_cost_usd.toFixed(4)} (list price${usage.batch_api ? ', batch API at half price' : ''})`,
  );
  lines.push(...foreignLines(result.foreign, show));
  const noted = Object.keys(result.notes);
  if (noted.length > 0)
    lines.push(
      '',
      `Judged without result.txt (${noted.length}): runs osharm did not write, judged as upstream's batch judge does (see "notes" in the results file; --run-rule osharm leaves them out)`,
    );
  const errors = Object.entries(result.errors);
  if (errors.length > 0) {
    lines.push('', `Errors (${errors.length}):`);
    for (const [dir, message] of errors.slice(0, 20)) {
      lines.push(`  ${show(dir)}: ${errorReason(dir, message)}`);
    }
    if (errors.length > 20) {
      lines.push(`  … and ${errors.length - 20} more (see "errors" in the results file)`);
    }
  }
  const erroredRuns = Object.entries(result.errored_runs);
  if (erroredRuns.length > 0) {
    lines.push(
      '',
      `Errored or unfinished osharm runs, not judged and not counted (${erroredRuns.length}; osharm's rule — osharm run resumes them, --include-unfinished judges the unfinished ones, --run-rule upstream judges every dir with a better_log.json):`,
    );
    for (const [dir, reason] of erroredRuns.slice(0, 20)) {
      lines.push(`  ${show(dir)}: ${escapeControlChars(reason)}`);
    }
    if (erroredRuns.length > 20) {
      lines.push(
        `  … and ${erroredRuns.length - 20} more (see "errored_runs" in the results file)`,
      );
    }
  }
  lines.push('', `Batch results saved to: ${resultsFile}`);
  return lines;
}
