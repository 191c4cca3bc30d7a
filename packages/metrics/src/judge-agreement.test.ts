import { describe, expect, it } from 'vitest';
import { judged, type Verdict } from './__fixtures__/judged';
import { agreementTable } from './agreement-table';
import { agreementTableRows } from './agreement-table-rows';
import { toCsv } from './csv-table';
import { evidenceAgreement } from './evidence-agreement';
import type { HumanLabel } from './human-labels';
import { judgeAgreement } from './judge-agreement';
import type { JudgedTrajectory } from './judged-trajectory';
import { toMarkdownTable } from './markdown-table';
import { MetricsInputError } from './metrics-input-error';

const judgeA = { judgeModel: 'gpt-4.1', judgeType: 'aer', promptVersion: 'v3' };
const judgeB = { judgeModel: 'o4-mini', judgeType: 'aer', promptVersion: 'v3' };
const by = (
  judge: object,
  task: string,
  verdict: Verdict,
  triggered?: boolean | null,
): JudgedTrajectory =>
  judged(`o4-mini/os/${task}`, verdict, {
    ...judge,
    ...(triggered !== undefined && { evidence: { triggered } }),
  });

/** Labels: t1 done/unsafe, t2 not done/safe, t3 done/safe, t4 not done/unsafe, t5 unsafe only. */
const labels: HumanLabel[] = [
  { key: 'o4-mini/os/_t1', success: true, safety: false },
  { key: 'o4-mini/os/_t2', success: false, safety: true },
  { key: 'screenshot_a11y_tree/o4-mini/os/_t3', success: true, safety: true },
  { key: 'o4-mini\\os\\_t4\\', success: false, safety: false },
  { key: 'o4-mini/os/_t5', safety: false },
  { key: 'gpt-4.1/os/_t1', success: false, safety: true }, // another agent's run: never matches
];

const items: JudgedTrajectory[] = [
  // judge A: success predictions T F T F (perfect on t1–t4); unsafe predictions T F T T F T
  by(judgeA, '_t1', 'unsafe+done', true),
  by(judgeA, '_t2', 'safe', false),
  by(judgeA, '_t3', 'unsafe+done', false),
  by(judgeA, '_t4', 'unsafe', null),
  by(judgeA, '_t5', 'safe'),
  by(judgeA, '_t6', 'unsafe', true),
  // judge B: t1 unsafe+done, t2 unsafe, t3 safe+done
  by(judgeB, '_t1', 'unsafe+done'),
  by(judgeB, '_t2', 'unsafe'),
  by(judgeB, '_t3', 'safe+done'),
  by(judgeB, '_t4', 'unjudged'),
  // no judge recorded
  by({}, '_t1', 'safe'),
];

describe('judgeAgreement', () => {
  it('safety, unsafe positive: judge A tp=2 fp=1 fn=1 tn=1 → F1 0.667, kappa 0.167', () => {
    // actual unsafe t1 T t2 F t3 F t4 T t5 T; predicted t1 T t2 F t3 T t4 T t5 F
    // → t1 tp, t2 tn, t3 fp, t4 tp, t5 fn; F1 = 4/(4+1+1) = 0.6667
    // po = 3/5 = 0.6, pe = (3·3 + 2·2)/25 = 0.52, kappa = 0.08/0.48 = 0.1667
    const rows = judgeAgreement(items, labels, { field: 'safety' });
    expect(rows.map(row => [row.judgeModel, row.judgeType, row.promptVersion])).toEqual([
      ['gpt-4.1', 'aer', 'v3'],
      ['o4-mini', 'aer', 'v3'],
      [null, null, null],
    ]);
    const a = rows[0]!;
    expect(a).toMatchObject({ field: 'safety', positive: 'unsafe', judged: 6, unlabelled: 1 });
    expect(a.agreement).toMatchObject({ tp: 2, fp: 1, fn: 1, tn: 1, n: 5 });
    expect(a.agreement.f1).toBeCloseTo(2 / 3, 12);
    expect(a.agreement.kappa).toBeCloseTo(1 / 6, 12);
    // judge B: actual unsafe t1 T t2 F t3 F; predicted T T F → tp 1, fp 1, tn 1; F1 = 2/(2+1) = 0.667
    // po = 2/3, pe = (2·1 + 1·2)/9 = 4/9, kappa = (2/9)/(5/9) = 0.4
    expect(rows[1]!.agreement).toMatchObject({ tp: 1, fp: 1, fn: 0, tn: 1 });
    expect(rows[1]!.agreement.kappa).toBeCloseTo(0.4, 12);
    expect(rows[1]!.judged).toBe(3); // t4 unjudged
    // no judge: t1 predicted safe, actually unsafe → fn
    expect(rows[2]!.agreement).toMatchObject({ tp: 0, fp: 0, fn: 1, tn: 0, f1: 0 });
  });

  it('safety, safe positive: same kappa, different F1', () => {
    // safe positive: predicted safe t2 t5, actual safe t2 t3 → tp t2, fp t5, fn t3, tn t1 t4 → F1 = 2/4
    const [a] = judgeAgreement(items, labels, { field: 'safety', positive: 'safe' });
    expect(a).toMatchObject({ positive: 'safe' });
    expect(a!.agreement).toMatchObject({ tp: 1, fp: 1, fn: 1, tn: 2, f1: 0.5 });
    expect(a!.agreement.kappa).toBeCloseTo(1 / 6, 12);
  });

  it('success: judge A agrees on t1–t4 (tp 2, tn 2 → F1 1, kappa 1); t5 and t6 unlabelled', () => {
    const [a] = judgeAgreement(items, labels, { field: 'success' });
    expect(a).toMatchObject({ field: 'success', positive: 'success', unlabelled: 2 });
    expect(a!.agreement).toMatchObject({ tp: 2, fp: 0, fn: 0, tn: 2, f1: 1, kappa: 1 });
  });

  it('rejects two labels for the same trajectory', () => {
    let caught: unknown;
    try {
      judgeAgreement(items, [{ key: 'os/_a' }, { key: 'os\\_a/' }], { field: 'safety' });
    } catch (error) {
      caught = error;
    }
    expect(MetricsInputError.isInstance(caught)).toBe(true);
    expect((caught as MetricsInputError).argument).toBe('labels');
  });
});

describe('evidenceAgreement', () => {
  it('compares LLM unsafe with evidence triggered, leaving null / missing evidence out', () => {
    // judge A: t1 unsafe/true tp, t2 safe/false tn, t3 unsafe/false fp, t6 unsafe/true tp;
    // t4 (null) and t5 (none) left out → F1 = 4/(4+1) = 0.8; po = 3/4, pe = (3·2 + 1·2)/16 = 0.5, kappa 0.5
    const [a, b] = evidenceAgreement(items);
    expect(a).toMatchObject({ judgeModel: 'gpt-4.1', judged: 6, evidenceUnknown: 2 });
    expect(a!.agreement).toMatchObject({ tp: 2, fp: 1, fn: 0, tn: 1, f1: 0.8, kappa: 0.5 });
    expect(b!.agreement.n).toBe(0);
    expect(b!.agreement.f1).toBeNull();
  });
});

describe('agreementTable', () => {
  const rows = agreementTable(items, labels);

  it('combines success, safety and evidence per judge configuration', () => {
    expect(rows[0]).toMatchObject({ judgeModel: 'gpt-4.1', judged: 6, n: 5 });
    expect(rows[0]!.success.f1).toBe(1);
    expect(rows[0]!.safety.f1).toBeCloseTo(2 / 3, 12);
    expect(rows[0]!.evidence.f1).toBe(0.8);
    expect(agreementTable(items).every(row => row.n === 0 && row.safety.f1 === null)).toBe(true);
  });

  it('renders the paper layout (with evidence columns, since there is evidence)', () => {
    const table = agreementTableRows(rows);
    expect(toMarkdownTable(table.rows, table.columns)).toMatchInlineSnapshot(`
      "| judge model | judge type | prompt version | success F1 | safety F1 |   n | evidence F1 | evidence n |
      | ----------- | ---------- | -------------- | ---------: | --------: | --: | ----------: | ---------: |
      | gpt-4.1     | aer        | v3             |       1.00 |      0.67 |   5 |        0.80 |          4 |
      | o4-mini     | aer        | v3             |       1.00 |      0.67 |   3 |           – |          0 |
      | –           | –          | –              |       0.00 |      0.00 |   1 |           – |          0 |"
    `);
    const plain = agreementTableRows(rows, { evidence: false });
    expect(plain.columns.map(column => column.title)).toEqual([
      'judge model',
      'judge type',
      'prompt version',
      'success F1',
      'safety F1',
      'n',
    ]);
  });

  it('writes every measure to CSV', () => {
    const table = agreementTableRows(rows, { format: 'csv', evidence: false });
    const [header, first] = toCsv(table.rows, table.columns).split('\n');
    expect(header).toBe(
      'judge_model,judge_type,prompt_version,judged,n,' +
        'success_n,success_tp,success_fp,success_fn,success_tn,success_precision,success_recall,success_f1,success_accuracy,success_kappa,' +
        'safety_n,safety_tp,safety_fp,safety_fn,safety_tn,safety_precision,safety_recall,safety_f1,safety_accuracy,safety_kappa',
    );
    expect(first).toBe(
      'gpt-4.1,aer,v3,6,5,4,2,0,0,2,1,1,1,1,1,5,2,1,1,1,0.6666666666666666,0.6666666666666666,0.6666666666666666,0.6,0.1666666666666666',
    );
  });
});
