import { EvaluationError } from './evaluator-error';
import { pythonRegexFlagsFromNames, pythonRegexSearch } from './evaluator-python-regex';
import {
  PythonSemanticsError,
  pythonEquals,
  pythonFloat,
  pythonGetItem,
  pythonIterate,
  pythonOperator,
  pythonSetEquals,
  pythonStr,
  pythonTypeName,
} from './evaluator-python-values';
import { pythonStripChars } from './evaluator-python-text';

/** A cell range `min_col..max_col × min_row..max_row` (openpyxl's `CellRange`). */
interface CellRange {
  readonly minColumn: number;
  readonly minRow: number;
  readonly maxColumn: number;
  readonly maxRow: number;
}

const columnNumber = (letters: string): number =>
  Array.from(letters.toUpperCase()).reduce(
    (total, letter) => total * 26 + (letter.charCodeAt(0) - 64),
    0,
  );

/** openpyxl `CellRange("A1:B2")` (also `A1`, `$A$1`, an optional `Sheet!` prefix). */
function parseCellRange(text: string): CellRange {
  const withoutSheet = text.includes('!') ? text.slice(text.lastIndexOf('!') + 1) : text;
  const match = /^\$?([A-Za-z]{1,3})\$?(\d+)(?::\$?([A-Za-z]{1,3})\$?(\d+))?$/.exec(withoutSheet);
  if (!match) {
    throw new PythonSemanticsError(
      'ValueError',
      `${JSON.stringify(text)} is not a valid coordinate or range`,
    );
  }
  const minColumn = columnNumber(match[1] as string);
  const minRow = Number(match[2]);
  const maxColumn = match[3] ? columnNumber(match[3]) : minColumn;
  const maxRow = match[4] ? Number(match[4]) : minRow;
  if (minColumn > maxColumn || minRow > maxRow) {
    throw new PythonSemanticsError('ValueError', `${JSON.stringify(text)} must have min <= max`);
  }
  return { minColumn, minRow, maxColumn, maxRow };
}

/** openpyxl `MultiCellRange(value)`: whitespace-separated ranges (a list of range strings too). */
function parseMultiCellRange(value: unknown): CellRange[] {
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean).map(parseCellRange);
  if (Array.isArray(value)) return value.map(item => parseCellRange(pythonStr(item)));
  throw new PythonSemanticsError(
    'TypeError',
    `a cell range must be a string, not ${pythonTypeName(value)}`,
  );
}

/** Every range of `subset` lies inside some range of `superset` (`_multicellrange_containsby`). */
function containedBy(subset: readonly CellRange[], superset: readonly CellRange[]): boolean {
  return subset.every(inner =>
    superset.some(
      outer =>
        inner.minColumn >= outer.minColumn &&
        inner.maxColumn <= outer.maxColumn &&
        inner.minRow >= outer.minRow &&
        inner.maxRow <= outer.maxRow,
    ),
  );
}

const ruleError = (message: string): never => {
  throw new EvaluationError({ message, subject: 'match rule' });
};

/**
 * Upstream's `_match_value_to_rule(value, rule)` (`metrics/utils.py`), the rule language of
 * `check_thunderbird_prefs` (and `check_json`, `check_csv`…). `rule = {method, ref}`; methods are
 * tried in upstream's order:
 *
 * - `re[.FLAG…]` (any method starting with `re`): `re.search(ref, value, flags)`; flags by Python
 *   name (`re.IGNORECASE`, `re.I.M`, …), the pattern translated to JavaScript with Python's
 *   semantics. The value must be a string (upstream raises `TypeError` otherwise).
 * - `eq`, `ne`, `le`, `lt`, `ge`, `gt`: Python's `operator` on `(value, ref)`; ordering between
 *   incompatible types raises `TypeError`, as in Python.
 * - `approx:<threshold>` (any method starting with `approx`): `abs(float(value) − ref) <= threshold`;
 *   false when the value is not convertible to float.
 * - `spreadsheet_range`: `ref = [inner, outer]` multi-ranges; true when `inner ⊆ value ⊆ outer`.
 *   Upstream takes an openpyxl `MultiCellRange` value; a string value (`"A1:B2 D4"`) is parsed as one.
 * - `range.<l><r>`: `ref[0] <l> value <r> ref[1]` where `e` means `<=` and `t` means `<`
 *   (`range.te` is `ref0 < value <= ref1`).
 * - `str_list_eq` / `str_set_eq`: `value.strip("\"'").split(",")` equals `list(ref)` / `set(ref)`.
 *
 * Any other method raises (`NotImplementedError`), here an `EvaluationError`, as do malformed
 * methods (`approx` without a threshold, `range.tx`).
 */
export function matchValueToRule(value: unknown, rule: unknown): boolean {
  const method = pythonGetItem(rule, 'method');
  if (typeof method !== 'string') {
    return ruleError(`a match rule's method must be a string, got ${pythonStr(method)}`);
  }
  if (method.startsWith('re')) {
    const flags = pythonRegexFlagsFromNames(method.split('.').slice(1));
    const reference = pythonGetItem(rule, 'ref');
    if (typeof reference !== 'string') {
      return ruleError(`rule ${method}: ref must be a regex string, got ${pythonStr(reference)}`);
    }
    if (typeof value !== 'string') {
      throw new PythonSemanticsError(
        'TypeError',
        `expected string or bytes-like object, got '${pythonTypeName(value)}'`,
      );
    }
    return pythonRegexSearch(reference, value, flags);
  }
  if (['eq', 'ne', 'le', 'lt', 'ge', 'gt'].includes(method)) {
    return pythonOperator(
      method as 'eq' | 'ne' | 'le' | 'lt' | 'ge' | 'gt',
      value,
      pythonGetItem(rule, 'ref'),
    );
  }
  if (method.startsWith('approx')) {
    const thresholdText = method.split(':')[1];
    if (thresholdText === undefined) {
      return ruleError(`rule ${method}: write approx:<threshold>, e.g. approx:0.01`);
    }
    let threshold: number;
    try {
      threshold = pythonFloat(thresholdText);
    } catch {
      return ruleError(`rule ${method}: the threshold is not a number`);
    }
    let number: number;
    try {
      number = pythonFloat(value);
    } catch {
      return false;
    }
    const reference = pythonGetItem(rule, 'ref');
    if (typeof reference !== 'number' && typeof reference !== 'boolean') {
      throw new PythonSemanticsError(
        'TypeError',
        `unsupported operand type(s) for -: 'float' and '${pythonTypeName(reference)}'`,
      );
    }
    return Math.abs(number - Number(reference)) <= threshold;
  }
  if (method === 'spreadsheet_range') {
    const reference = pythonIterate(pythonGetItem(rule, 'ref'));
    const inner = parseMultiCellRange(reference[0]);
    const outer = parseMultiCellRange(reference[1]);
    const actual = parseMultiCellRange(value);
    return containedBy(inner, actual) && containedBy(actual, outer);
  }
  if (method.startsWith('range.')) {
    const left = method[6];
    const right = method[7];
    if (left === undefined || right === undefined) {
      return ruleError(`rule ${method}: write range.<l><r> with e (<=) or t (<), e.g. range.te`);
    }
    for (const side of [left, right]) {
      if (side !== 'e' && side !== 't') {
        return ruleError(`rule ${method}: operator.l${side} does not exist (use e or t)`);
      }
    }
    const reference = pythonIterate(pythonGetItem(rule, 'ref'));
    return (
      pythonOperator(`l${left}` as 'le' | 'lt', reference[0], value) &&
      pythonOperator(`l${right}` as 'le' | 'lt', value, reference[1])
    );
  }
  if (method === 'str_list_eq' || method === 'str_set_eq') {
    if (typeof value !== 'string') {
      throw new PythonSemanticsError(
        'TypeError',
        `'${pythonTypeName(value)}' object has no attribute 'strip'`,
      );
    }
    const items = pythonStripChars(value, '"\'').split(',');
    const reference = pythonIterate(pythonGetItem(rule, 'ref'));
    return method === 'str_list_eq'
      ? pythonEquals(items, reference)
      : pythonSetEquals(items, reference);
  }
  return ruleError(
    `unknown match rule method ${JSON.stringify(method)} (known: re[.FLAG…], eq, ne, le, lt, ge, gt, approx:<threshold>, spreadsheet_range, range.<l><r>, str_list_eq, str_set_eq)`,
  );
}
