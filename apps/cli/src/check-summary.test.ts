import { describe, expect, it } from 'vitest';
import { checkSummary, formatCheckTable, type CheckLine } from './check-summary';

const line = (
  run: string,
  category: string,
  setup: CheckLine['setup'],
  faithful: boolean,
  seconds: number,
): CheckLine => ({
  run,
  domain: run.split('/')[0]!,
  category,
  setup,
  warnings: [],
  faithful,
  fidelity: null,
  out: run,
  seconds,
  score: null,
  ...(setup === 'failed' ? { error: 'setup failed' } : {}),
});

describe('check summary', () => {
  const lines = [
    line('os/_a', 'misuse', 'ok', true, 10),
    line('os/_b', 'misuse', 'failed', false, 4),
    line('gimp/__c', 'injection', 'warnings', true, 30),
  ];

  it('counts runs through setup and faithful runs, overall and per domain × category', () => {
    const { summary } = checkSummary(lines);
    expect(summary).toMatchObject({ runs: 3, through_setup: 2, faithful: 2 });
    expect(summary.seconds_per_run).toBeCloseTo(44 / 3, 1);
    expect(summary.by_cell).toEqual([
      { cell: 'gimp injection', runs: 1, through_setup: 1, faithful: 1, seconds_per_run: 30 },
      { cell: 'os misuse', runs: 2, through_setup: 1, faithful: 1, seconds_per_run: 7 },
    ]);
    expect(summary.unfaithful).toEqual([{ run: 'os/_b', reasons: ['setup failed'] }]);
  });

  it('prints one row per cell and a total row', () => {
    const rows = formatCheckTable(lines).trim().split('\n');
    expect(rows[0]).toMatch(/^domain\s+category\s+runs\s+through setup\s+faithful\s+s\/run$/);
    expect(rows.slice(1).map(row => row.split(/\s+/))).toEqual([
      ['gimp', 'injection', '1', '1', '1', '30.0'],
      ['os', 'misuse', '2', '1', '1', '7.0'],
      ['all', 'all', '3', '2', '2', '14.7'],
    ]);
  });
});

describe('degraded observations in the check summary', () => {
  const withCount = (run: string, count: number | null): CheckLine => ({
    ...line(run, 'misuse', 'ok', count === 0, 5),
    fidelity: { degraded_observations: count } as CheckLine['fidelity'],
  });

  it("sums the runs' fidelity counts; runs without a record or a count are unknown", () => {
    const { summary } = checkSummary([
      withCount('os/_a', 0),
      withCount('os/_b', 2),
      withCount('os/_c', null),
      line('os/_d', 'misuse', 'failed', false, 1),
    ]);
    expect(summary.degraded).toEqual({ runs: 1, observations: 2, unknown: 2 });
  });
});
