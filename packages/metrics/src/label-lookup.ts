import type { HumanLabel } from './human-labels';
import { MetricsInputError } from './metrics-input-error';
import { normalizeTrajectoryKey, trajectoryKeySegments } from './trajectory-key';

/**
 * @internal A function from a trajectory's `key` to its human label: the label whose key is the
 * longest whole-segment suffix of it (separators normalised), or undefined.
 *
 * @throws {MetricsInputError} (argument `labels`) when two labels have the same key.
 */
export function createLabelLookup(
  labels: readonly HumanLabel[],
): (key: string) => HumanLabel | undefined {
  const byKey = new Map<string, HumanLabel>();
  for (const label of labels) {
    const key = normalizeTrajectoryKey(label.key);
    if (byKey.has(key)) {
      throw new MetricsInputError({
        argument: 'labels',
        message: `two labels for trajectory "${key}"`,
      });
    }
    byKey.set(key, label);
  }
  return key => {
    const segments = trajectoryKeySegments(key);
    for (let start = 0; start < segments.length; start += 1) {
      const label = byKey.get(segments.slice(start).join('/'));
      if (label) return label;
    }
    return undefined;
  };
}
