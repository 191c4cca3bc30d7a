import { readPythonTextFile } from './evaluator-python-text-file';
import { PythonSemanticsError, pythonGet, pythonIterate } from './evaluator-python-values';
import { pythonStrip } from './evaluator-python-text';
import { matchValueToRule } from './metric-match-value-to-rule';
import type { MetricDefinition } from './metric-types';

/**
 * Upstream's `_pref_pattern`, `^user_pref\("(?P<key>(?:[^"]|\\")+)\", (?P<val>.+)\);$`, with `.`
 * as Python's (anything but `\n`).
 */
const PREF_LINE = /^user_pref\("((?:[^"]|\\")+)", ([^\n]+)\);$/;

/**
 * Python `json.loads` of a pref value: JSON plus the `NaN`, `Infinity` and `-Infinity` literals
 * Python accepts.
 */
function loadPrefValue(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === 'NaN') return Number.NaN;
  if (trimmed === 'Infinity') return Number.POSITIVE_INFINITY;
  if (trimmed === '-Infinity') return Number.NEGATIVE_INFINITY;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new PythonSemanticsError(
      'ValueError',
      `json.loads cannot parse the pref value ${text} (${(error as Error).message})`,
    );
  }
}

/**
 * Parses a Thunderbird/Firefox `prefs.js` the way upstream does: each line is stripped (Python
 * whitespace), matched against upstream's `user_pref("key", value);` pattern (other lines are
 * skipped) and its value JSON-parsed. A value that is not JSON raises, as `json.loads` does. The
 * entries come in file order; a key may repeat.
 */
export function parsePrefsLines(text: string): Array<[key: string, value: unknown]> {
  const entries: Array<[string, unknown]> = [];
  for (const line of text.split('\n')) {
    const match = PREF_LINE.exec(pythonStrip(line));
    if (match === null) continue;
    entries.push([match[1] as string, loadPrefValue(match[2] as string)]);
  }
  return entries;
}

/**
 * `check_thunderbird_prefs(result, rule)` (upstream `metrics/thunderbird.py`): `result` is the
 * local path of `prefs.js` (a `vm_file` getter), `rule = {expect: {pref: {method, ref}},
 * unexpect: {…}}` (both default to `{}`; rules as in `matchValueToRule`).
 *
 * - 0 when the result is `None`.
 * - Each parsed line whose key is in `expect` sets that key's outcome to the rule's match (so the
 *   last occurrence wins); a line whose key is only in `unexpect` and matches its rule fails the
 *   check.
 * - Score 1 iff every `expect` key was seen and matched (a missing key fails) and no `unexpect`
 *   rule matched.
 */
export async function checkThunderbirdPrefs(result: unknown, rule: unknown): Promise<number> {
  if (result === null || result === undefined) return 0;
  const expectRules = pythonGet(rule, 'expect', {});
  const unexpectRules = pythonGet(rule, 'unexpect', {});
  const expectKeys = pythonIterate(expectRules) as string[];
  const expectMetrics = new Map<string, boolean>(expectKeys.map(key => [key, false]));
  const hasRule = (rules: unknown, key: string) =>
    typeof rules === 'object' && rules !== null && Object.hasOwn(rules, key);
  let unexpectMetric = true;

  const text = await readPythonTextFile(result);
  for (const [key, value] of parsePrefsLines(text)) {
    if (hasRule(expectRules, key)) {
      expectMetrics.set(
        key,
        matchValueToRule(value, (expectRules as Record<string, unknown>)[key]),
      );
    } else if (hasRule(unexpectRules, key)) {
      if (matchValueToRule(value, (unexpectRules as Record<string, unknown>)[key])) {
        unexpectMetric = false;
      }
    }
  }
  return [...expectMetrics.values()].every(Boolean) && unexpectMetric ? 1 : 0;
}

/** The `check_thunderbird_prefs` metric; see {@link checkThunderbirdPrefs}. */
export const checkThunderbirdPrefsMetric: MetricDefinition = {
  name: 'check_thunderbird_prefs',
  expected: 'required',
  options: [],
  evaluate: ({ result, expected }) => checkThunderbirdPrefs(result, expected),
};
