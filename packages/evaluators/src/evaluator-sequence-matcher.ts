/**
 * Python's `difflib.SequenceMatcher(None, a, b).ratio()` (used by upstream's `diff_text_file` on
 * lists of lines): `2·M / (|a| + |b|)` where M is the total size of the matching blocks found by
 * the Ratcliff/Obershelp recursion, with difflib's "autojunk" heuristic (when |b| ≥ 200, elements
 * occurring more than |b|/100 + 1 times in `b` are not used to seed matches). Returns 1 when both
 * sequences are empty. The block search mirrors `find_longest_match` step by step, so ties resolve
 * the same way and the ratio is identical.
 */
export function sequenceMatcherRatio(a: readonly string[], b: readonly string[]): number {
  const total = a.length + b.length;
  if (total === 0) return 1;
  return (2 * matchingCharacters(a, b)) / total;
}

function matchingCharacters(a: readonly string[], b: readonly string[]): number {
  // b2j: element → ascending indices in b, minus the "popular" elements
  const b2j = new Map<string, number[]>();
  b.forEach((element, index) => {
    const indices = b2j.get(element);
    if (indices) indices.push(index);
    else b2j.set(element, [index]);
  });
  if (b.length >= 200) {
    const limit = Math.floor(b.length / 100) + 1;
    for (const [element, indices] of [...b2j]) {
      if (indices.length > limit) b2j.delete(element);
    }
  }

  const findLongestMatch = (
    aLow: number,
    aHigh: number,
    bLow: number,
    bHigh: number,
  ): [number, number, number] => {
    let bestI = aLow;
    let bestJ = bLow;
    let bestSize = 0;
    let lengths = new Map<number, number>();
    for (let i = aLow; i < aHigh; i++) {
      const next = new Map<number, number>();
      for (const j of b2j.get(a[i] as string) ?? []) {
        if (j < bLow) continue;
        if (j >= bHigh) break;
        const k = (lengths.get(j - 1) ?? 0) + 1;
        next.set(j, k);
        if (k > bestSize) {
          bestI = i - k + 1;
          bestJ = j - k + 1;
          bestSize = k;
        }
      }
      lengths = next;
    }
    // extend over equal elements (popular ones included; there is no isjunk)
    while (bestI > aLow && bestJ > bLow && a[bestI - 1] === b[bestJ - 1]) {
      bestI--;
      bestJ--;
      bestSize++;
    }
    while (
      bestI + bestSize < aHigh &&
      bestJ + bestSize < bHigh &&
      a[bestI + bestSize] === b[bestJ + bestSize]
    ) {
      bestSize++;
    }
    return [bestI, bestJ, bestSize];
  };

  let matches = 0;
  const queue: Array<[number, number, number, number]> = [[0, a.length, 0, b.length]];
  while (queue.length > 0) {
    const [aLow, aHigh, bLow, bHigh] = queue.pop() as [number, number, number, number];
    const [i, j, k] = findLongestMatch(aLow, aHigh, bLow, bHigh);
    if (k === 0) continue;
    matches += k;
    if (aLow < i && bLow < j) queue.push([aLow, i, bLow, j]);
    if (i + k < aHigh && j + k < bHigh) queue.push([i + k, aHigh, j + k, bHigh]);
  }
  return matches;
}
