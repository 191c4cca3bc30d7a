import { describe, expect, it } from 'vitest';
import { sequenceMatcherRatio } from './evaluator-sequence-matcher';

// expected values are CPython 3.11 difflib.SequenceMatcher(a=…, b=…).ratio()
describe('sequenceMatcherRatio (difflib)', () => {
  it('matches difflib on small sequences', () => {
    expect(sequenceMatcherRatio(Array.from('abcd'), Array.from('bcde'))).toBe(0.75);
    expect(sequenceMatcherRatio(['a', 'b', 'c'], ['a', 'c'])).toBe(0.8);
    expect(
      sequenceMatcherRatio(['one', 'two', 'three', 'four'], ['one', 'three', 'two', 'four']),
    ).toBe(0.75);
  });

  it('gives 1 for two empty sequences and 0 against an empty one', () => {
    expect(sequenceMatcherRatio([], [])).toBe(1);
    expect(sequenceMatcherRatio(['a'], [])).toBe(0);
  });

  it('applies the autojunk heuristic when b has 200+ elements', () => {
    const b = [
      ...Array.from({ length: 150 }, () => 'x'),
      ...Array.from({ length: 60 }, (_, i) => `l${i}`),
    ];
    const a = [
      ...Array.from({ length: 3 }, () => 'x'),
      ...Array.from({ length: 30 }, (_, i) => `l${i * 2}`),
    ];
    expect(sequenceMatcherRatio(a, b)).toBe(0.2716049382716049);
    const a2 = [
      ...Array.from({ length: 60 }, (_, i) => `l${i}`),
      ...Array.from({ length: 5 }, () => 'x'),
    ];
    expect(sequenceMatcherRatio(a2, b)).toBe(0.43636363636363634);
  });
});
