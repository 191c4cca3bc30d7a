/**
 * A small tokenizer for Python source, enough to find assignments, function definitions and
 * string literals. It never executes anything. Tokens carry their 1-based line, so every error
 * can point at the source.
 */

type TokenKind = 'name' | 'string' | 'number' | 'op';

export interface Token {
  readonly kind: TokenKind;
  /** The source text of the token (a string token keeps its prefix and quotes). */
  readonly text: string;
  readonly line: number;
}

/** One logical line: the tokens between two NEWLINEs of Python's grammar. */
export interface LogicalLine {
  /** Column of the first token (Python's indentation of the statement). */
  readonly indent: number;
  readonly line: number;
  readonly tokens: readonly Token[];
}

/** Thrown for source the tokenizer cannot read; the caller names file and symbol. */
export class PythonSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
  }
}

const OPERATORS = [
  '**=',
  '//=',
  '>>=',
  '<<=',
  '...',
  '->',
  ':=',
  '==',
  '!=',
  '<=',
  '>=',
  '**',
  '//',
  '<<',
  '>>',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '@=',
];
const NAME = /[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*/uy;
const NUMBER =
  /(?:0[xXoObB][0-9a-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?)/y;
const STRING_PREFIX = /(?:[rRbBuUfF]{1,2})?(?='|")/y;

/** Splits Python source into logical lines of tokens (comments and blank lines dropped). */
export function tokenize(source: string): LogicalLine[] {
  const lines: LogicalLine[] = [];
  let tokens: Token[] = [];
  let indent = 0;
  let startLine = 1;
  let depth = 0;
  let line = 1;
  let atLineStart = true;
  let column = 0;
  let i = 0;
  const flush = () => {
    if (tokens.length > 0) lines.push({ indent, line: startLine, tokens });
    tokens = [];
  };
  const push = (kind: TokenKind, text: string) => {
    if (tokens.length === 0) {
      indent = column;
      startLine = line;
    }
    tokens.push({ kind, text, line });
  };
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === '\n') {
      line += 1;
      i += 1;
      if (depth === 0) {
        flush();
        atLineStart = true;
        column = 0;
      }
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\f' || ch === '\r') {
      if (atLineStart) column += ch === '\t' ? 8 - (column % 8) : 1;
      i += 1;
      continue;
    }
    if (ch === '#') {
      while (i < source.length && source[i] !== '\n') i += 1;
      continue;
    }
    if (
      ch === '\\' &&
      (source[i + 1] === '\n' || (source[i + 1] === '\r' && source[i + 2] === '\n'))
    ) {
      i += source[i + 1] === '\n' ? 2 : 3;
      line += 1;
      atLineStart = false;
      continue;
    }
    atLineStart = false;
    STRING_PREFIX.lastIndex = i;
    const prefix = STRING_PREFIX.exec(source);
    if (prefix) {
      const end = stringEnd(source, i + prefix[0].length, line);
      const text = source.slice(i, end);
      push('string', text);
      line += countNewlines(text);
      i = end;
      continue;
    }
    NAME.lastIndex = i;
    const name = NAME.exec(source);
    if (name) {
      push('name', name[0]);
      i += name[0].length;
      continue;
    }
    NUMBER.lastIndex = i;
    const number = /[0-9.]/.test(ch) ? NUMBER.exec(source) : null;
    if (number && number[0] !== '.' && number[0] !== '') {
      push('number', number[0]);
      i += number[0].length;
      continue;
    }
    const op = OPERATORS.find(candidate => source.startsWith(candidate, i)) ?? ch;
    if ('([{'.includes(op)) depth += 1;
    if (')]}'.includes(op)) depth = Math.max(0, depth - 1);
    push('op', op);
    i += op.length;
  }
  flush();
  return lines;
}

function countNewlines(text: string): number {
  let count = 0;
  for (const ch of text) if (ch === '\n') count += 1;
  return count;
}

/** Index just past the closing quote of the string whose opening quote is at `start`. */
function stringEnd(source: string, start: number, line: number): number {
  const quote = source[start]!;
  const triple = source.startsWith(quote.repeat(3), start);
  const closing = triple ? quote.repeat(3) : quote;
  let i = start + closing.length;
  while (i < source.length) {
    const ch = source[i]!;
    // A backslash always takes the next character with it, raw strings included.
    if (ch === '\\') {
      i += 2;
      continue;
    }
    if (!triple && ch === '\n') break;
    if (source.startsWith(closing, i)) return i + closing.length;
    i += 1;
  }
  throw new PythonSyntaxError('unterminated string literal', line);
}
