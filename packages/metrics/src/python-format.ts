/**
 * @internal `value` with `digits` decimals as Python's `f"{value:.{digits}f}"` writes it. Both
 * round the exact binary value, but at an exact tie (0.125 → 2 digits) JavaScript's `toFixed`
 * rounds up and Python to even; this follows Python.
 */
export function formatFixed(value: number, digits: number): string {
  const rounded = value.toFixed(digits);
  if (!Number.isFinite(value) || Math.abs(value) >= 1e21) return rounded;
  // toFixed(100) is the exact decimal expansion of any double we print (ties end in 5 then 0s).
  const exact = Math.abs(value).toFixed(100);
  const point = exact.indexOf('.');
  const rest = exact.slice(point + 1 + digits);
  if (!/^50*$/.test(rest)) return rounded;
  const kept = exact.slice(0, point + 1 + digits).replace(/\.$/, '');
  const lastDigit = Number(kept[kept.length - 1]);
  if (lastDigit % 2 === 1) return rounded; // rounding up reaches the even digit, as toFixed did
  return `${value < 0 ? '-' : ''}${kept}`;
}

/** @internal `fraction` as Python's `f"{fraction:.1%}"` writes it, e.g. `0.601` → `60.1%`. */
export function formatPercent(fraction: number, digits = 1): string {
  return `${formatFixed(fraction * 100, digits)}%`;
}
