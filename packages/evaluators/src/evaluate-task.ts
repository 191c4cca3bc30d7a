import type { Evaluator } from '@osharm/task-schema';
import type {
  EvaluationIssue,
  EvaluationResult,
  MetricScore,
  TaskEvaluationInput,
} from '@osharm/desktop-env';
import { EvaluationError } from './evaluator-error';
import { resolveGetter } from './getter-registry';
import type {
  EvaluationGuest,
  Getter,
  GetterConfigInput,
  GetterContext,
  WithheldFile,
} from './getter-types';
import { resolveMetric } from './metric-registry';
import type { MetricDefinition } from './metric-types';

/** Options of {@link evaluateTask}: the {@link TaskEvaluationInput} plus test and tuning knobs. */
export interface EvaluateTaskOptions extends Omit<TaskEvaluationInput, 'client'> {
  /** The guest of the environment that ran the task (only the calls the getters make). */
  readonly client: EvaluationGuest;
  /** See {@link GetterContext.chromeProfileDir}. */
  readonly chromeProfileDir?: string;
  /** The clock of `vm_file`'s `time_suffix`. @default () => new Date() */
  readonly now?: () => Date;
  /** Getters by type. @default EVALUATION_GETTERS */
  readonly getters?: Readonly<Record<string, Getter>>;
  /** Metrics by name. @default EVALUATION_METRICS */
  readonly metrics?: Readonly<Record<string, MetricDefinition>>;
}

/** Upstream's FAIL test: the string `FAIL` or (U26) a dict whose `action_type` is `FAIL`. */
export function isFailAction(action: unknown): boolean {
  return (
    action === 'FAIL' ||
    (typeof action === 'object' &&
      action !== null &&
      !Array.isArray(action) &&
      (action as { action_type?: unknown }).action_type === 'FAIL')
  );
}

interface PlannedMetric {
  readonly func: string;
  readonly metric: MetricDefinition;
  readonly result: { readonly getter: Getter; readonly config: GetterConfigInput };
  /** undefined: the metric is called without an expected argument. */
  readonly expected: { readonly getter: Getter; readonly config: GetterConfigInput } | undefined;
  /** Single-metric evaluators pass the expected state even when its getter gave null. */
  readonly passNullExpected: boolean;
  readonly options: Readonly<Record<string, unknown>>;
}

const configError = (message: string): never => {
  throw new EvaluationError({ message });
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function getterEntry(
  value: unknown,
  where: string,
  getters: Readonly<Record<string, Getter>> | undefined,
): { getter: Getter; config: GetterConfigInput } {
  if (!isRecord(value)) return configError(`${where} must be a getter object { "type": … }`);
  return { getter: resolveGetter(value['type'], getters), config: value as GetterConfigInput };
}

function checkOptions(metric: MetricDefinition, options: Readonly<Record<string, unknown>>): void {
  if (metric.options === 'any') return;
  const unexpected = Object.keys(options).filter(key => !metric.options.includes(key));
  if (unexpected.length > 0) {
    configError(
      `metric ${metric.name} takes no option ${unexpected.map(key => `"${key}"`).join(', ')}` +
        (metric.options.length > 0
          ? ` (it takes: ${metric.options.join(', ')})`
          : ' (it takes none)'),
    );
  }
}

/**
 * Resolves every metric and getter before anything runs, as upstream does when the task is
 * loaded (an unknown name fails there, not halfway through an evaluation).
 */
function planMetrics(evaluator: Evaluator, options: EvaluateTaskOptions): PlannedMetric[] {
  const record = evaluator as unknown as Record<string, unknown>;
  const funcs = evaluator.func;
  if (!Array.isArray(funcs)) {
    const metric = resolveMetric(funcs, options.metrics);
    if (!Object.hasOwn(record, 'result')) configError(`metric ${funcs} needs a "result" getter`);
    const metricOptions = record['options'] ?? {};
    if (!isRecord(metricOptions)) return configError('"options" must be an object');
    checkOptions(metric, metricOptions);
    const expected = record['expected'];
    return [
      {
        func: funcs,
        metric,
        result: getterEntry(record['result'], '"result"', options.getters),
        // upstream: `"expected" in evaluator and evaluator["expected"]` (a non-empty dict)
        expected:
          isRecord(expected) && Object.keys(expected).length > 0
            ? getterEntry(expected, '"expected"', options.getters)
            : undefined,
        passNullExpected: true,
        options: metricOptions,
      },
    ];
  }

  const count = funcs.length;
  const listOf = (key: string, required: boolean): unknown[] | undefined => {
    const value = record[key];
    if (value === undefined || value === null) {
      return required
        ? configError(`func is a list, so "${key}" must be a list of ${count}`)
        : undefined;
    }
    if (!Array.isArray(value))
      return configError(`func is a list, so "${key}" must be a list of ${count}`);
    if (value.length === 0 && !required) return undefined;
    if (value.length !== count) {
      return configError(`"${key}" has ${value.length} entries but func has ${count}`);
    }
    return value;
  };
  const results = listOf('result', true) as unknown[];
  const expecteds = listOf('expected', false);
  const optionsList = listOf('options', false);
  return funcs.map((func, index) => {
    if (func === 'infeasible') {
      return configError(
        '"infeasible" cannot be one entry of a func list; use "func": "infeasible"',
      );
    }
    const metric = resolveMetric(func, options.metrics);
    const metricOptions = optionsList?.[index] ?? {};
    if (!isRecord(metricOptions)) return configError(`options[${index}] must be an object or null`);
    checkOptions(metric, metricOptions);
    const expected = expecteds?.[index];
    return {
      func,
      metric,
      result: getterEntry(results[index], `result[${index}]`, options.getters),
      expected:
        expected === null || expected === undefined
          ? undefined
          : getterEntry(expected, `expected[${index}]`, options.getters),
      passNullExpected: false,
      options: metricOptions,
    };
  });
}

const describe = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/**
 * Scores a finished task as upstream's `DesktopEnv.evaluate()` does:
 *
 * 1. Runs the evaluator's `postconfig` through `runSetup` (a failing step is recorded in `errors`
 *    and evaluation goes on, as upstream's setup controller only logs it).
 * 2. `func: "infeasible"`: score 1 iff the last action is FAIL, else 0. Any other evaluator whose
 *    last action is FAIL scores 0 without running a getter.
 * 3. One metric: `metric(result_state, expected_state, **options)`, or `metric(result_state,
 *    **options)` without `expected`.
 * 4. A `func` list: the metrics run in order with their parallel `result` / `expected` (entries may
 *    be null: the metric is then called without it, as is one whose expected getter gave null) /
 *    `options`. `conj: "and"` (default) returns 0 at the first metric scoring 0, else the mean;
 *    `conj: "or"` returns 1 at the first metric scoring 1, else the max. Metrics after the
 *    short-circuit do not run (their getters neither).
 *
 * A getter that finds nothing gives null and its metric scores 0 (never a throw). A getter or
 * metric that fails where upstream would crash scores that metric 0 and is reported in `errors`.
 *
 * @throws EvaluationError for configuration bugs: an unknown metric or getter, mismatched list
 *   lengths, an option a metric does not take, a bad match rule or regex; also when a
 *   `postconfig` is present but no `runSetup` was given.
 * @throws the abort reason when `abortSignal` fires.
 */
export async function evaluateTask(options: EvaluateTaskOptions): Promise<EvaluationResult> {
  const { evaluator, abortSignal } = options;
  const errors: EvaluationIssue[] = [];
  const isInfeasible = evaluator.func === 'infeasible';
  const plan = isInfeasible ? [] : planMetrics(evaluator, options);

  const postconfig = evaluator.postconfig ?? [];
  if (postconfig.length > 0) {
    if (options.runSetup === undefined) {
      throw new EvaluationError({
        message: `the evaluator has ${postconfig.length} postconfig step(s) but evaluateTask got no runSetup`,
      });
    }
    abortSignal?.throwIfAborted();
    try {
      await options.runSetup(postconfig, { abortSignal });
    } catch (error) {
      abortSignal?.throwIfAborted();
      errors.push({
        stage: 'postconfig',
        message: `postconfig failed: ${describe(error)}`,
        cause: error,
      });
    }
  }

  const failed = isFailAction(options.lastAction);
  if (isInfeasible) {
    return {
      score: failed ? 1 : 0,
      kind: 'infeasible',
      details: [],
      errors,
    };
  }
  if (failed) return { score: 0, kind: 'agent-fail', details: [], errors };

  const withheld: WithheldFile[] = [];
  const context: GetterContext = {
    client: options.client,
    cacheDir: options.cacheDir,
    abortSignal,
    fetch: options.fetch,
    chromeProfileDir: options.chromeProfileDir,
    now: options.now,
    onWithheld: file => withheld.push(file),
  };
  const conj = (evaluator as { conj?: unknown }).conj ?? 'and';
  if (conj !== 'and' && conj !== 'or')
    configError(`conj must be "and" or "or", not ${JSON.stringify(conj)}`);

  const details: MetricScore[] = [];
  const scores: number[] = [];
  const finish = (score: number): EvaluationResult => {
    for (let index = details.length; index < plan.length; index++) {
      details.push({
        func: (plan[index] as PlannedMetric).func,
        index,
        status: 'skipped',
        score: null,
      });
    }
    return { score, kind: 'metrics', details, errors, ...(withheld.length > 0 && { withheld }) };
  };

  for (const [index, step] of plan.entries()) {
    abortSignal?.throwIfAborted();
    const score = await runMetric(step, index, context, errors);
    details.push({
      func: step.func,
      index,
      status: score === undefined ? 'failed' : 'scored',
      score: score ?? 0,
    });
    const value = score ?? 0;
    if (plan.length === 1) return finish(value);
    if (conj === 'and' && value === 0) return finish(0);
    if (conj === 'or' && value === 1) return finish(1);
    scores.push(value);
  }
  return finish(
    conj === 'and'
      ? scores.reduce((sum, value) => sum + value, 0) / scores.length
      : Math.max(...scores),
  );
}

/** Runs one metric with its getters; undefined when something failed (recorded in `errors`). */
async function runMetric(
  step: PlannedMetric,
  index: number,
  context: GetterContext,
  errors: EvaluationIssue[],
): Promise<number | undefined> {
  const record = (stage: EvaluationIssue['stage'], error: unknown): undefined => {
    if (EvaluationError.isInstance(error)) throw error;
    context.abortSignal?.throwIfAborted();
    errors.push({
      stage,
      func: step.func,
      index,
      message: `${stage === 'metric' ? `metric ${step.func}` : `${stage} getter of ${step.func}`} failed: ${describe(error)}`,
      cause: error,
    });
    return undefined;
  };

  let result: unknown;
  try {
    result = (await step.result.getter(context, step.result.config)) ?? null;
  } catch (error) {
    return record('result', error);
  }
  let expected: unknown;
  if (step.expected !== undefined) {
    try {
      expected = (await step.expected.getter(context, step.expected.config)) ?? null;
    } catch (error) {
      return record('expected', error);
    }
    // in a func list upstream calls metric(result, **options) when the expected state is None
    if (expected === null && !step.passNullExpected) expected = undefined;
  }

  const { metric } = step;
  if (expected === undefined && metric.expected === 'required') {
    return record(
      'metric',
      new TypeError(`${metric.name}() missing 1 required positional argument (the expected state)`),
    );
  }
  if (expected !== undefined && metric.expected === 'none') {
    return record('metric', new TypeError(`${metric.name}() takes no expected state`));
  }
  try {
    const score = await metric.evaluate({
      result,
      expected,
      options: step.options,
      abortSignal: context.abortSignal,
    });
    return Number(score);
  } catch (error) {
    return record('metric', error);
  }
}
