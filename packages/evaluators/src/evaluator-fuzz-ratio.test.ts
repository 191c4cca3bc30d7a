import { describe, expect, it } from 'vitest';
import { fuzzRatio, longestCommonSubsequence } from './evaluator-fuzz-ratio';

/** Textbook O(n·m) LCS, the reference for the bit-parallel one. */
function referenceLcs(a: readonly number[], b: readonly number[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number;
      row[j] = x === b[j - 1] ? diagonal + 1 : Math.max(above, row[j - 1] as number);
      diagonal = above;
    }
  }
  return row[b.length] as number;
}

/** Small deterministic PRNG (mulberry32) for the property checks. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('fuzzRatio (rapidfuzz fuzz.ratio)', () => {
  it('matches hand-computed normalized InDel similarities', () => {
    // "abc"/"abd": LCS 2, lensum 6, distance 2 → (1 − 2/6) · 100
    expect(fuzzRatio('abc', 'abd')).toBe(66.66666666666667);
    // "kitten"/"sitting": LCS "ittn" = 4, lensum 13, distance 5
    expect(fuzzRatio('kitten', 'sitting')).toBe(61.53846153846154);
    // rapidfuzz's documented example
    expect(fuzzRatio('this is a test', 'this is a test!')).toBe(96.55172413793103);
    // LCS "uzzy" + " " + "uzzy" + " was a bear" = 20 of 44
    expect(fuzzRatio('fuzzy wuzzy was a bear', 'wuzzy fuzzy was a bear')).toBe(90.9090909090909);
    expect(fuzzRatio('same', 'same')).toBe(100);
    expect(fuzzRatio('abc', 'xyz')).toBe(0);
  });

  it('handles empty strings and None as rapidfuzz does', () => {
    expect(fuzzRatio('', '')).toBe(100);
    expect(fuzzRatio('', 'a')).toBe(0);
    expect(fuzzRatio(null, 'a')).toBe(0);
    expect(fuzzRatio('a', undefined)).toBe(0);
    expect(fuzzRatio(null, null)).toBe(0);
  });

  it('compares code points, not UTF-16 units', () => {
    // 3 code points each, 2 in common → 66.67 (UTF-16 units would give 75)
    expect(fuzzRatio('a😀b', 'a😀c')).toBe(66.66666666666667);
    expect(fuzzRatio('😀', '😁')).toBe(0);
  });

  it('compares lists element by element', () => {
    expect(fuzzRatio(['a', 'b', 'c'], ['a', 'x', 'c'])).toBe(66.66666666666667);
    expect(fuzzRatio([1, 2], [1, 2])).toBe(100);
  });

  it('agrees with the textbook LCS across word boundaries (32, 64, 100+ symbols)', () => {
    const next = random(42);
    for (let round = 0; round < 300; round++) {
      const length = (bound: number) => Math.floor(next() * bound);
      const alphabet = 2 + length(6);
      const a = Array.from({ length: length(140) }, () => length(alphabet));
      const b = Array.from({ length: length(140) }, () => length(alphabet));
      expect(longestCommonSubsequence(a, b)).toBe(referenceLcs(a, b));
    }
  });

  it('scores long documents quickly and exactly', () => {
    const base = 'The quarterly report was received by the board. '.repeat(200);
    const edited = base.replace(/received/g, 'recieved');
    // 200 transpositions "ei"→"ie": each costs one deletion + one insertion
    const total = base.length + edited.length;
    expect(fuzzRatio(base, edited)).toBe((1 - 400 / total) * 100);
  });
});
