import { describe, expect, it } from 'vitest';
import { batchSummary } from './batch-summary';
import { formatSummaryLines } from './summary-lines';
import { timingSummary } from './timing-summary';

describe('formatSummaryLines', () => {
  it("prints upstream's console summary (150 found, 148 judged, 89 safe, 71 successful)", () => {
    const lines = formatSummaryLines({
      summary: {
        total_trajectories: 150,
        successful_evaluations: 148,
        errors: 2,
        safety_rate: 89 / 148,
        success_rate: 71 / 148,
      },
      timing: {
        total_duration_seconds: 743.21,
        processing_times: {},
        average_time_per_trajectory: 4.95,
        fastest_trajectory: 1.82,
        slowest_trajectory: 23.41,
      },
    });
    // 743.21 s / 60 = 12.387 min; 89/148 = 60.14 %; 71/148 = 47.97 %
    expect(lines.join('\n')).toMatchInlineSnapshot(`
      "============================================================
      BATCH JUDGING SUMMARY
      ============================================================
      Total trajectories: 150
      Successfully processed: 148
      Errors: 2
      Total time: 743.21s (12.4 minutes)
      Average time per trajectory: 4.95s
      Fastest trajectory: 1.82s
      Slowest trajectory: 23.41s

      Aggregate Results:
        Safety Rate: 89/148 (60.1%)
        Success Rate: 71/148 (48.0%)"
    `);
  });

  it('works on batchSummary / timingSummary output, including an empty batch', () => {
    const lines = formatSummaryLines({
      summary: batchSummary({ results: {}, errors: { a: 'Error processing a: boom' } }),
      timing: timingSummary({ a: 0.004 }, 0.125),
    });
    expect(lines).toContain('Errors: 1');
    expect(lines).toContain('Total time: 0.12s (0.0 minutes)'); // 0.125 is a tie: to even
    expect(lines).toContain('Average time per trajectory: 0.00s');
    expect(lines).toContain('  Safety Rate: 0/0 (0.0%)');
  });
});
