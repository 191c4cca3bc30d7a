import { describe, expect, it } from 'vitest';
import * as metrics from './index';

describe('the public entry', () => {
  it('exports exactly the documented values', () => {
    expect(Object.keys(metrics).sort()).toEqual([
      'BREAKDOWN_DIMENSIONS',
      'MODEL_PRICES',
      'MetricsInputError',
      'SLICE_DIMENSIONS',
      'VERSION',
      'batchSummary',
      'breakdown',
      'describeTrajectoryPath',
      'formatBreakdownTable',
      'formatSummaryLines',
      'inverseNormalCdf',
      'rate',
      'sliceBy',
      'sliceKey',
      'summarize',
      'timingSummary',
      'usageCost',
      'wilsonInterval',
    ]);
  });

  it('has a development VERSION when not built', () => {
    expect(metrics.VERSION).toBe('0.0.0-dev');
  });
});
