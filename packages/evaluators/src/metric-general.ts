import { EvaluationError } from './evaluator-error';
import { fuzzRatio } from './evaluator-fuzz-ratio';
import { readPythonTextFile } from './evaluator-python-text-file';
import {
  PythonSemanticsError,
  pythonContains,
  pythonEquals,
  pythonGet,
  pythonGetItem,
  pythonIterate,
  pythonStr,
  pythonTruthy,
  pythonTypeName,
} from './evaluator-python-values';
import { pythonLower, pythonSplitlines } from './evaluator-python-text';
import { sequenceMatcherRatio } from './evaluator-sequence-matcher';
import type { MetricDefinition } from './metric-types';

/**
 * `exact_match(result, rules)` (upstream `metrics/general.py`): 1 when
 * `result == rules["expected"]` with Python equality (type-sensitive: `"1" != 1`, but `True == 1`
 * and `1 == 1.0` as in Python), else 0. A missing `expected` key raises (`KeyError`).
 */
export const exactMatchMetric: MetricDefinition = {
  name: 'exact_match',
  expected: 'required',
  options: [],
  evaluate: ({ result, expected }) =>
    pythonEquals(result, pythonGetItem(expected, 'expected')) ? 1 : 0,
};

/**
 * `check_include_exclude(result, rules)` (upstream `metrics/general.py`): 0 when the result is
 * `None`; otherwise 1 iff every `rules.include` entry is `in` the result (substring for a string
 * result) and no `rules.exclude` entry is. Both lists default to empty.
 */
export const checkIncludeExcludeMetric: MetricDefinition = {
  name: 'check_include_exclude',
  expected: 'required',
  options: [],
  evaluate: ({ result, expected }) => {
    if (result === null || result === undefined) return 0;
    const include = pythonIterate(pythonGet(expected, 'include', []));
    const exclude = pythonIterate(pythonGet(expected, 'exclude', []));
    return include.every(entry => pythonContains(result, entry)) &&
      exclude.every(entry => !pythonContains(result, entry))
      ? 1
      : 0;
  },
};

/**
 * `literal_match(result, expected, **options)` (upstream `metrics/general.py`). Options: `type`
 * (`'str'` by default: compares `str(result) == str(expected)`; `'list'`: both must be lists of the
 * same length whose items compare equal as strings) and `ignore_case` (lower-cases first). Any
 * other `type` raises (`NotImplementedError`, here an `EvaluationError`).
 */
export const literalMatchMetric: MetricDefinition = {
  name: 'literal_match',
  expected: 'required',
  options: 'any',
  evaluate: ({ result, expected, options }) => {
    const literalType = pythonGet(options, 'type', 'str');
    const ignoreCase = pythonTruthy(pythonGet(options, 'ignore_case', false));
    const normalize = (value: unknown) =>
      ignoreCase ? pythonLower(pythonStr(value)) : pythonStr(value);
    if (literalType === 'str') return normalize(result) === normalize(expected) ? 1 : 0;
    if (literalType === 'list') {
      if (!Array.isArray(result) || !Array.isArray(expected) || result.length !== expected.length) {
        return 0;
      }
      return result.every((item, index) => normalize(item) === normalize(expected[index])) ? 1 : 0;
    }
    throw new EvaluationError({
      message: `literal_match: type ${pythonStr(literalType)} is not supported (use "str" or "list")`,
      subject: 'literal_match',
    });
  },
};

/** `is_in_list(result, rules)`: 1 when `rules["expected"] in result`. */
export const isInListMetric: MetricDefinition = {
  name: 'is_in_list',
  expected: 'required',
  options: [],
  evaluate: ({ result, expected }) =>
    pythonContains(result, pythonGetItem(expected, 'expected')) ? 1 : 0,
};

/** `match_in_list(result, rules)`: 1 when `result in rules["expected"]`. */
export const matchInListMetric: MetricDefinition = {
  name: 'match_in_list',
  expected: 'required',
  options: [],
  evaluate: ({ result, expected }) =>
    pythonContains(pythonGetItem(expected, 'expected'), result) ? 1 : 0,
};

/**
 * `fuzzy_match(result, rules)`: `fuzz.ratio(result, rules["expected"]) / 100` (non-binary; a
 * `None` result scores 0).
 */
export const fuzzyMatchMetric: MetricDefinition = {
  name: 'fuzzy_match',
  expected: 'required',
  options: [],
  evaluate: ({ result, expected }) => {
    const reference = pythonGetItem(expected, 'expected');
    for (const value of [result, reference]) {
      if (value !== null && typeof value !== 'string' && !Array.isArray(value)) {
        throw new PythonSemanticsError(
          'TypeError',
          `fuzz.ratio cannot compare a ${pythonTypeName(value)}`,
        );
      }
    }
    return (
      fuzzRatio(result as string | unknown[] | null, reference as string | unknown[] | null) / 100
    );
  },
};

/**
 * `diff_text_file(result, expect)`: 0 when the result is `None`; otherwise
 * `difflib.SequenceMatcher(a=result_lines, b=expected_lines).ratio()` over both files'
 * `splitlines()` (non-binary).
 */
export const diffTextFileMetric: MetricDefinition = {
  name: 'diff_text_file',
  expected: 'required',
  options: [],
  evaluate: async ({ result, expected }) => {
    if (result === null || result === undefined) return 0;
    const resultLines = pythonSplitlines(await readPythonTextFile(result));
    const expectedLines = pythonSplitlines(await readPythonTextFile(expected));
    return sequenceMatcherRatio(resultLines, expectedLines);
  },
};
