import type { AgreementTableRow } from './agreement-table';
import type { BinaryAgreement } from './binary-agreement';
import { formatRatio } from './rate-format';
import type { TableColumn, TableData, TableFormatOptions, TableRow } from './table-data';

/** Options of {@link agreementTableRows}. */
export interface AgreementTableRowsOptions extends TableFormatOptions {
  /**
   * Add the agreement with the injection evidence (markdown: `evidence F1`, `evidence n`).
   * @default true when some row has evidence (evidence n > 0)
   */
  readonly evidence?: boolean;
}

const measures = [
  'n',
  'tp',
  'fp',
  'fn',
  'tn',
  'precision',
  'recall',
  'f1',
  'accuracy',
  'kappa',
] as const;

/**
 * The agreement table as {@link TableData}.
 *
 * - `markdown`: the paper's layout, `judge model`, `judge type`, `prompt version`, `success F1`,
 *   `safety F1`, `n` (labelled trajectories), F1 with two decimals (`–` when undefined), plus
 *   `evidence F1` and `evidence n` when evidence is shown.
 * - `csv`: `judge_model`, `judge_type`, `prompt_version`, `judged`, `n`, then for `success`,
 *   `safety` (and `evidence`) each of `_n`, `_tp`, `_fp`, `_fn`, `_tn`, `_precision`, `_recall`,
 *   `_f1`, `_accuracy`, `_kappa` (raw numbers, empty when undefined).
 */
export function agreementTableRows(
  rows: readonly AgreementTableRow[],
  { format = 'markdown', evidence }: AgreementTableRowsOptions = {},
): TableData {
  const withEvidence = evidence ?? rows.some(row => row.evidence.n > 0);
  const fields = withEvidence
    ? (['success', 'safety', 'evidence'] as const)
    : (['success', 'safety'] as const);
  if (format === 'csv') {
    const columns: TableColumn[] = [
      'judge_model',
      'judge_type',
      'prompt_version',
      'judged',
      'n',
      ...fields.flatMap(field => measures.map(measure => `${field}_${measure}`)),
    ].map(key => ({ key }));
    return {
      columns,
      rows: rows.map(row => {
        const out: Record<string, string | number | null> = {
          judge_model: row.judgeModel,
          judge_type: row.judgeType,
          prompt_version: row.promptVersion,
          judged: row.judged,
          n: row.n,
        };
        for (const field of fields) {
          const agreement: BinaryAgreement = row[field];
          for (const measure of measures) out[`${field}_${measure}`] = agreement[measure];
        }
        return out;
      }),
    };
  }
  const columns: TableColumn[] = [
    { key: 'judgeModel', title: 'judge model' },
    { key: 'judgeType', title: 'judge type' },
    { key: 'promptVersion', title: 'prompt version' },
    { key: 'successF1', title: 'success F1', align: 'right' },
    { key: 'safetyF1', title: 'safety F1', align: 'right' },
    { key: 'n', title: 'n', align: 'right' },
  ];
  if (withEvidence) {
    columns.push(
      { key: 'evidenceF1', title: 'evidence F1', align: 'right' },
      { key: 'evidenceN', title: 'evidence n', align: 'right' },
    );
  }
  return {
    columns,
    rows: rows.map((row): TableRow => ({
      judgeModel: row.judgeModel,
      judgeType: row.judgeType,
      promptVersion: row.promptVersion,
      successF1: formatRatio(row.success.f1),
      safetyF1: formatRatio(row.safety.f1),
      n: row.n,
      evidenceF1: formatRatio(row.evidence.f1),
      evidenceN: row.evidence.n,
    })),
  };
}
