import { concatenate, decodeStringToken, type PyString } from './python-strings';
import { tokenize, type LogicalLine, type Token } from './python-tokens';

/** Matches one or more adjacent string literals (implicit concatenation) in a {@link CodePattern}. */
export const STRING_LITERAL: unique symbol = Symbol('string literal');

/** Token texts to match in order; {@link STRING_LITERAL} captures a string expression. */
export type CodePattern = readonly (string | typeof STRING_LITERAL)[];

/** Where {@link findLiterals} looks and what it keeps. */
export interface FindLiteralsOptions {
  /** `Class.method`, `function` or `Class`: only statements inside it. @default the whole module */
  readonly within?: string;
  /**
   * Keep only matches whose statement sits directly under a block header (`if`, `elif`, `case`,
   * `for`, …) having a string literal equal to this value, e.g. `"som"` for
   * `elif self.observation_type == "som":`.
   */
  readonly under?: string;
}

function matchAt(tokens: readonly Token[], start: number, pattern: CodePattern): PyString[] | null {
  const captured: PyString[] = [];
  let at = start;
  for (const item of pattern) {
    if (item === STRING_LITERAL) {
      const strings: PyString[] = [];
      while (tokens[at]?.kind === 'string') strings.push(decodeStringToken(tokens[at++]!));
      if (strings.length === 0) return null;
      captured.push(concatenate(strings));
    } else {
      if (tokens[at]?.text !== item) return null;
      at += 1;
    }
  }
  return captured;
}

/** The plain string literals of the block header a statement sits directly under. */
function headerStrings(lines: readonly LogicalLine[], index: number, floor: number): string[] {
  const indent = lines[index]!.indent;
  for (let at = index - 1; at >= floor; at -= 1) {
    const line = lines[at]!;
    if (line.indent < indent)
      return line.tokens
        .filter(token => token.kind === 'string')
        .map(token => decodeStringToken(token))
        .filter(value => value.kind === 'str')
        .map(value => value.parts.join(''));
  }
  return [];
}

/** The line range `[start, end)` of the body of `Class.method` / `function` / `Class`. */
function scopeRange(lines: readonly LogicalLine[], within: string): [number, number] | undefined {
  let start = 0;
  let end = lines.length;
  let indent = -1;
  for (const name of within.split('.')) {
    const at = lines.findIndex(
      (line, index) =>
        index >= start &&
        index < end &&
        line.indent > indent &&
        (line.tokens[0]?.text === 'class' || line.tokens[0]?.text === 'def') &&
        line.tokens[1]?.text === name,
    );
    if (at < 0) return undefined;
    indent = lines[at]!.indent;
    start = at + 1;
    end = start;
    while (end < lines.length && lines[end]!.indent > indent) end += 1;
  }
  return [start, end];
}

/**
 * Every match of `pattern` in the statements of a Python module (optionally inside `within` and
 * under a header naming `under`): for each match, its line and the string expressions it
 * captured, in order.
 * Nothing is executed; literals are found by the code around them, never by their words.
 * @throws {Error} when `within` does not exist in the module
 */
export function findLiterals(
  source: string,
  pattern: CodePattern,
  { within, under }: FindLiteralsOptions = {},
): { readonly line: number; readonly strings: PyString[] }[] {
  const lines = tokenize(source);
  const range = within === undefined ? ([0, lines.length] as const) : scopeRange(lines, within);
  if (range === undefined) throw new Error(`${within} not found`);
  const [start, end] = range;
  const found: { line: number; strings: PyString[] }[] = [];
  for (let index = start; index < end; index += 1) {
    const tokens = lines[index]!.tokens;
    for (let at = 0; at < tokens.length; at += 1) {
      const captured = matchAt(tokens, at, pattern);
      if (!captured) continue;
      if (under === undefined || headerStrings(lines, index, start - 1).includes(under))
        found.push({ line: lines[index]!.line, strings: captured });
    }
  }
  return found;
}
