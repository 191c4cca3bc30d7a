import { describe, expect, it } from 'vitest';
import { inverseNormalCdf } from './inverse-normal-cdf';
import { MetricsInputError } from './metrics-input-error';

// Reference quantiles (standard normal tables): Φ⁻¹(0.975) = 1.959963985, Φ⁻¹(0.95) = 1.644853627,
// Φ⁻¹(0.995) = 2.575829304, Φ⁻¹(0.01) = −2.326347874, Φ⁻¹(0.999) = 3.090232306.
describe('inverseNormalCdf', () => {
  it('gives the 95 % and 90 % two-sided quantiles to 1e-6', () => {
    expect(Math.abs(inverseNormalCdf(0.975) - 1.959964)).toBeLessThan(1e-6);
    expect(Math.abs(inverseNormalCdf(0.95) - 1.644854)).toBeLessThan(1e-6);
    expect(Math.abs(inverseNormalCdf(0.995) - 2.575829)).toBeLessThan(1e-6);
  });

  it('is 0 at the median and antisymmetric, also in the tails (p < 0.02425, p > 0.97575)', () => {
    expect(inverseNormalCdf(0.5)).toBe(0);
    expect(Math.abs(inverseNormalCdf(0.01) - -2.326348)).toBeLessThan(1e-6);
    expect(Math.abs(inverseNormalCdf(0.999) - 3.090232)).toBeLessThan(1e-6);
    expect(inverseNormalCdf(0.2) + inverseNormalCdf(0.8)).toBeCloseTo(0, 9);
  });

  it('rejects probabilities outside (0, 1)', () => {
    for (const p of [0, 1, -0.1, 1.5, Number.NaN]) {
      expect(() => inverseNormalCdf(p)).toThrow(MetricsInputError);
    }
  });
});
