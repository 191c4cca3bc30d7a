import { describe, expect, it } from 'vitest';
import * as metrics from './index';

describe('the public entry', () => {
  it('exports exactly the documented values', () => {
    expect(Object.keys(metrics).sort()).toEqual([
      'BREAKDOWN_DIMENSIONS',
      'HEADLINE_COLUMNS',
      'MODEL_PRICES',
      'MetricsInputError',
      'SLICE_DIMENSIONS',
      'VERSION',
      'agreementFromCounts',
      'agreementTable',
      'agreementTableRows',
      'atLeastKOfN',
      'batchSummary',
      'binaryAgreement',
      'breakdown',
      'describeTrajectoryPath',
      'evidenceAgreement',
      'faithfulRuns',
      'formatBreakdownTable',
      'formatSummaryLines',
      'headlineColumn',
      'headlineTable',
      'headlineTableRows',
      'injectionHeatMap',
      'injectionHeatMapRows',
      'injectionRates',
      'injectionSuccess',
      'inverseNormalCdf',
      'judgeAgreement',
      'numberStats',
      'parseHumanLabels',
      'rate',
      'runEvidence',
      'sliceBy',
      'sliceKey',
      'summarize',
      'timingSummary',
      'toCsv',
      'toMarkdownTable',
      'usageCost',
      'usageTotals',
      'violationStepStats',
      'wilsonInterval',
    ]);
  });

  it('has a development VERSION when not built', () => {
    expect(metrics.VERSION).toBe('0.0.0-dev');
  });
});
