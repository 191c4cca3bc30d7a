import { resolve, sep } from 'node:path';

/**
 * Characters a terminal acts on instead of showing: C0 controls (ESC starts colour, cursor and
 * clear-screen sequences; CR rewrites a line), DEL, C1 controls (8-bit CSI), line / paragraph
 * separators and bidirectional overrides (text that reads differently than it is).
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_BUT_LINES =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

// `\u001b`: readable, and a valid JSON escape, so JSON printed through this stays JSON.
const escapeOne = (char: string): string =>
  `\\u${char.codePointAt(0)!.toString(16).padStart(4, '0')}`;

/**
 * Makes untrusted text (a trajectory dir name, a model's error message, a task id) safe to print
 * on a terminal: every control character becomes a visible escape (`\u001b`, `\u000a`, `\u202e`), so
 * a name cannot clear the screen, move the cursor, retitle the window or forge a progress line.
 * With `keepNewlines`, `\n` and `\t` stay (for whole blocks of output the program laid out).
 */
export function escapeControlChars(text: string, options: { keepNewlines?: boolean } = {}): string {
  return text.replace(options.keepNewlines ? CONTROL_BUT_LINES : CONTROL, escapeOne);
}

/**
 * Message text with every absolute path inside `cwd` printed relative to it (`/work/x/results/a`
 * → `results/a` when run in `/work/x`): the rule of every osharm command's messages, applied to
 * reasons that deeper layers wrote with absolute paths (a refused file, a merge conflict). Paths
 * outside `cwd` stay absolute.
 */
export function relativePathsIn(text: string, cwd: string): string {
  const base = resolve(cwd);
  if (base === sep) return text;
  return text.replaceAll(`${base}${sep}`, '');
}
