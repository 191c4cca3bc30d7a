import { EvaluationError } from './evaluator-error';
import { PYTHON_WHITESPACE_CLASS } from './evaluator-python-text';

/**
 * Python `re` flags, by the names upstream rules use after `re.` (e.g. `re.IGNORECASE` or `re.I`).
 */
export interface PythonRegexFlags {
  /** `re.I` / `re.IGNORECASE`. */
  readonly ignoreCase?: boolean;
  /** `re.M` / `re.MULTILINE`: `^`/`$` also match at line starts/ends. */
  readonly multiline?: boolean;
  /** `re.S` / `re.DOTALL`: `.` also matches `\n`. */
  readonly dotAll?: boolean;
  /** `re.X` / `re.VERBOSE`: whitespace and `#` comments outside classes are ignored. */
  readonly verbose?: boolean;
  /** `re.A` / `re.ASCII`: `\w \d \s \b` are ASCII-only. */
  readonly ascii?: boolean;
}

type FlagKey = keyof PythonRegexFlags;

const FLAG_NAMES: Readonly<Record<string, FlagKey | null>> = {
  I: 'ignoreCase',
  IGNORECASE: 'ignoreCase',
  M: 'multiline',
  MULTILINE: 'multiline',
  S: 'dotAll',
  DOTALL: 'dotAll',
  X: 'verbose',
  VERBOSE: 'verbose',
  A: 'ascii',
  ASCII: 'ascii',
  // str patterns are Unicode in Python 3 anyway; DEBUG only prints
  U: null,
  UNICODE: null,
  NOFLAG: null,
  DEBUG: null,
};

const INLINE_FLAGS: Readonly<Record<string, FlagKey | null>> = {
  i: 'ignoreCase',
  m: 'multiline',
  s: 'dotAll',
  x: 'verbose',
  a: 'ascii',
  u: null,
};

/**
 * Maps the flag names of a `re.<FLAG>[.<FLAG>…]` rule method (the part after `re`) to flags.
 * `re.LOCALE` is rejected as Python rejects it for str patterns; unknown names are a config bug.
 */
export function pythonRegexFlagsFromNames(names: readonly string[]): PythonRegexFlags {
  const flags: { -readonly [K in FlagKey]?: boolean } = {};
  for (const flagName of names) {
    if (flagName === 'L' || flagName === 'LOCALE') {
      throw new EvaluationError({
        message: 'regex flag re.LOCALE cannot be used with a str pattern (as in Python)',
        subject: `re.${flagName}`,
      });
    }
    if (!Object.hasOwn(FLAG_NAMES, flagName)) {
      throw new EvaluationError({
        message: `unknown Python regex flag "re.${flagName}" (known: ${Object.keys(FLAG_NAMES).join(', ')}, L, LOCALE)`,
        subject: `re.${flagName}`,
      });
    }
    const key = FLAG_NAMES[flagName];
    if (key) flags[key] = true;
  }
  return flags;
}

const JS_SYNTAX_CHARACTERS = new Set(Array.from('^$\\.*+?()[]{}|/'));
const CLASS_SYNTAX_CHARACTERS = new Set(Array.from('^$\\.*+?()[]{}|/-'));
const OCTAL = /^[0-7]$/;
const HEX = /^[0-9a-fA-F]$/;

const UNICODE_WORD = '\\p{L}\\p{N}_';
const ASCII_WORD = 'A-Za-z0-9_';
const ASCII_WHITESPACE = ' \\t\\n\\r\\f\\v';

/** The complement, as class ranges, of a set of code point ranges (for `\S`, `\W` in classes). */
function complementRanges(ranges: ReadonlyArray<readonly [number, number]>): string {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const parts: string[] = [];
  let next = 0;
  for (const [start, end] of sorted) {
    if (start > next) parts.push(`\\u{${next.toString(16)}}-\\u{${(start - 1).toString(16)}}`);
    next = Math.max(next, end + 1);
  }
  if (next <= 0x10ffff) parts.push(`\\u{${next.toString(16)}}-\\u{10ffff}`);
  return parts.join('');
}

const PYTHON_WHITESPACE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x09, 0x0d],
  [0x1c, 0x20],
  [0x85, 0x85],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
];
const ASCII_WHITESPACE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x09, 0x0d],
  [0x20, 0x20],
];
const ASCII_WORD_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];

const codePoint = (character: string): string => {
  const point = character.codePointAt(0) as number;
  return `\\u{${point.toString(16)}}`;
};

/**
 * Translates a Python `re` pattern (str pattern, Python 3.11+ syntax) into an equivalent JavaScript
 * `RegExp` (compiled with the `u` flag). Python semantics kept: Unicode `\w \d \s \b` (ASCII with
 * `re.A`), `.` excluding only `\n`, `$` also matching before a final `\n`, `\A \Z`, `(?P<name>…)`,
 * `(?P=name)`, `(?#…)`, `{,n}`, a literal `{` that is not a quantifier, leading inline flags
 * `(?aimsx)`, verbose mode. Constructs JavaScript lacks (scoped flags `(?i:…)`, atomic groups,
 * possessive quantifiers, conditionals, `\N{…}`) raise {@link EvaluationError}, as do patterns
 * Python itself rejects (bad escapes).
 *
 * @throws EvaluationError when the pattern cannot be translated or compiled.
 */
export function compilePythonRegex(pattern: string, flags: PythonRegexFlags = {}): RegExp {
  const characters = Array.from(pattern);
  const active: { -readonly [K in FlagKey]?: boolean } = { ...flags };
  let position = 0;

  const fail = (reason: string): never => {
    throw new EvaluationError({
      message: `cannot use Python regex ${JSON.stringify(pattern)}: ${reason}`,
      subject: pattern,
    });
  };

  // leading global inline flags: (?aimsux)
  for (;;) {
    const match = /^\(\?([aiLmsux]+)\)/.exec(characters.slice(position).join(''));
    if (!match) break;
    for (const letter of match[1] as string) {
      if (letter === 'L') fail('the L (LOCALE) flag is not allowed for str patterns');
      const key = INLINE_FLAGS[letter];
      if (key) active[key] = true;
    }
    position += Array.from(match[0]).length;
  }

  const ascii = active.ascii === true;
  const wordClass = ascii ? ASCII_WORD : UNICODE_WORD;
  const whitespaceClass = ascii ? ASCII_WHITESPACE : PYTHON_WHITESPACE_CLASS;
  const word = `[${wordClass}]`;

  const peek = (offset = 0): string | undefined => characters[position + offset];

  /** Reads the escape after a backslash; returns its translation for inside or outside a class. */
  const readEscape = (inClass: boolean): string => {
    const letter = peek();
    if (letter === undefined) return fail('pattern ends with a backslash');
    position++;
    switch (letter) {
      case 'd':
        return inClass ? (ascii ? '0-9' : '\\p{Nd}') : ascii ? '[0-9]' : '\\p{Nd}';
      case 'D':
        return inClass
          ? ascii
            ? complementRanges([[0x30, 0x39]])
            : '\\P{Nd}'
          : ascii
            ? '[^0-9]'
            : '\\P{Nd}';
      case 'w':
        return inClass ? wordClass : word;
      case 'W':
        if (inClass) {
          if (!ascii) return fail('\\W inside a character class needs re.ASCII here');
          return complementRanges(ASCII_WORD_RANGES);
        }
        return `[^${wordClass}]`;
      case 's':
        return inClass ? whitespaceClass : `[${whitespaceClass}]`;
      case 'S':
        if (inClass) {
          return complementRanges(ascii ? ASCII_WHITESPACE_RANGES : PYTHON_WHITESPACE_RANGES);
        }
        return `[^${whitespaceClass}]`;
      case 'b':
        if (inClass) return '\\x08';
        return ascii ? '\\b' : `(?:(?<=${word})(?!${word})|(?<!${word})(?=${word}))`;
      case 'B':
        if (inClass) return fail('bad escape \\B in a character class');
        return ascii ? '\\B' : `(?:(?<=${word})(?=${word})|(?<!${word})(?!${word}))`;
      case 'A':
        if (inClass) return fail('bad escape \\A in a character class');
        return '(?<![\\s\\S])';
      case 'Z':
        if (inClass) return fail('bad escape \\Z in a character class');
        return '(?![\\s\\S])';
      case 'a':
        return '\\x07';
      case 'f':
        return '\\f';
      case 'n':
        return '\\n';
      case 'r':
        return '\\r';
      case 't':
        return '\\t';
      case 'v':
        return '\\v';
      case 'x': {
        const digits = characters.slice(position, position + 2).join('');
        if (!/^[0-9a-fA-F]{2}$/.test(digits)) return fail('incomplete escape \\x');
        position += 2;
        return `\\x${digits}`;
      }
      case 'u':
      case 'U': {
        const width = letter === 'u' ? 4 : 8;
        const digits = characters.slice(position, position + width).join('');
        if (digits.length !== width || !Array.from(digits).every(d => HEX.test(d))) {
          return fail(`incomplete escape \\${letter}`);
        }
        position += width;
        const value = Number.parseInt(digits, 16);
        if (value > 0x10ffff) return fail(`bad escape \\${letter}${digits}`);
        return `\\u{${value.toString(16)}}`;
      }
      case 'N':
        return fail('named Unicode escapes \\N{…} are not supported');
      default:
        break;
    }
    if (/^[0-9]$/.test(letter)) {
      // octal escape (\0, \0oo, or three octal digits) or a group reference
      let digits = letter;
      if (letter === '0' || (inClass && OCTAL.test(letter))) {
        // \0oo anywhere, and any octal escape (up to three digits) inside a class
        while (digits.length < 3 && OCTAL.test(peek() ?? '')) digits += characters[position++];
        const value = Number.parseInt(digits, 8);
        if (value > 0o377) return fail(`octal escape value \\${digits} outside of range 0-0o377`);
        return codePoint(String.fromCodePoint(value));
      }
      if (OCTAL.test(letter) && OCTAL.test(peek() ?? '') && OCTAL.test(peek(1) ?? '')) {
        digits += (characters[position] as string) + (characters[position + 1] as string);
        position += 2;
        const value = Number.parseInt(digits, 8);
        if (value > 0o377) return fail(`octal escape value \\${digits} outside of range 0-0o377`);
        return codePoint(String.fromCodePoint(value));
      }
      if (inClass) return fail(`bad escape \\${letter} in a character class`);
      if (/^[0-9]$/.test(peek() ?? '')) digits += characters[position++];
      return `\\${digits}`;
    }
    if (/^[A-Za-z]$/.test(letter)) return fail(`bad escape \\${letter}`);
    const syntax = inClass ? CLASS_SYNTAX_CHARACTERS : JS_SYNTAX_CHARACTERS;
    return syntax.has(letter) ? `\\${letter}` : letter;
  };

  const readClass = (): string => {
    // position is just after '['
    let out = '[';
    if (peek() === '^') {
      out += '^';
      position++;
    }
    if (peek() === ']') {
      out += '\\]';
      position++;
    }
    for (;;) {
      const character = peek();
      if (character === undefined) return fail('unterminated character set');
      position++;
      if (character === ']') break;
      if (character === '\\') out += readEscape(true);
      else if (character === '[') out += '\\[';
      else out += character;
    }
    return `${out}]`;
  };

  let source = '';
  while (position < characters.length) {
    const character = characters[position++] as string;
    if (active.verbose) {
      // sre_parse's WHITESPACE: ASCII only
      if (' \t\n\r\v\f'.includes(character)) continue;
      if (character === '#') {
        while (position < characters.length && characters[position] !== '\n') position++;
        continue;
      }
    }
    switch (character) {
      case '\\':
        source += readEscape(false);
        break;
      case '[':
        source += readClass();
        break;
      case '.':
        source += active.dotAll ? '[\\s\\S]' : '[^\\n]';
        break;
      case '^':
        source += active.multiline ? '(?:(?<![\\s\\S])|(?<=\\n))' : '(?<![\\s\\S])';
        break;
      case '$':
        source += active.multiline ? '(?=\\n|(?![\\s\\S]))' : '(?=\\n?(?![\\s\\S]))';
        break;
      case '{': {
        const rest = characters.slice(position).join('');
        const quantifier = /^(\d*)(?:(,)(\d*))?\}/.exec(rest);
        if (quantifier && !(quantifier[1] === '' && quantifier[2] === undefined)) {
          const low = quantifier[1] === '' ? '0' : quantifier[1];
          source += quantifier[2] === undefined ? `{${low}}` : `{${low},${quantifier[3] ?? ''}}`;
          position += Array.from(quantifier[0]).length;
        } else {
          source += '\\{';
        }
        break;
      }
      case '}':
        source += '\\}';
        break;
      case ']':
        source += '\\]';
        break;
      case '/':
        source += '\\/';
        break;
      case '(': {
        if (peek() !== '?') {
          source += '(';
          break;
        }
        const rest = characters.slice(position).join('');
        let match: RegExpExecArray | null;
        if ((match = /^\?P<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest))) {
          source += `(?<${match[1]}>`;
        } else if ((match = /^\?P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(rest))) {
          source += `\\k<${match[1]}>`;
        } else if ((match = /^\?#[^)]*\)/.exec(rest))) {
          // comment group
        } else if ((match = /^\?(?::|=|!|<=|<!)/.exec(rest))) {
          source += `(${match[0]}`;
        } else if (/^\?[aiLmsux]+\)/.test(rest)) {
          return fail('global flags not at the start of the expression');
        } else if (/^\?[-aiLmsux]*:/.test(rest)) {
          return fail('scoped inline flags (?flags:…) are not supported');
        } else if (rest.startsWith('?>')) {
          return fail('atomic groups (?>…) are not supported');
        } else if (rest.startsWith('?(')) {
          return fail('conditional groups (?(…)…) are not supported');
        } else {
          return fail(`unknown extension ${rest.slice(0, 3)}`);
        }
        position += Array.from(match[0]).length;
        break;
      }
      default:
        source += character;
    }
  }

  try {
    return new RegExp(source, active.ignoreCase ? 'iu' : 'u');
  } catch (error) {
    return fail(`JavaScript rejects the translation /${source}/ (${(error as Error).message})`);
  }
}

/** Python `re.search(pattern, text, flags) is not None`. */
export function pythonRegexSearch(
  pattern: string,
  text: string,
  flags: PythonRegexFlags = {},
): boolean {
  return compilePythonRegex(pattern, flags).test(text);
}
