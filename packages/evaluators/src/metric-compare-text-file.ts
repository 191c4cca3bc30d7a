import { readPythonTextFile } from './evaluator-python-text-file';
import { pythonGet, pythonTruthy } from './evaluator-python-values';
import { collapsePythonWhitespace, pythonLower, pythonStrip } from './evaluator-python-text';
import type { MetricDefinition } from './metric-types';

/**
 * Upstream's `ignore_blanks` normalization: tabs and newlines become spaces, the text is stripped,
 * then every whitespace run becomes one space (`re.sub(r'[\t\n]', ' ', t).strip()` then
 * `re.sub(r'\s+', ' ', t)`).
 */
export function normalizeBlanks(text: string): string {
  return collapsePythonWhitespace(pythonStrip(text.replace(/[\t\n]/g, ' ')));
}

/**
 * `compare_text_file(actual, expected, **options)` (upstream `metrics/vscode.py`): 0 when `actual`
 * is falsy (no file); otherwise reads both files as Python's `open().read()` does (UTF-8, universal
 * newlines, so CRLF and LF files compare equal) and scores 1 when the texts are equal, else 0.
 *
 * Options: `ignore_blanks` (default false; see {@link normalizeBlanks}) and `ignore_case` (default
 * false; lower-cases both). An unreadable expected file raises, as upstream's `open` does.
 */
export const compareTextFileMetric: MetricDefinition = {
  name: 'compare_text_file',
  expected: 'required',
  options: 'any',
  evaluate: async ({ result, expected, options }) => {
    if (!pythonTruthy(result)) return 0;
    let actualText = await readPythonTextFile(result);
    let expectedText = await readPythonTextFile(expected);
    if (pythonTruthy(pythonGet(options, 'ignore_blanks', false))) {
      actualText = normalizeBlanks(actualText);
      expectedText = normalizeBlanks(expectedText);
    }
    if (pythonTruthy(pythonGet(options, 'ignore_case', false))) {
      actualText = pythonLower(actualText);
      expectedText = pythonLower(expectedText);
    }
    return actualText === expectedText ? 1 : 0;
  },
};
