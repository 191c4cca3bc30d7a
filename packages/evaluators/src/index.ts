// @osharm/evaluators: OSWorld's task evaluators — getters, metrics, upstream's Python-value semantics.
// `evaluateTask` is a `TaskEvaluator` (the contract lives in @osharm/desktop-env):
// createDesktopEnv({ provider, evaluator: evaluateTask }).

export { evaluateTask, isFailAction } from './evaluate-task';
export type { EvaluateTaskOptions } from './evaluate-task';
export { EvaluationError } from './evaluator-error';
export { EVALUATION_GETTERS, resolveGetter } from './getter-registry';
export type {
  EvaluationGuest,
  Getter,
  GetterConfigInput,
  GetterContext,
  WithheldFile,
} from './getter-types';
export { EVALUATION_METRICS, resolveMetric } from './metric-registry';
export type { MetricDefinition, MetricInput } from './metric-types';
export { fuzzRatio } from './evaluator-fuzz-ratio';
export { matchValueToRule } from './metric-match-value-to-rule';
export { VERSION } from './version';
