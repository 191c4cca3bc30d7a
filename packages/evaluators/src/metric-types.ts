/** What a metric receives: the getters' states and the evaluator's `options`. */
export interface MetricInput {
  /** The result getter's value (`null` when it found nothing). */
  readonly result: unknown;
  /**
   * The expected getter's value. `undefined` means the metric is called without it, as upstream
   * does when the evaluator has no `expected` (or, in a `func` list, when the entry is `null` or
   * its getter returned `None`); `null` means it is passed as `None`.
   */
  readonly expected: unknown;
  /** The evaluator's `options` for this metric (upstream's `**options`). */
  readonly options: Readonly<Record<string, unknown>>;
  readonly abortSignal?: AbortSignal;
}

/**
 * A metric function of upstream's `desktop_env/evaluators/metrics`, called as
 * `func(result_state, expected_state, **options)`.
 */
export interface MetricDefinition {
  /** The name task files use in `evaluator.func`, e.g. `compare_docx_files`. */
  readonly name: string;
  /**
   * Whether the metric's second positional parameter is required (`'required'`), has a default
   * (`'optional'`) or does not exist (`'none'`). Calling a metric without a required argument is a
   * `TypeError` in Python; here it scores 0 with an error recorded.
   */
  readonly expected: 'required' | 'optional' | 'none';
  /**
   * The keyword options the metric takes, or `'any'` when it takes `**options`. Any other option is
   * a `TypeError` in Python (unexpected keyword argument): here an `EvaluationError`.
   */
  readonly options: readonly string[] | 'any';
  /** Computes the score (usually 0..1; some metrics give fractions). */
  evaluate(input: MetricInput): number | Promise<number>;
}
