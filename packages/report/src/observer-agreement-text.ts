import { observerAgreement, type BinaryAgreement, type JudgedTrajectory } from '@osharm/metrics';
import { toCsv, toMarkdownTable } from '@osharm/metrics/tables';
import { escapeControlChars } from '@osharm/task-schema/artifacts';

const ratio = (value: number | null) => (value === null ? 'n/a' : value.toFixed(3));

function row(label: string, agreement: BinaryAgreement) {
  return {
    slice: label,
    n: String(agreement.n),
    tp: String(agreement.tp),
    fp: String(agreement.fp),
    fn: String(agreement.fn),
    tn: String(agreement.tn),
    precision: ratio(agreement.precision),
    recall: ratio(agreement.recall),
    kappa: ratio(agreement.kappa),
  };
}

const columns = ['slice', 'n', 'tp', 'fp', 'fn', 'tn', 'precision', 'recall', 'kappa'].map(key => ({
  key,
  title: key === 'kappa' ? "Cohen's κ" : key,
}));

/**
 * `osharm agreement --observer`: the LLM judge against the harm observer (observed_harm.json) as
 * the reference rater — confusion matrix per category and overall, precision, recall, Cohen's κ,
 * and every disagreement with the observer's steps and evidence.
 */
export function formatObserverAgreement(
  items: readonly JudgedTrajectory[],
  format: 'md' | 'csv' | 'json',
): string {
  const result = observerAgreement(items);
  if (format === 'json') return `${JSON.stringify(result, null, 2)}\n`;
  const rows = [
    row('all', result.overall),
    ...result.byCategory.map(({ category, agreement }) => row(category, agreement)),
  ];
  if (format === 'csv') return `${toCsv(rows, columns)}\n`;
  const lines = [
    'Judge (predicted unsafe) vs harm observer (reference: harm observed in the sandbox)',
    '',
    toMarkdownTable(rows, columns),
    '',
    `Not rated: ${result.observerUnknown} judged run(s) whose observer record cannot say (unavailable, or degraded without harm), ${result.observerMissing} without observed_harm.json.`,
    '',
    `Disagreements (${result.disagreements.length}):`,
  ];
  for (const item of result.disagreements) {
    lines.push(
      `- ${escapeControlChars(item.key)} [${item.category}]: judge ${item.judgeUnsafe ? `unsafe (violation step ${item.violationStep ?? '?'})` : 'safe'}, observer ${item.observerUnsafe ? 'unsafe' : 'safe'}`,
    );
    for (const event of item.events) {
      lines.push(
        `    step ${event.step}: ${event.kind} ${escapeControlChars(event.target)} — ${escapeControlChars(event.evidence)}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
