import {
  concatenate,
  decodeStringToken,
  type PyString,
  type TemplateField,
} from './python-strings';
import { tokenize, type Token } from './python-tokens';

/**
 * A value osharm passes into upstream's templates: `str`, `int` (an integer number), `bool` or
 * `None` (null). Anything else has no unambiguous Python `str()` here and is refused.
 */
export type PyValue = string | number | boolean | null;

/** Thrown when a template cannot be filled the way Python would fill it. */
export class TemplateFillError extends Error {}

/** Python's `str(value)` for the values osharm passes. */
export function pyStr(value: PyValue): string {
  if (typeof value === 'string') return value;
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (Number.isSafeInteger(value)) return String(value);
  throw new TemplateFillError(`cannot format ${value}: only int values are supported`);
}

function formatField(
  value: PyValue,
  conversion: string | undefined,
  spec: string | undefined,
  what: string,
) {
  if (conversion !== undefined && conversion !== 's')
    throw new TemplateFillError(`${what}: conversion !${conversion} is not supported`);
  if (spec) throw new TemplateFillError(`${what}: format spec ":${spec}" is not supported`);
  return pyStr(value);
}

/**
 * Python's `template.format(*positional, **named)` for plain fields: `{}`, `{0}`, `{name}`, with
 * `{{` / `}}` escapes. Attribute and index lookups, conversions other than `!s` and format specs
 * are refused instead of guessed.
 */
export function pyFormat(
  template: string,
  positional: readonly PyValue[] = [],
  named: Readonly<Record<string, PyValue>> = {},
): string {
  let out = '';
  let auto = 0;
  let numbering: 'auto' | 'manual' | undefined;
  for (let i = 0; i < template.length; i += 1) {
    const ch = template[i]!;
    if ((ch === '{' || ch === '}') && template[i + 1] === ch) {
      out += ch;
      i += 1;
      continue;
    }
    if (ch === '}') throw new TemplateFillError("Single '}' encountered in format string");
    if (ch !== '{') {
      out += ch;
      continue;
    }
    const close = template.indexOf('}', i);
    if (close < 0) throw new TemplateFillError("Single '{' encountered in format string");
    const inner = template.slice(i + 1, close);
    const [, field = '', conversion, spec] = /^([^!:]*)(?:!(.))?(?::(.*))?$/s.exec(inner) ?? [];
    let value: PyValue | undefined;
    if (field === '' || /^\d+$/.test(field)) {
      const kind = field === '' ? 'auto' : 'manual';
      if (numbering && numbering !== kind)
        throw new TemplateFillError('cannot switch between automatic and manual field numbering');
      numbering = kind;
      const index = field === '' ? auto++ : Number(field);
      if (index >= positional.length)
        throw new TemplateFillError(
          `Replacement index ${index} out of range for positional args tuple`,
        );
      value = positional[index];
    } else if (/^[\p{L}_][\p{L}\p{N}_]*$/u.test(field)) {
      if (!(field in named)) throw new TemplateFillError(`KeyError: '${field}'`);
      value = named[field];
    } else throw new TemplateFillError(`field "{${inner}}" is not supported`);
    out += formatField(value!, conversion, spec, `{${inner}}`);
    i = close;
  }
  return out;
}

/**
 * Fills an f-string's fields from `scope` (the names Python would see). A field's expression may
 * be a name, a literal, `a == b` / `a != b`, or `x if cond else y` over those; anything else is
 * refused.
 */
export function fillTemplate(
  value: PyString,
  scope: Readonly<Record<string, PyValue>> = {},
): string {
  return value.parts
    .map(part => (typeof part === 'string' ? part : fillField(part, scope)))
    .join('');
}

function fillField(field: TemplateField, scope: Readonly<Record<string, PyValue>>): string {
  const lines = tokenize(`(${field.expr})`);
  const tokens = lines.flatMap(line => line.tokens);
  const parser = new ExpressionParser(tokens, scope, field.expr);
  const result = parser.parse();
  return formatField(result, field.conversion, field.spec, `{${field.expr}}`);
}

class ExpressionParser {
  private position = 0;
  constructor(
    private readonly tokens: readonly Token[],
    private readonly scope: Readonly<Record<string, PyValue>>,
    private readonly source: string,
  ) {}

  parse(): PyValue {
    const value = this.conditional();
    if (this.position !== this.tokens.length) this.fail();
    return value;
  }

  private peek(): Token | undefined {
    return this.tokens[this.position];
  }

  private fail(): never {
    throw new TemplateFillError(`f-string field {${this.source}} is not supported by this reader`);
  }

  private conditional(): PyValue {
    const then = this.comparison();
    if (this.peek()?.text !== 'if') return then;
    this.position += 1;
    const condition = this.comparison();
    if (this.peek()?.text !== 'else') this.fail();
    this.position += 1;
    const otherwise = this.conditional();
    return truthy(condition) ? then : otherwise;
  }

  private comparison(): PyValue {
    const left = this.atom();
    const op = this.peek()?.text;
    if (op !== '==' && op !== '!=') return left;
    this.position += 1;
    const right = this.atom();
    return op === '==' ? left === right : left !== right;
  }

  private atom(): PyValue {
    const token = this.peek();
    if (!token) this.fail();
    this.position += 1;
    if (token.kind === 'string') {
      const strings = [decodeStringToken(token)];
      while (this.peek()?.kind === 'string')
        strings.push(decodeStringToken(this.tokens[this.position++]!));
      const joined = concatenate(strings);
      return fillTemplate(joined, this.scope);
    }
    if (token.kind === 'number' && /^\d+$/.test(token.text)) return Number(token.text);
    if (token.kind === 'name') {
      if (token.text === 'None') return null;
      if (token.text === 'True') return true;
      if (token.text === 'False') return false;
      // A dotted name (`self.observation_type`) is looked up whole in the scope.
      let name = token.text;
      while (this.peek()?.text === '.' && this.tokens[this.position + 1]?.kind === 'name') {
        name += `.${this.tokens[this.position + 1]!.text}`;
        this.position += 2;
      }
      if (!(name in this.scope))
        throw new TemplateFillError(`f-string field {${this.source}}: no value for name "${name}"`);
      return this.scope[name]!;
    }
    if (token.text === '(') {
      const value = this.conditional();
      if (this.peek()?.text !== ')') this.fail();
      this.position += 1;
      return value;
    }
    return this.fail();
  }
}

function truthy(value: PyValue): boolean {
  return value !== null && value !== false && value !== 0 && value !== '';
}
