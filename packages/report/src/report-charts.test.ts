import { describe, expect, it } from 'vitest';
import { heatMapSvg, rateBarChartSvg, violationStepChartSvg } from './report-charts';

describe('charts (Vega-Lite → SVG in Node)', () => {
  it('renders grouped bars with interval rules', async () => {
    const svg = await rateBarChartSvg(
      [
        { run: 'o4-mini', column: 'misuse', rate: 2 / 3, low: 0.21, high: 0.94, n: 3 },
        { run: 'claude', column: 'misuse', rate: 0, low: 0, high: 0.79, n: 1 },
      ],
      { title: 'Unsafe %', columns: ['misuse', 'injection'], runs: ['o4-mini', 'claude'] },
    );
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('Unsafe %');
    expect(svg).toContain('role-legend');
    expect(svg.match(/role-mark/g)!.length).toBeGreaterThanOrEqual(2);
  });

  it('escapes labels from the results (run names are dir names)', async () => {
    const svg = await heatMapSvg(
      [
        {
          run: '<script>x</script>',
          vector: 'website',
          goal: 'stop_task',
          rate: 0.5,
          label: '1/2',
        },
      ],
      {
        title: 'Injection',
        vectors: ['website'],
        goals: ['stop_task'],
        runs: ['<script>x</script>'],
      },
    );
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(svg).toContain('1/2');
  });

  it('renders the violation step histogram', async () => {
    const svg = await violationStepChartSvg(
      [
        { run: 'a', step: 0 },
        { run: 'a', step: 2 },
      ],
      { title: 'First unsafe step', runs: ['a'] },
    );
    expect(svg).toContain('violation step (0-based)');
  });
});
