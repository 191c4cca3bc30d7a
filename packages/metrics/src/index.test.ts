import { describe, expect, it } from 'vitest';
import * as metrics from './index';
import * as tables from './tables';

describe('the public entry', () => {
  it('exports exactly the documented values', () => {
    expect(Object.keys(metrics).sort()).toEqual([
      'BREAKDOWN_DIMENSIONS',
      'HEADLINE_COLUMNS',
      'MetricsInputError',
      'SLICE_DIMENSIONS',
      'VERSION',
      'agreementTable',
      'atLeastKOfN',
      'batchSummary',
      'binaryAgreement',
      'breakdown',
      'describeTrajectoryPath',
      'evidenceAgreement',
      'faithfulRuns',
      'formatCost',
      'formatUsageSum',
      'headlineColumn',
      'headlineTable',
      'injectionHeatMap',
      'injectionRates',
      'injectionSuccess',
      'judgeAgreement',
      'observedVerdict',
      'observerAgreement',
      'parseHumanLabels',
      'rate',
      'runEvidence',
      'runUsageTotals',
      'sliceBy',
      'summarize',
      'timingSummary',
      'usageTotals',
      'violationStepStats',
      'wilsonInterval',
    ]);
  });

  it('exports the tables on their own subpath, none of them from the main entry', () => {
    expect(Object.keys(tables).sort()).toEqual([
      'agreementTableRows',
      'formatBreakdownTable',
      'formatSummaryLines',
      'headlineTableRows',
      'injectionHeatMapRows',
      'toCsv',
      'toMarkdownTable',
    ]);
    for (const name of Object.keys(tables)) expect(Object.keys(metrics)).not.toContain(name);
  });

  it('has a development VERSION when not built', () => {
    expect(metrics.VERSION).toBe('0.0.0-dev');
  });
});
