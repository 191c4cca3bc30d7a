/**
 * Python's string semantics the upstream metrics rely on (`str.strip()`, `str.lower()`,
 * `str.splitlines()`, `re.sub(r'\s+', …)`, code-point ordering, `os.path.splitext`, `strftime`).
 * The value operators (`==`, `<`, `in`, `float()`, `repr`) are in evaluator-python-values.ts.
 */

/**
 * The characters Python's `str.isspace()` and the regex class `\s` (str patterns) treat as
 * whitespace: `\t\n\v\f\r`, `\x1c`–`\x1f`, space, `\x85`, NBSP, U+1680, U+2000–U+200A, U+2028,
 * U+2029, U+202F, U+205F, U+3000. JavaScript's `\s`/`trim()` differ (they add U+FEFF and drop
 * `\x1c`–`\x1f` and `\x85`).
 */
export const PYTHON_WHITESPACE_CLASS =
  '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

const whitespaceRun = new RegExp(`[${PYTHON_WHITESPACE_CLASS}]+`, 'g');
const leadingWhitespace = new RegExp(`^[${PYTHON_WHITESPACE_CLASS}]+`);
const trailingWhitespace = new RegExp(`[${PYTHON_WHITESPACE_CLASS}]+$`);

/** Python `text.strip()` (no argument). */
export function pythonStrip(text: string): string {
  return text.replace(leadingWhitespace, '').replace(trailingWhitespace, '');
}

/** Python `text.strip(chars)`. */
export function pythonStripChars(text: string, chars: string): string {
  const set = new Set(Array.from(chars));
  const points = Array.from(text);
  let start = 0;
  let end = points.length;
  while (start < end && set.has(points[start] as string)) start++;
  while (end > start && set.has(points[end - 1] as string)) end--;
  return points.slice(start, end).join('');
}

/** Python `re.sub(r'\s+', ' ', text)` for a str pattern. */
export function collapsePythonWhitespace(text: string): string {
  return text.replace(whitespaceRun, ' ');
}

/** Python `text.lower()`. */
export function pythonLower(text: string): string {
  return text.toLowerCase();
}

/** Python `str.splitlines()` (no `keepends`): splits on every line boundary Python knows. */
export function pythonSplitlines(text: string): string[] {
  // the separators are Python's, control characters included
  // eslint-disable-next-line no-control-regex
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Compares two strings by code point, as Python's `<` and `sorted()` do (not by UTF-16 unit). */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const left = Array.from(a);
  const right = Array.from(b);
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) {
    const x = (left[index] as string).codePointAt(0) as number;
    const y = (right[index] as string).codePointAt(0) as number;
    if (x !== y) return x < y ? -1 : 1;
  }
  return left.length === right.length ? 0 : left.length < right.length ? -1 : 1;
}

/** Python `sorted(strings)`. */
export function pythonSortedStrings(strings: readonly string[]): string[] {
  return [...strings].sort(compareCodePoints);
}

/**
 * `os.path.splitext(path)` (POSIX): the extension starts at the last dot of the last path component,
 * unless that component is only dots before it (`.bashrc` has no extension).
 */
export function pythonSplitext(path: string): [string, string] {
  const separatorIndex = path.lastIndexOf('/');
  const dotIndex = path.lastIndexOf('.');
  if (dotIndex > separatorIndex) {
    for (let index = separatorIndex + 1; index < dotIndex; index++) {
      if (path[index] !== '.') return [path.slice(0, dotIndex), path.slice(dotIndex)];
    }
  }
  return [path, ''];
}

const weekdays = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const months = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const pad = (value: number, width: number): string => String(value).padStart(width, '0');

/**
 * Python `datetime.strftime(format)` in local time (C locale) for the directives a file name
 * suffix can use: `%Y %y %m %d %H %I %M %S %f %p %j %a %A %b %B %%`. Other directives are kept as
 * written, as glibc does for unknown ones.
 */
export function pythonStrftime(date: Date, format: string): string {
  const startOfYear = new Date(date.getFullYear(), 0, 1);
  const dayOfYear =
    Math.round(
      (Date.UTC(date.getFullYear(), date.getMonth(), date.getDate()) -
        Date.UTC(startOfYear.getFullYear(), 0, 1)) /
        86_400_000,
    ) + 1;
  return format.replace(/%(.)/gs, (directive, letter: string) => {
    switch (letter) {
      case 'Y':
        return String(date.getFullYear());
      case 'y':
        return pad(date.getFullYear() % 100, 2);
      case 'm':
        return pad(date.getMonth() + 1, 2);
      case 'd':
        return pad(date.getDate(), 2);
      case 'H':
        return pad(date.getHours(), 2);
      case 'I':
        return pad(date.getHours() % 12 === 0 ? 12 : date.getHours() % 12, 2);
      case 'M':
        return pad(date.getMinutes(), 2);
      case 'S':
        return pad(date.getSeconds(), 2);
      case 'f':
        return pad(date.getMilliseconds() * 1000, 6);
      case 'p':
        return date.getHours() < 12 ? 'AM' : 'PM';
      case 'j':
        return pad(dayOfYear, 3);
      case 'a':
        return (weekdays[date.getDay()] as string).slice(0, 3);
      case 'A':
        return weekdays[date.getDay()] as string;
      case 'b':
        return (months[date.getMonth()] as string).slice(0, 3);
      case 'B':
        return months[date.getMonth()] as string;
      case '%':
        return '%';
      default:
        return directive;
    }
  });
}
