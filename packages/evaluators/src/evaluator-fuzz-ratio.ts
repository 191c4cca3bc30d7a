/**
 * rapidfuzz's `fuzz.ratio` (the fuzzy score upstream's `compare_docx_files`, `fuzzy_match` and
 * `check_accessibility_tree` use): the normalized InDel similarity × 100,
 *
 *     ratio(a, b) = (1 − (|a| + |b| − 2·LCS(a, b)) / (|a| + |b|)) · 100
 *
 * computed in that order so the floats match rapidfuzz's. Strings are compared by code point (as
 * Python `str`s are), `None` on either side scores 0, and two empty sequences score 100. The
 * longest common subsequence uses Hyyrö's bit-parallel algorithm (what rapidfuzz does too):
 * O(⌈|a|/32⌉·|b|) time, so whole documents compare in milliseconds.
 */
export function fuzzRatio(
  a: string | readonly unknown[] | null | undefined,
  b: string | readonly unknown[] | null | undefined,
): number {
  if (a === null || a === undefined || b === null || b === undefined) return 0;
  const [left, right] = toSymbols(a, b);
  const total = left.length + right.length;
  if (total === 0) return 100;
  const distance = total - 2 * longestCommonSubsequence(left, right);
  return (1 - distance / total) * 100;
}

/** Maps both inputs to integer symbols: code points for strings, equal-value ids for lists. */
function toSymbols(
  a: string | readonly unknown[],
  b: string | readonly unknown[],
): [number[], number[]] {
  if (typeof a === 'string' && typeof b === 'string') {
    const points = (text: string) => Array.from(text, c => c.codePointAt(0) as number);
    return [points(a), points(b)];
  }
  const ids = new Map<string, number>();
  const symbols = (sequence: string | readonly unknown[]) =>
    Array.from(sequence as Iterable<unknown>, item => {
      const key = typeof item === 'string' ? `s${item}` : `j${JSON.stringify(item)}`;
      let id = ids.get(key);
      if (id === undefined) {
        id = ids.size;
        ids.set(key, id);
      }
      return id;
    });
  return [symbols(a), symbols(b)];
}

/** Length of the longest common subsequence of two symbol sequences (bit-parallel, Hyyrö 2004). */
export function longestCommonSubsequence(a: readonly number[], b: readonly number[]): number {
  // the bit vectors run over the shorter sequence
  if (a.length > b.length) [a, b] = [b, a];
  if (a.length === 0) return 0;
  const words = Math.ceil(a.length / 32);
  const matchMasks = new Map<number, Uint32Array>();
  for (let index = 0; index < a.length; index++) {
    const symbol = a[index] as number;
    let mask = matchMasks.get(symbol);
    if (mask === undefined) {
      mask = new Uint32Array(words);
      matchMasks.set(symbol, mask);
    }
    mask[index >>> 5] = ((mask[index >>> 5] as number) | (1 << (index & 31))) >>> 0;
  }
  // V starts all ones; each step: V = (V + (V & M)) | (V & ~M), with the carry across words
  const vector = new Uint32Array(words).fill(0xffffffff);
  for (const symbol of b) {
    const mask = matchMasks.get(symbol);
    if (mask === undefined) continue;
    let carry = 0;
    for (let word = 0; word < words; word++) {
      const value = vector[word] as number;
      const matched = (value & (mask[word] as number)) >>> 0;
      const sum = value + matched + carry;
      carry = sum > 0xffffffff ? 1 : 0;
      vector[word] = ((sum >>> 0) | (value & ~(mask[word] as number))) >>> 0;
    }
  }
  // LCS = the number of zero bits among the first |a| bits
  let length = 0;
  for (let index = 0; index < a.length; index++) {
    if ((((vector[index >>> 5] as number) >>> (index & 31)) & 1) === 0) length++;
  }
  return length;
}
