/** Count, mean, median, minimum and maximum of some numbers; the statistics are null when empty. */
export interface NumberStats {
  readonly count: number;
  readonly mean: number | null;
  /** The middle value, or the mean of the two middle values for an even count. */
  readonly median: number | null;
  readonly min: number | null;
  readonly max: number | null;
}

/** {@link NumberStats} of `values` (not modified). */
export function numberStats(values: readonly number[]): NumberStats {
  const count = values.length;
  if (count === 0) return { count, mean: null, median: null, min: null, max: null };
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(count / 2);
  return {
    count,
    mean: sorted.reduce((sum, value) => sum + value, 0) / count,
    median: count % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2,
    min: sorted[0]!,
    max: sorted[count - 1]!,
  };
}
