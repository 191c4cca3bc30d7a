import { describe, expect, it } from 'vitest';
import { agreementFromCounts, binaryAgreement, type BinaryPair } from './binary-agreement';
import { MetricsInputError } from './metrics-input-error';

const pairs = (count: number, predicted: boolean, actual: boolean): BinaryPair[] =>
  Array.from({ length: count }, () => ({ predicted, actual }));

describe('binaryAgreement', () => {
  it('tp=20 fp=5 fn=10 tn=15: precision 0.8, recall 0.667, F1 0.727, accuracy 0.7, kappa 0.4', () => {
    // n = 50; precision = 20/25 = 0.8; recall = 20/30 = 0.6667; F1 = 2·20/(2·20+5+10) = 40/55 = 0.72727
    // po = (20+15)/50 = 0.7; predicted positive 25, actual positive 30
    // pe = (25·30 + 25·20)/50² = (750 + 500)/2500 = 0.5; kappa = (0.7 − 0.5)/(1 − 0.5) = 0.4
    const result = binaryAgreement([
      ...pairs(20, true, true),
      ...pairs(5, true, false),
      ...pairs(10, false, true),
      ...pairs(15, false, false),
    ]);
    expect(result).toMatchObject({ tp: 20, fp: 5, fn: 10, tn: 15, n: 50 });
    expect(result.precision).toBeCloseTo(0.8, 12);
    expect(result.recall).toBeCloseTo(2 / 3, 12);
    expect(result.f1).toBeCloseTo(40 / 55, 12);
    expect(result.f1).toBeCloseTo(0.7273, 4);
    expect(result.accuracy).toBeCloseTo(0.7, 12);
    expect(result.kappa).toBeCloseTo(0.4, 12);
  });

  it('tp=3 fp=1 fn=1 tn=0: kappa is negative (worse than chance)', () => {
    // po = 3/5 = 0.6; pe = (4·4 + 1·1)/25 = 17/25 = 0.68; kappa = (0.6 − 0.68)/0.32 = −0.25
    const result = agreementFromCounts({ tp: 3, fp: 1, fn: 1, tn: 0 });
    expect(result.kappa).toBeCloseTo(-0.25, 12);
    expect(result.f1).toBeCloseTo(6 / 8, 12); // 2·3/(6+1+1)
  });

  it('all negative on both sides: precision, recall, F1 and kappa undefined; accuracy 1', () => {
    // tp = fp = fn = 0 → every positive-class ratio has denominator 0; pe = (0 + 4·4)/16 = 1 → kappa null
    expect(binaryAgreement(pairs(4, false, false))).toEqual({
      tp: 0,
      fp: 0,
      fn: 0,
      tn: 4,
      n: 4,
      precision: null,
      recall: null,
      f1: null,
      accuracy: 1,
      kappa: null,
    });
  });

  it('predicting all negative against some positives: precision null, recall 0, F1 0, kappa 0', () => {
    // tp=0 fp=0 fn=2 tn=3: F1 = 0/(0+0+2) = 0; po = 0.6, pe = (0·2 + 5·3)/25 = 0.6 → kappa 0
    const result = agreementFromCounts({ tp: 0, fp: 0, fn: 2, tn: 3 });
    expect(result.precision).toBeNull();
    expect(result.recall).toBe(0);
    expect(result.f1).toBe(0);
    expect(result.kappa).toBeCloseTo(0, 12);
  });

  it('perfect agreement with both classes: everything 1', () => {
    // po = 1; pe = (2·2 + 3·3)/25 = 13/25; kappa = (1 − 0.52)/(0.48) = 1
    const result = agreementFromCounts({ tp: 2, fp: 0, fn: 0, tn: 3 });
    expect([result.precision, result.recall, result.f1, result.accuracy]).toEqual([1, 1, 1, 1]);
    expect(result.kappa).toBeCloseTo(1, 12);
  });

  it('is all null for no pairs', () => {
    expect(binaryAgreement([])).toEqual({
      tp: 0,
      fp: 0,
      fn: 0,
      tn: 0,
      n: 0,
      precision: null,
      recall: null,
      f1: null,
      accuracy: null,
      kappa: null,
    });
  });

  it('rejects negative or fractional counts, naming the count', () => {
    let caught: unknown;
    try {
      agreementFromCounts({ tp: 1, fp: -1, fn: 0, tn: 0 });
    } catch (error) {
      caught = error;
    }
    expect(MetricsInputError.isInstance(caught)).toBe(true);
    expect((caught as MetricsInputError).argument).toBe('fp');
    expect(() => agreementFromCounts({ tp: 0.5, fp: 0, fn: 0, tn: 0 })).toThrow(
      'tp must be a non-negative integer, got 0.5',
    );
  });
});
