import { describe, expect, it } from 'vitest';
import { formatFixed, formatPercent } from './python-format';

describe('formatFixed (Python f"{x:.nf}")', () => {
  it('rounds exact binary ties to even, as Python does (toFixed would round up)', () => {
    expect((0.125).toFixed(2)).toBe('0.13'); // the JavaScript behaviour being corrected
    expect(formatFixed(0.125, 2)).toBe('0.12');
    expect(formatFixed(0.375, 2)).toBe('0.38');
    expect(formatFixed(2.5, 0)).toBe('2');
    expect(formatFixed(3.5, 0)).toBe('4');
    expect(formatFixed(-0.125, 2)).toBe('-0.12');
    expect(formatFixed(12.25, 1)).toBe('12.2');
  });

  it('matches toFixed away from ties', () => {
    expect(formatFixed(1.005, 2)).toBe('1.00'); // 1.005 is 1.00499999999999989… in binary
    expect(formatFixed(743.21 / 60, 1)).toBe('12.4'); // 12.386833…
    expect(formatFixed(4.95, 2)).toBe('4.95');
    expect(formatFixed(0, 1)).toBe('0.0');
  });

  it('formats fractions as Python "{:.1%}"', () => {
    expect(formatPercent(89 / 148)).toBe('60.1%'); // 0.601351…
    expect(formatPercent(71 / 148)).toBe('48.0%'); // 0.479729…
    expect(formatPercent(1)).toBe('100.0%');
  });
});
