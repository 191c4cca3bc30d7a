import { PythonSyntaxError, type Token } from './python-tokens';

/**
 * A replacement field of an f-string, kept unevaluated: `expr` is its Python source, filled later
 * by {@link fillTemplate} the way Python would.
 */
export interface TemplateField {
  readonly expr: string;
  /** `!s`, `!r` or `!a`; only `s` (or none) can be filled. */
  readonly conversion?: string;
  /** The format spec after `:`; only an empty spec can be filled. */
  readonly spec?: string;
}

/** A Python string value: literal text and, for f-strings, fields. */
export type TemplatePart = string | TemplateField;

/** The value of a string expression: a plain `str`, or an f-string template. */
export interface PyString {
  readonly kind: 'str' | 'fstring';
  readonly parts: readonly TemplatePart[];
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\n': '',
};

/** Python's escape sequences of a (non-raw) `str` literal body. */
function unescape(body: string, line: number): string {
  let out = '';
  for (let i = 0; i < body.length; i += 1) {
    const ch = body[i]!;
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const next = body[i + 1];
    if (next === undefined) throw new PythonSyntaxError('string ends with a backslash', line);
    if (next in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[next];
      i += 1;
    } else if (next === '\r' && body[i + 2] === '\n') {
      i += 2;
    } else if (/[0-7]/.test(next)) {
      const digits = /^[0-7]{1,3}/.exec(body.slice(i + 1))![0];
      out += String.fromCodePoint(parseInt(digits, 8));
      i += digits.length;
    } else if (next === 'x' || next === 'u' || next === 'U') {
      const width = next === 'x' ? 2 : next === 'u' ? 4 : 8;
      const hex = body.slice(i + 2, i + 2 + width);
      if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex))
        throw new PythonSyntaxError(`truncated \\${next} escape`, line);
      out += String.fromCodePoint(parseInt(hex, 16));
      i += 1 + width;
    } else if (next === 'N') {
      throw new PythonSyntaxError('\\N{…} escapes are not supported by this reader', line);
    } else {
      // An unknown escape keeps its backslash, as in Python.
      out += ch;
    }
  }
  return out;
}

/** True for a bytes literal token (`b"…"`, `rb'…'`). */
export function isBytesToken(token: Token): boolean {
  return /^[a-zA-Z]*[bB]/.test(/^[a-zA-Z]*/.exec(token.text)![0]);
}

/** Decodes one string token (prefix, quotes, body) into its value. */
export function decodeStringToken(token: Token): PyString {
  const match = /^([a-zA-Z]*)('''|"""|'|")/.exec(token.text);
  if (!match) throw new PythonSyntaxError('not a string literal', token.line);
  const prefix = match[1]!.toLowerCase();
  const quote = match[2]!;
  if (prefix.includes('b')) throw new PythonSyntaxError('bytes literal, not a str', token.line);
  const body = token.text.slice(match[0].length, token.text.length - quote.length);
  const raw = prefix.includes('r');
  if (!prefix.includes('f'))
    return { kind: 'str', parts: [raw ? body : unescape(body, token.line)] };
  return { kind: 'fstring', parts: fstringParts(body, raw, token.line) };
}

function fstringParts(body: string, raw: boolean, line: number): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let literal = '';
  const flushLiteral = () => {
    if (literal) parts.push(raw ? literal : unescape(literal, line));
    literal = '';
  };
  let i = 0;
  while (i < body.length) {
    const ch = body[i]!;
    if (ch === '\\' && !raw) {
      literal += body.slice(i, i + 2);
      i += 2;
      continue;
    }
    if ((ch === '{' || ch === '}') && body[i + 1] === ch) {
      literal += ch;
      i += 2;
      continue;
    }
    if (ch === '}') throw new PythonSyntaxError("f-string: single '}' is not allowed", line);
    if (ch !== '{') {
      literal += ch;
      i += 1;
      continue;
    }
    flushLiteral();
    const { field, end } = readField(body, i + 1, line);
    parts.push(field);
    i = end;
  }
  flushLiteral();
  return mergeParts(parts);
}

/** Reads `expr[!conv][:spec]}` from `start`; returns the field and the index after `}`. */
function readField(
  body: string,
  start: number,
  line: number,
): { field: TemplateField; end: number } {
  let depth = 0;
  let quote: string | undefined;
  let i = start;
  for (; i < body.length; i += 1) {
    const ch = body[i]!;
    if (quote) {
      if (body.startsWith(quote, i)) {
        i += quote.length - 1;
        quote = undefined;
      }
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = body.startsWith(ch.repeat(3), i) ? ch.repeat(3) : ch;
      i += quote.length - 1;
    } else if ('([{'.includes(ch)) depth += 1;
    else if (')]'.includes(ch) || (ch === '}' && depth > 0)) depth -= 1;
    else if (depth === 0 && (ch === '}' || ch === ':' || (ch === '!' && body[i + 1] !== '=')))
      break;
  }
  const expr = body.slice(start, i).trim();
  if (!expr) throw new PythonSyntaxError('f-string: empty expression', line);
  if (expr.endsWith('=') && !/[=!<>]=$/.test(expr))
    throw new PythonSyntaxError('f-string: self-documenting "=" fields are not supported', line);
  let conversion: string | undefined;
  if (body[i] === '!') {
    conversion = body[i + 1];
    i += 2;
  }
  let spec: string | undefined;
  if (body[i] === ':') {
    const close = body.indexOf('}', i);
    spec = close < 0 ? '' : body.slice(i + 1, close);
    if (spec.includes('{'))
      throw new PythonSyntaxError(
        'f-string: nested fields in a format spec are not supported',
        line,
      );
    i = close;
  }
  if (body[i] !== '}') throw new PythonSyntaxError("f-string: expecting '}'", line);
  return {
    field: { expr, ...(conversion !== undefined && { conversion }), ...(spec && { spec }) },
    end: i + 1,
  };
}

function mergeParts(parts: readonly TemplatePart[]): TemplatePart[] {
  const merged: TemplatePart[] = [];
  for (const part of parts) {
    const last = merged[merged.length - 1];
    if (typeof part === 'string' && typeof last === 'string')
      merged[merged.length - 1] = last + part;
    else if (part !== '') merged.push(part);
  }
  return merged;
}

/** Python's implicit concatenation of adjacent string literals. */
export function concatenate(values: readonly PyString[]): PyString {
  return {
    kind: values.some(value => value.kind === 'fstring') ? 'fstring' : 'str',
    parts: mergeParts(values.flatMap(value => value.parts)),
  };
}

/** Characters Python's `str.isspace()` accepts (what `str.strip()` removes). */
const PY_WHITESPACE =
  '\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';

/** Python's `str.strip()` / `lstrip()` / `rstrip()` without arguments. */
export function pyStrip(text: string, which: 'strip' | 'lstrip' | 'rstrip' = 'strip'): string {
  let start = 0;
  let end = text.length;
  if (which !== 'rstrip') while (start < end && PY_WHITESPACE.includes(text[start]!)) start += 1;
  if (which !== 'lstrip') while (end > start && PY_WHITESPACE.includes(text[end - 1]!)) end -= 1;
  return text.slice(start, end);
}
