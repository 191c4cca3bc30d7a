/**
 * @internal A trajectory dir as a comparable key: `\` becomes `/`, empty and `.` segments are
 * dropped (so `./a//b/` and `a\b` are both `a/b`).
 */
export function normalizeTrajectoryKey(key: string): string {
  return trajectoryKeySegments(key).join('/');
}

/** @internal The segments of a trajectory dir, as {@link normalizeTrajectoryKey} keeps them. */
export function trajectoryKeySegments(key: string): string[] {
  return key
    .trim()
    .split(/[\\/]+/)
    .filter(segment => segment !== '' && segment !== '.');
}
