import {
  concatenate,
  decodeStringToken,
  isBytesToken,
  pyStrip,
  type PyString,
} from './python-strings';
import { PythonSyntaxError, tokenize, type LogicalLine, type Token } from './python-tokens';
import type { PyValue } from './python-values';

/** A string expression found in a function body, in source order. */
export interface FoundString {
  readonly value: PyString;
  readonly line: number;
  /** The dict key whose value this string is (`"text": "…"` gives `text`). */
  readonly dictKey?: string;
  /** The method called on it right away (`"…".format(…)` gives `format`). */
  readonly method?: string;
  /** The first token of its statement (`return`, `raise`, a variable name, …). */
  readonly statement: string;
}

/** A parameter of a `def`: its name and, when it is a literal, its default. */
interface FoundParameter {
  readonly name: string;
  /** The default when it is a literal (`str`, `int`, `bool`, `None`); undefined when none or not a literal. */
  readonly default?: PyValue;
  /** True when the parameter has a default, literal or not. */
  readonly hasDefault: boolean;
}

export interface FoundFunction {
  readonly name: string;
  readonly line: number;
  readonly parameters: readonly FoundParameter[];
  readonly body: readonly LogicalLine[];
}

/** Raised for a symbol that is present but is not what was asked for (not a string, …). */
export class ShapeError extends Error {}

/** The parsed text of one Python module; finds what osharm reads without running it. */
export class PythonModule {
  readonly lines: readonly LogicalLine[];

  constructor(source: string) {
    this.lines = tokenize(source);
  }

  /**
   * The string a module-level `NAME = …` binds (the last such assignment, as Python would leave
   * it): one or more adjacent literals, optionally parenthesised, optionally followed by
   * `.strip()` / `.lstrip()` / `.rstrip()`. Undefined when no such assignment exists.
   */
  constant(name: string): { value: PyString; line: number } | undefined {
    let found: { value: PyString; line: number } | undefined;
    for (const line of this.lines) {
      if (line.indent !== 0) continue;
      const rhs = assignedTokens(line, name);
      if (rhs) found = { value: stringExpression(rhs, name), line: line.line };
    }
    return found;
  }

  /** A `def` at any depth; `Class.method` names a method of a class. Undefined when absent. */
  function(qualifiedName: string): FoundFunction | undefined {
    const names = qualifiedName.split('.');
    let scope: readonly LogicalLine[] = this.lines;
    let indent = 0;
    for (const [index, name] of names.entries()) {
      const keyword = index === names.length - 1 ? 'def' : 'class';
      // The shallowest definition wins (a module-level def over a nested one of the same name).
      let at = -1;
      for (const [i, line] of scope.entries()) {
        if (index > 0 && line.indent !== indent) continue;
        if (line.tokens[0]?.text !== keyword || line.tokens[1]?.text !== name) continue;
        if (at < 0 || line.indent < scope[at]!.indent) at = i;
      }
      if (at < 0) return undefined;
      const header = scope[at]!;
      const body = blockAfter(scope, at);
      if (keyword === 'def')
        return { name, line: header.line, parameters: parameters(header.tokens), body };
      scope = body;
      indent = body[0]?.indent ?? 0;
    }
    return undefined;
  }

  /**
   * The dict literal `name = { "key": "…", … }` (anywhere, or inside `within`'s body) whose values
   * are all strings. Undefined when absent.
   */
  dict(
    name: string,
    lines: readonly LogicalLine[] = this.lines,
  ): Map<string, PyString> | undefined {
    const line = lines.find(candidate => assignedTokens(candidate, name));
    if (!line) return undefined;
    const rhs = assignedTokens(line, name)!;
    if (rhs[0]?.text !== '{' || rhs[rhs.length - 1]?.text !== '}')
      throw new ShapeError(`${name} is not a dict literal (line ${line.line})`);
    const entries = new Map<string, PyString>();
    const items = splitTopLevel(rhs.slice(1, -1), ',');
    for (const item of items) {
      if (item.length === 0) continue;
      const colon = item.findIndex(token => token.text === ':');
      if (colon < 0) throw new ShapeError(`${name}: an item without a key (line ${item[0]!.line})`);
      const key = stringExpression(item.slice(0, colon), name);
      if (key.kind !== 'str')
        throw new ShapeError(`${name}: an f-string key (line ${item[0]!.line})`);
      entries.set(key.parts.join(''), stringExpression(item.slice(colon + 1), name));
    }
    return entries;
  }

  /** A local `name = <string expression>` in a function body (the last one). */
  local(fn: FoundFunction, name: string): { value: PyString; line: number } | undefined {
    let found: { value: PyString; line: number } | undefined;
    for (const line of fn.body) {
      const rhs = assignedTokens(line, name);
      if (rhs) found = { value: stringExpression(rhs, `${fn.name}.${name}`), line: line.line };
    }
    return found;
  }

  /**
   * What a function returns when it returns a string expression, or a local bound to one
   * (`x = f"…"; return x`). Undefined when its return is anything else.
   */
  returnedString(fn: FoundFunction): { value: PyString; line: number } | undefined {
    const returns = fn.body.filter(line => line.tokens[0]?.text === 'return');
    if (returns.length !== 1) return undefined;
    const expr = returns[0]!.tokens.slice(1);
    if (expr.length === 1 && expr[0]!.kind === 'name') return this.local(fn, expr[0]!.text);
    if (expr.every(token => token.kind === 'string'))
      return { value: stringExpression(expr, fn.name), line: returns[0]!.line };
    return undefined;
  }

  /** Every string expression in a function body, in source order (dict keys left out). */
  strings(fn: FoundFunction): FoundString[] {
    const found: FoundString[] = [];
    const tokens = fn.body.flatMap(line => line.tokens);
    const statementOf = new Map<Token, string>(
      fn.body.flatMap(line => line.tokens.map(token => [token, line.tokens[0]!.text] as const)),
    );
    for (let i = 0; i < tokens.length; i += 1) {
      if (tokens[i]!.kind !== 'string') continue;
      let end = i;
      while (tokens[end + 1]?.kind === 'string') end += 1;
      const before = tokens[i - 1]?.text;
      const after = tokens[end + 1]?.text;
      if (isBytesToken(tokens[i]!)) {
        i = end;
        continue;
      }
      const value = concatenate(tokens.slice(i, end + 1).map(decodeStringToken));
      const isKey = after === ':' && (before === '{' || before === ',');
      if (!isKey) {
        let dictKey: string | undefined;
        if (before === ':' && tokens[i - 2]?.kind === 'string') {
          const key = decodeStringToken(tokens[i - 2]!);
          if (key.kind === 'str') dictKey = key.parts.join('');
        }
        const method =
          after === '.' && tokens[end + 2]?.kind === 'name' ? tokens[end + 2]!.text : undefined;
        found.push({
          value,
          line: tokens[i]!.line,
          statement: statementOf.get(tokens[i]!)!,
          ...(dictKey !== undefined && { dictKey }),
          ...(method !== undefined && { method }),
        });
      }
      i = end;
    }
    return found;
  }
}

/** The tokens after `name =` when `line` is that assignment. */
function assignedTokens(line: LogicalLine, name: string): readonly Token[] | undefined {
  const [first, second] = line.tokens;
  if (first?.kind !== 'name' || first.text !== name) return undefined;
  if (second?.text === '=') return line.tokens.slice(2);
  // An annotated assignment: `name: str = …`.
  if (second?.text === ':') {
    const equals = line.tokens.findIndex(token => token.text === '=');
    return equals < 0 ? undefined : line.tokens.slice(equals + 1);
  }
  return undefined;
}

/** The lines of the block that starts after `scope[at]` (its header). */
function blockAfter(scope: readonly LogicalLine[], at: number): LogicalLine[] {
  const header = scope[at]!;
  const body: LogicalLine[] = [];
  for (const line of scope.slice(at + 1)) {
    if (line.indent <= header.indent) break;
    body.push(line);
  }
  return body;
}

const STRIPS = new Set(['strip', 'lstrip', 'rstrip']);

/** Adjacent literals, optionally in parentheses, optionally followed by `.strip()` & co. */
function stringExpression(tokens: readonly Token[], symbol: string): PyString {
  let body = [...tokens];
  let strip: 'strip' | 'lstrip' | 'rstrip' | undefined;
  const n = body.length;
  if (
    n >= 4 &&
    body[n - 4]!.text === '.' &&
    STRIPS.has(body[n - 3]!.text) &&
    body[n - 2]!.text === '(' &&
    body[n - 1]!.text === ')'
  ) {
    strip = body[n - 3]!.text as typeof strip;
    body = body.slice(0, n - 4);
  }
  while (body[0]?.text === '(' && body[body.length - 1]?.text === ')') body = body.slice(1, -1);
  if (body.length === 0 || body.some(token => token.kind !== 'string'))
    throw new ShapeError(`${symbol} is not a string literal (line ${tokens[0]?.line ?? '?'})`);
  const value = concatenate(body.map(decodeStringToken));
  if (!strip) return value;
  if (value.kind !== 'str')
    throw new ShapeError(`${symbol}: .${strip}() on an f-string is not supported`);
  return { kind: 'str', parts: [pyStrip(value.parts.join(''), strip)] };
}

function splitTopLevel(tokens: readonly Token[], separator: string): Token[][] {
  const items: Token[][] = [[]];
  let depth = 0;
  for (const token of tokens) {
    if ('([{'.includes(token.text) && token.kind === 'op') depth += 1;
    if (')]}'.includes(token.text) && token.kind === 'op') depth -= 1;
    if (depth === 0 && token.text === separator) items.push([]);
    else items[items.length - 1]!.push(token);
  }
  return items;
}

function parameters(header: readonly Token[]): FoundParameter[] {
  const open = header.findIndex(token => token.text === '(');
  let depth = 0;
  let close = open;
  for (let i = open; i < header.length; i += 1) {
    if (header[i]!.text === '(') depth += 1;
    if (header[i]!.text === ')' && --depth === 0) {
      close = i;
      break;
    }
  }
  return splitTopLevel(header.slice(open + 1, close), ',')
    .filter(item => item.length > 0 && item[0]!.kind === 'name')
    .map(item => {
      const equals = item.findIndex(token => token.text === '=');
      if (equals < 0) return { name: item[0]!.text, hasDefault: false };
      const literal = literalValue(item.slice(equals + 1));
      return {
        name: item[0]!.text,
        hasDefault: true,
        ...(literal !== undefined && { default: literal }),
      };
    });
}

function literalValue(tokens: readonly Token[]): PyValue | undefined {
  const negative = tokens[0]?.text === '-';
  const rest = negative ? tokens.slice(1) : tokens;
  if (rest.length === 1 && rest[0]!.kind === 'number' && /^\d+$/.test(rest[0]!.text))
    return (negative ? -1 : 1) * Number(rest[0]!.text);
  if (negative) return undefined;
  if (rest.length === 1 && rest[0]!.kind === 'name') {
    const word = rest[0]!.text;
    if (word === 'None') return null;
    if (word === 'True' || word === 'False') return word === 'True';
    return undefined;
  }
  if (rest.length > 0 && rest.every(token => token.kind === 'string')) {
    try {
      const value = concatenate(rest.map(decodeStringToken));
      return value.kind === 'str' ? value.parts.join('') : undefined;
    } catch (error) {
      if (error instanceof PythonSyntaxError) return undefined;
      throw error;
    }
  }
  return undefined;
}
