// pyautogui types `<` as `>` on some X keyboard layouts (pyautogui issue #198, OSWorld issue #257).
// Upstream's env (U26) rewrites such key presses into shift+comma before running agent code; this is
// that rewrite, with a real Python string scanner instead of upstream's regexes.

const SHIFT_COMMA = 'pyautogui.hotkey("shift", ",")';

interface PythonString {
  /** Index just past the closing quote. */
  readonly end: number;
  readonly prefix: string;
  /** `'`, `"`, `'''` or `"""`. */
  readonly quote: string;
  /** The source text between the quotes, escapes as written. */
  readonly body: string;
}

/** Scans a Python string literal starting at `start` (prefix included), or undefined. */
function scanString(code: string, start: number): PythonString | undefined {
  const prefixMatch = /^[rRuUbBfF]{0,2}/.exec(code.slice(start, start + 2))!;
  const prefix = prefixMatch[0];
  let at = start + prefix.length;
  const char = code[at];
  if (char !== '"' && char !== "'") return undefined;
  const quote = code.startsWith(char.repeat(3), at) ? char.repeat(3) : char;
  at += quote.length;
  const bodyStart = at;
  while (at < code.length) {
    if (code[at] === '\\') {
      at += 2;
      continue;
    }
    if (code.startsWith(quote, at))
      return { end: at + quote.length, prefix, quote, body: code.slice(bodyStart, at) };
    if (quote.length === 1 && code[at] === '\n') return undefined;
    at += 1;
  }
  return undefined;
}

/** Index of the `)` closing a call whose arguments start at `start`, skipping strings; or -1. */
function callEnd(code: string, start: number): number {
  let depth = 0;
  for (let at = start; at < code.length; at += 1) {
    const char = code[at]!;
    if (char === '"' || char === "'") {
      const string = scanString(code, at);
      if (!string) return -1;
      at = string.end - 1;
    } else if (char === '(' || char === '[' || char === '{') depth += 1;
    else if (char === ')' || char === ']' || char === '}') {
      if (depth === 0) return char === ')' ? at : -1;
      depth -= 1;
    } else if (char === '#') {
      const newline = code.indexOf('\n', at);
      if (newline < 0) return -1;
      at = newline;
    }
  }
  return -1;
}

const LESS_THAN_ESCAPE = /^\\(?:x3[cC]|u003[cC]|U0000003[cC]|074)/;

/**
 * Splits a string body at every `<` (written as is, or as `\x3c`, `\u003c`, `\U0000003c` or `\074`
 * outside raw strings); other escapes are kept as written.
 */
function splitAtLessThan(body: string, raw: boolean): string[] {
  const parts: string[] = [];
  let current = '';
  for (let at = 0; at < body.length;) {
    const char = body[at]!;
    if (char === '<') {
      parts.push(current);
      current = '';
      at += 1;
    } else if (char === '\\') {
      const escape = raw ? null : LESS_THAN_ESCAPE.exec(body.slice(at, at + 10));
      if (escape) {
        parts.push(current);
        current = '';
        at += escape[0].length;
      } else {
        current += body.slice(at, at + 2);
        at += 2;
      }
    } else {
      current += char;
      at += 1;
    }
  }
  parts.push(current);
  return parts;
}

/**
 * Rewrites the `<` key presses of pyautogui code into `pyautogui.hotkey("shift", ",")`, as
 * upstream's env does before running agent code (U26):
 * - `pyautogui.press('<')` (or `"<"`, `'\u003c'`) becomes the hotkey;
 * - `pyautogui.typewrite('a<b', …)` becomes `pyautogui.typewrite('a', …); pyautogui.hotkey("shift", ",");
 *   pyautogui.typewrite('b', …)`: other arguments are kept for every part, empty parts are dropped.
 *
 * Differences from upstream, on purpose: `pyautogui.write` (the same function as `typewrite`) is
 * rewritten too; escaped quotes inside the string are understood; other escape sequences are kept
 * as written (upstream decoded them, which broke strings holding `\n` and `<`); f-strings and byte
 * strings are left alone. The env applies this; the agent logs the code as the model wrote it.
 */
export function rewriteLessThanKeys(code: string): string {
  if (!code.includes('<') && !/\\(?:x3[cC]|u003[cC]|U0000003[cC]|074)/.test(code)) return code;
  const call = /pyautogui\.(press|typewrite|write)\(\s*/g;
  let output = '';
  let copied = 0;
  for (let match = call.exec(code); match; match = call.exec(code)) {
    const argsStart = match.index + match[0].length;
    const string = scanString(code, argsStart);
    if (!string || /[bBfF]/.test(string.prefix)) continue;
    const end = callEnd(code, string.end);
    if (end < 0) continue;
    const raw = /[rR]/.test(string.prefix);
    const parts = splitAtLessThan(string.body, raw);
    if (parts.length === 1) continue;
    const rest = code.slice(string.end, end).trimEnd();
    let replacement: string;
    if (match[1] === 'press') {
      if (parts.length !== 2 || parts[0] !== '' || parts[1] !== '' || rest !== '') continue;
      replacement = SHIFT_COMMA;
    } else {
      const literal = (part: string) => `${string.prefix}${string.quote}${part}${string.quote}`;
      const statements: string[] = [];
      parts.forEach((part, index) => {
        if (index > 0) statements.push(SHIFT_COMMA);
        if (part !== '') statements.push(`pyautogui.${match[1]}(${literal(part)}${rest})`);
      });
      replacement = statements.join('; ');
    }
    output += code.slice(copied, match.index) + replacement;
    copied = end + 1;
    call.lastIndex = end + 1;
  }
  return output + code.slice(copied);
}
