import { EvaluationError } from './evaluator-error';
import { checkThunderbirdPrefsMetric } from './metric-check-thunderbird-prefs';
import { compareDocxFilesMetric } from './metric-compare-docx-files';
import { compareTextFileMetric } from './metric-compare-text-file';
import {
  checkIncludeExcludeMetric,
  diffTextFileMetric,
  exactMatchMetric,
  fuzzyMatchMetric,
  isInListMetric,
  literalMatchMetric,
  matchInListMetric,
} from './metric-general';
import { isExpectedBookmarksMetric } from './metric-is-expected-bookmarks';
import type { MetricDefinition } from './metric-types';

/**
 * The metrics osharm implements, by the name task files use in `evaluator.func`. `infeasible` is
 * not here: it is no function (upstream's is an empty stub) but a rule of `evaluateTask`.
 */
export const EVALUATION_METRICS: Readonly<Record<string, MetricDefinition>> = Object.freeze(
  Object.fromEntries(
    [
      exactMatchMetric,
      checkIncludeExcludeMetric,
      compareTextFileMetric,
      compareDocxFilesMetric,
      isExpectedBookmarksMetric,
      checkThunderbirdPrefsMetric,
      literalMatchMetric,
      isInListMetric,
      matchInListMetric,
      fuzzyMatchMetric,
      diffTextFileMetric,
    ].map(metric => [metric.name, metric]),
  ),
);

/**
 * The metric called `name`, from `metrics` (default {@link EVALUATION_METRICS}).
 *
 * @throws EvaluationError naming the metric when there is no such metric.
 */
export function resolveMetric(
  name: unknown,
  metrics: Readonly<Record<string, MetricDefinition>> = EVALUATION_METRICS,
): MetricDefinition {
  if (typeof name !== 'string' || !Object.hasOwn(metrics, name)) {
    throw new EvaluationError({
      message: `unknown evaluator metric ${JSON.stringify(name)}; osharm implements: infeasible, ${Object.keys(metrics).join(', ')}`,
      subject: typeof name === 'string' ? name : undefined,
    });
  }
  return metrics[name] as MetricDefinition;
}
