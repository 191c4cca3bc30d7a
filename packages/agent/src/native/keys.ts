/**
 * Key names of the three vendors' computer-use tools → pyautogui key names.
 *
 * - Anthropic (xdotool style): `ctrl+s`, `Return`, `alt+Tab`, `Page_Up`, `BackSpace`, `super`;
 * - OpenAI: an array per combination, `["CTRL", "S"]`, `ENTER`, `ARROWLEFT`, `CMD`;
 * - Gemini (Playwright style): `Control+C`, `Enter`, `ArrowDown`, `Meta`.
 *
 * One alias table serves all three (names are matched case-insensitively); a single printable
 * character stands for itself. An unknown name is an error, so a batch stops at that action
 * instead of pressing something else.
 */

/** Lower-case alias → pyautogui name. */
const ALIASES: Readonly<Record<string, string>> = {
  // modifiers
  ctrl: 'ctrl',
  control: 'ctrl',
  control_l: 'ctrlleft',
  control_r: 'ctrlright',
  ctrl_l: 'ctrlleft',
  ctrl_r: 'ctrlright',
  alt: 'alt',
  alt_l: 'altleft',
  alt_r: 'altright',
  option: 'alt',
  shift: 'shift',
  shift_l: 'shiftleft',
  shift_r: 'shiftright',
  super: 'win',
  super_l: 'winleft',
  super_r: 'winright',
  meta: 'win',
  win: 'win',
  windows: 'win',
  cmd: 'win',
  command: 'win',
  // editing and navigation
  return: 'enter',
  enter: 'enter',
  kp_enter: 'enter',
  escape: 'esc',
  esc: 'esc',
  tab: 'tab',
  iso_left_tab: 'tab',
  space: 'space',
  backspace: 'backspace',
  delete: 'delete',
  del: 'delete',
  insert: 'insert',
  home: 'home',
  end: 'end',
  page_up: 'pgup',
  pageup: 'pgup',
  prior: 'pgup',
  page_down: 'pgdn',
  pagedown: 'pgdn',
  next: 'pgdn',
  up: 'up',
  down: 'down',
  left: 'left',
  right: 'right',
  arrowup: 'up',
  arrowdown: 'down',
  arrowleft: 'left',
  arrowright: 'right',
  caps_lock: 'capslock',
  capslock: 'capslock',
  num_lock: 'numlock',
  numlock: 'numlock',
  scroll_lock: 'scrolllock',
  print: 'printscreen',
  printscreen: 'printscreen',
  menu: 'apps',
  contextmenu: 'apps',
  pause: 'pause',
  // punctuation names (xdotool keysyms)
  minus: '-',
  plus: '+',
  equal: '=',
  period: '.',
  comma: ',',
  slash: '/',
  backslash: '\\',
  semicolon: ';',
  colon: ':',
  apostrophe: "'",
  quotedbl: '"',
  grave: '`',
  asciitilde: '~',
  bracketleft: '[',
  bracketright: ']',
  braceleft: '{',
  braceright: '}',
  parenleft: '(',
  parenright: ')',
  less: '<',
  greater: '>',
  question: '?',
  exclam: '!',
  at: '@',
  numbersign: '#',
  dollar: '$',
  percent: '%',
  asciicircum: '^',
  ampersand: '&',
  asterisk: '*',
  underscore: '_',
  bar: '|',
  // media
  xf86audioraisevolume: 'volumeup',
  xf86audiolowervolume: 'volumedown',
  xf86audiomute: 'volumemute',
  audiovolumeup: 'volumeup',
  audiovolumedown: 'volumedown',
  audiovolumemute: 'volumemute',
};

/** Thrown for a key name no table knows. */
export class UnknownKeyError extends Error {
  constructor(readonly key: string) {
    super(`unknown key name ${JSON.stringify(key)}`);
    this.name = 'UnknownKeyError';
  }
}

/** The pyautogui name of one key in any vendor's scheme. */
export function pyautoguiKey(name: string): string {
  const trimmed = name.trim();
  if ([...trimmed].length === 1) return trimmed.length === 1 ? trimmed.toLowerCase() : trimmed;
  if (trimmed === '') throw new UnknownKeyError(name);
  const lower = trimmed.toLowerCase();
  const alias = ALIASES[lower];
  if (alias !== undefined) return alias;
  const fn = /^f([1-9]|1\d|2[0-4])$/.exec(lower);
  if (fn) return lower;
  const keypadDigit = /^kp_(\d)$/.exec(lower);
  if (keypadDigit) return `num${keypadDigit[1]}`;
  throw new UnknownKeyError(name);
}

/**
 * Splits a `+`-joined combination (`ctrl+s`, `Control+Shift+T`, `ctrl++`) into its keys.
 * A `+` that follows a `+` (or stands alone) is the plus key itself.
 */
function splitCombination(combination: string): string[] {
  const trimmed = combination.trim();
  if (trimmed === '+') return ['+'];
  const keys: string[] = [];
  let current = '';
  for (const char of trimmed) {
    if (char === '+' && current !== '') {
      keys.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  if (current !== '') keys.push(current);
  return keys;
}

/** An xdotool-style combination (Anthropic: `ctrl+s`, `alt+Tab`) → pyautogui keys. */
export function xdotoolCombination(combination: string): string[] {
  const keys = splitCombination(combination);
  if (keys.length === 0) throw new UnknownKeyError(combination);
  return keys.map(pyautoguiKey);
}

/** A Playwright-style combination (Gemini: `Control+C`, `Enter`) → pyautogui keys. */
export function playwrightCombination(combination: string): string[] {
  return xdotoolCombination(combination);
}

/** OpenAI's key array (`["CTRL", "S"]`) → pyautogui keys. */
export function openaiKeys(keys: readonly string[]): string[] {
  if (keys.length === 0) throw new UnknownKeyError('');
  return keys.map(pyautoguiKey);
}
