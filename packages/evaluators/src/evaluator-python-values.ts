/**
 * Python value semantics the upstream metrics rely on (`==`, `<`, `in`, `float()`, truthiness,
 * `dict[key]`, `repr`, `str`), over the JSON values our getters and task files produce. Upstream's
 * metrics are Python; reproducing their scores exactly means reproducing these operators, not
 * JavaScript's. String methods are in evaluator-python-text.ts.
 */
import { compareCodePoints, pythonStrip } from './evaluator-python-text';

/** A Python `TypeError` / `KeyError` / `ValueError` raised by an upstream metric on bad input. */
export class PythonSemanticsError extends Error {
  constructor(
    readonly pythonType: 'TypeError' | 'KeyError' | 'ValueError' | 'IndexError',
    message: string,
  ) {
    super(`${pythonType}: ${message}`);
    this.name = 'PythonSemanticsError';
  }
}

/** The name Python would print for the type of a JSON value. */
export function pythonTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'string') return 'str';
  if (Array.isArray(value)) return 'list';
  return 'dict';
}

const isNumeric = (value: unknown): value is number | boolean =>
  typeof value === 'number' || typeof value === 'boolean';

const isDict = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Python `a == b` over JSON values: `bool` is an `int` (`True == 1`, `False == 0.0`), `None` equals
 * only `None`, lists compare element-wise, dicts by key set and values; any other mix is unequal.
 * `undefined` is treated as `None`.
 */
export function pythonEquals(a: unknown, b: unknown): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a === null || b === null) return a === b;
  if (isNumeric(a) && isNumeric(b)) return Number(a) === Number(b);
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => pythonEquals(item, b[index]));
  }
  if (isDict(a) && isDict(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every(key => Object.hasOwn(b, key) && pythonEquals(a[key], b[key]));
  }
  return false;
}

/**
 * Python's ordering `a < b` etc. as a three-way comparison: numbers (and bools) numerically,
 * strings by code point, lists lexicographically. Anything else raises `TypeError`, as in Python.
 */
export function pythonCompare(a: unknown, b: unknown): number {
  if (isNumeric(a) && isNumeric(b)) {
    const x = Number(a);
    const y = Number(b);
    return x < y ? -1 : x > y ? 1 : x === y ? 0 : Number.NaN;
  }
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  if (Array.isArray(a) && Array.isArray(b)) {
    const length = Math.min(a.length, b.length);
    for (let index = 0; index < length; index++) {
      if (!pythonEquals(a[index], b[index])) return pythonCompare(a[index], b[index]);
    }
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }
  throw new PythonSemanticsError(
    'TypeError',
    `'<' not supported between instances of '${pythonTypeName(a)}' and '${pythonTypeName(b)}'`,
  );
}

/** The comparison operators of Python's `operator` module that upstream's match rules name. */
export type PythonComparison = 'eq' | 'ne' | 'le' | 'lt' | 'ge' | 'gt';

/** `getattr(operator, name)(a, b)`. NaN compares false, as in Python. */
export function pythonOperator(name: PythonComparison, a: unknown, b: unknown): boolean {
  switch (name) {
    case 'eq':
      return pythonEquals(a, b);
    case 'ne':
      return !pythonEquals(a, b);
    case 'le':
      return pythonCompare(a, b) <= 0;
    case 'lt':
      return pythonCompare(a, b) < 0;
    case 'ge':
      return pythonCompare(a, b) >= 0;
    case 'gt':
      return pythonCompare(a, b) > 0;
  }
}

/**
 * Python `needle in container`: substring for a str (the needle must be a str), membership by `==`
 * for a list, key membership for a dict; anything else raises `TypeError`.
 */
export function pythonContains(container: unknown, needle: unknown): boolean {
  if (typeof container === 'string') {
    if (typeof needle !== 'string') {
      throw new PythonSemanticsError(
        'TypeError',
        `'in <string>' requires string as left operand, not ${pythonTypeName(needle)}`,
      );
    }
    return container.includes(needle);
  }
  if (Array.isArray(container)) return container.some(item => pythonEquals(item, needle));
  if (isDict(container)) {
    if (Array.isArray(needle) || isDict(needle)) {
      throw new PythonSemanticsError('TypeError', `unhashable type: '${pythonTypeName(needle)}'`);
    }
    return typeof needle === 'string' && Object.hasOwn(container, needle);
  }
  throw new PythonSemanticsError(
    'TypeError',
    `argument of type '${pythonTypeName(container)}' is not iterable`,
  );
}

/** Python truthiness: `None`, `False`, `0`, `''`, `[]` and `{}` are false. */
export function pythonTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return false;
  // NaN is truthy in Python too
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (isDict(value)) return Object.keys(value).length > 0;
  return true;
}

const pythonFloatLiteral =
  /^[+-]?(?:(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?|inf(?:inity)?|nan)$/i;

/**
 * Python `float(value)`: numbers and bools convert, strings must be a float literal (surrounding
 * whitespace, `_` between digits, `inf`/`infinity`/`nan` in any case allowed). Raises `ValueError`
 * for other strings and `TypeError` for other types.
 */
export function pythonFloat(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    const text = pythonStrip(value);
    if (!pythonFloatLiteral.test(text)) {
      throw new PythonSemanticsError(
        'ValueError',
        `could not convert string to float: ${JSON.stringify(value)}`,
      );
    }
    const lowered = text.toLowerCase().replaceAll('_', '');
    const sign = lowered.startsWith('-') ? -1 : 1;
    const unsigned = lowered.replace(/^[+-]/, '');
    if (unsigned === 'nan') return Number.NaN;
    if (unsigned === 'inf' || unsigned === 'infinity') return sign * Number.POSITIVE_INFINITY;
    return Number(lowered);
  }
  throw new PythonSemanticsError(
    'TypeError',
    `float() argument must be a string or a real number, not '${pythonTypeName(value)}'`,
  );
}

/**
 * Python `set(a) == set(b)` for lists of hashable JSON values (str, numbers, bools, None); a list
 * or dict element raises `TypeError` (unhashable), as in Python.
 */
export function pythonSetEquals(a: readonly unknown[], b: readonly unknown[]): boolean {
  for (const item of [...a, ...b]) {
    if (Array.isArray(item) || isDict(item)) {
      throw new PythonSemanticsError('TypeError', `unhashable type: '${pythonTypeName(item)}'`);
    }
  }
  return (
    a.every(item => b.some(other => pythonEquals(item, other))) &&
    b.every(item => a.some(other => pythonEquals(item, other)))
  );
}

/**
 * Python `mapping[key]` for a dict parsed from JSON: raises `KeyError` when the key is missing and
 * `TypeError` when `mapping` is not a dict.
 */
export function pythonGetItem(mapping: unknown, key: string): unknown {
  if (!isDict(mapping)) {
    throw new PythonSemanticsError(
      'TypeError',
      `${pythonTypeName(mapping)} indices do not support key ${JSON.stringify(key)}`,
    );
  }
  if (!Object.hasOwn(mapping, key)) throw new PythonSemanticsError('KeyError', JSON.stringify(key));
  return mapping[key];
}

/** Python `mapping.get(key, fallback)` for a dict. */
export function pythonGet(mapping: unknown, key: string, fallback: unknown): unknown {
  if (!isDict(mapping)) {
    throw new PythonSemanticsError('TypeError', `'${pythonTypeName(mapping)}' has no get()`);
  }
  return Object.hasOwn(mapping, key) ? mapping[key] : fallback;
}

/** Iterates a value as Python's `for x in value` would (list items, dict keys, str characters). */
export function pythonIterate(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return Array.from(value);
  if (isDict(value)) return Object.keys(value);
  throw new PythonSemanticsError('TypeError', `'${pythonTypeName(value)}' object is not iterable`);
}

/** Python `repr(x)` of a float (shortest round-trip digits, exponent outside 1e-4 ≤ |x| < 1e16). */
function pythonFloatRepr(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  let text: string;
  if (exponent >= -4 && exponent < 16) {
    if (exponent >= 0) {
      const whole = digits.padEnd(exponent + 1, '0');
      const integerPart = whole.slice(0, exponent + 1);
      const fraction = whole.slice(exponent + 1);
      text = `${integerPart}.${fraction === '' ? '0' : fraction}`;
    } else {
      text = `0.${'0'.repeat(-exponent - 1)}${digits}`;
    }
  } else {
    const head = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const sign = exponent < 0 ? '-' : '+';
    text = `${head}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return negative ? `-${text}` : text;
}

/** Python `repr(value)` of a JSON value (strings single-quoted as Python prints them). */
export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') {
    // JSON cannot tell 1 from 1.0: integral values print as Python ints
    return Number.isInteger(value) && Math.abs(value) < 1e16
      ? String(value)
      : pythonFloatRepr(value);
  }
  if (typeof value === 'string') {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    let body = '';
    for (const character of value) {
      const point = character.codePointAt(0) as number;
      if (character === '\\') body += '\\\\';
      else if (character === quote) body += `\\${quote}`;
      else if (character === '\n') body += '\\n';
      else if (character === '\r') body += '\\r';
      else if (character === '\t') body += '\\t';
      else if (point < 0x20 || point === 0x7f) body += `\\x${point.toString(16).padStart(2, '0')}`;
      else body += character;
    }
    return `${quote}${body}${quote}`;
  }
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (typeof value === 'object') {
    const items = Object.entries(value as Record<string, unknown>).map(
      ([key, item]) => `${pythonRepr(key)}: ${pythonRepr(item)}`,
    );
    return `{${items.join(', ')}}`;
  }
  return String(value);
}

/** Python `str(value)` of a JSON value: strings as they are, everything else as `repr`. */
export function pythonStr(value: unknown): string {
  return typeof value === 'string' ? value : pythonRepr(value);
}
