import { readFile } from 'node:fs/promises';
import { fuzzRatio } from './evaluator-fuzz-ratio';
import { readDocxParagraphs, readOdtParagraphs } from './evaluator-office-documents';
import {
  PythonSemanticsError,
  pythonGet,
  pythonTruthy,
  pythonTypeName,
} from './evaluator-python-values';
import {
  collapsePythonWhitespace,
  pythonLower,
  pythonSortedStrings,
  pythonStrip,
} from './evaluator-python-text';
import type { MetricDefinition } from './metric-types';

/** The options of {@link compareDocxFiles}, with upstream's defaults. */
interface CompareDocxOptions {
  /** Compare the whitespace-collapsed joined texts instead of paragraph by paragraph. @default true */
  readonly ignore_blanks?: unknown;
  /** Lower-case before comparing. @default false */
  readonly ignore_case?: unknown;
  /** Sort the paragraphs (by code point) before anything else. @default false */
  readonly ignore_order?: unknown;
  /** Score = fuzzy ratio of the whitespace-collapsed joined texts / 100 (non-binary). @default false */
  readonly content_only?: unknown;
  /** Fuzzy ratios instead of equality (non-binary unless a threshold is given). @default false */
  readonly fuzzy_match?: unknown;
  /** With `fuzzy_match`: a similarity (0..1) at or above which a comparison counts as 1, else 0. */
  readonly fuzzy_match_threshold?: unknown;
  /** Drop paragraphs that are empty after `strip()` (after sorting). @default false */
  readonly delete_empty_lines?: unknown;
}

async function loadParagraphs(
  path: string,
  reader: (bytes: Uint8Array) => string[],
): Promise<string[] | undefined> {
  try {
    return reader(await readFile(path));
  } catch {
    // python-docx / odfpy failed to open it: upstream logs and scores 0
    return undefined;
  }
}

const joinCollapsed = (paragraphs: readonly string[]) =>
  pythonStrip(collapsePythonWhitespace(paragraphs.join('\n')));

/**
 * Upstream's `compare_docx_files(file1, file2, **options)` (`metrics/docs.py`, U26), step by step:
 *
 * 1. 0 when either path is falsy (a getter found no file).
 * 2. Both `.docx` → paragraph texts as python-docx gives them; both `.odt` → as odfpy gives them
 *    (see `readDocxParagraphs` / `readOdtParagraphs`). A mix, or any other extension, scores 0; a
 *    file that cannot be opened scores 0. The extension test is case-sensitive (`str.endswith`).
 * 3. `ignore_order` sorts each paragraph list; then `delete_empty_lines` drops blank paragraphs.
 * 4. `content_only`: returns `fuzz.ratio` of the joined (`\n`), whitespace-collapsed, stripped
 *    texts / 100 (lower-cased with `ignore_case`) — non-binary.
 * 5. `ignore_blanks` (default true): the same joined texts must be equal; with `fuzzy_match` the
 *    ratio / 100 is returned instead (or 1/0 against `fuzzy_match_threshold`).
 * 6. Otherwise the paragraph counts must match and each pair must be equal (lower-cased with
 *    `ignore_case`); with `fuzzy_match` the per-pair ratios (or threshold hits) are averaged, and two
 *    empty documents score 1.
 * 7. Everything passed: 1.
 *
 * Options are read with Python truthiness (`"false"` is true, as in upstream).
 */
export async function compareDocxFiles(
  file1: unknown,
  file2: unknown,
  options: Readonly<Record<string, unknown>> = {},
): Promise<number> {
  const option = (key: keyof CompareDocxOptions, fallback: unknown) =>
    pythonGet(options, key, fallback);
  const ignoreBlanks = pythonTruthy(option('ignore_blanks', true));
  const ignoreCase = pythonTruthy(option('ignore_case', false));
  const ignoreOrder = pythonTruthy(option('ignore_order', false));
  const contentOnly = pythonTruthy(option('content_only', false));
  const fuzzyMatch = pythonTruthy(option('fuzzy_match', false));
  const threshold = option('fuzzy_match_threshold', null);
  const deleteEmptyLines = pythonTruthy(option('delete_empty_lines', false));

  if (!pythonTruthy(file1) || !pythonTruthy(file2)) return 0;
  for (const file of [file1, file2]) {
    if (typeof file !== 'string') {
      throw new PythonSemanticsError(
        'TypeError',
        `compare_docx_files needs file paths, got a ${pythonTypeName(file)}`,
      );
    }
  }
  const path1 = file1 as string;
  const path2 = file2 as string;

  let reader: ((bytes: Uint8Array) => string[]) | undefined;
  if (path1.endsWith('.docx') && path2.endsWith('.docx')) reader = readDocxParagraphs;
  else if (path1.endsWith('.odt') && path2.endsWith('.odt')) reader = readOdtParagraphs;
  if (reader === undefined) return 0;

  let paragraphs1 = await loadParagraphs(path1, reader);
  let paragraphs2 = await loadParagraphs(path2, reader);
  if (paragraphs1 === undefined || paragraphs2 === undefined) return 0;
  if (ignoreOrder) {
    paragraphs1 = pythonSortedStrings(paragraphs1);
    paragraphs2 = pythonSortedStrings(paragraphs2);
  }
  if (deleteEmptyLines) {
    paragraphs1 = paragraphs1.filter(paragraph => pythonStrip(paragraph) !== '');
    paragraphs2 = paragraphs2.filter(paragraph => pythonStrip(paragraph) !== '');
  }

  const applyThreshold = (similarity: number): number => {
    if (threshold === null || threshold === undefined) return similarity;
    if (typeof threshold !== 'number' && typeof threshold !== 'boolean') {
      throw new PythonSemanticsError(
        'TypeError',
        `'>=' not supported between instances of 'float' and '${pythonTypeName(threshold)}'`,
      );
    }
    return similarity >= Number(threshold) ? 1 : 0;
  };

  if (contentOnly) {
    let text1 = joinCollapsed(paragraphs1);
    let text2 = joinCollapsed(paragraphs2);
    if (ignoreCase) [text1, text2] = [pythonLower(text1), pythonLower(text2)];
    return fuzzRatio(text1, text2) / 100;
  }

  if (ignoreBlanks) {
    let text1 = joinCollapsed(paragraphs1);
    let text2 = joinCollapsed(paragraphs2);
    if (ignoreCase) [text1, text2] = [pythonLower(text1), pythonLower(text2)];
    if (fuzzyMatch) return applyThreshold(fuzzRatio(text1, text2) / 100);
    if (text1 !== text2) return 0;
  } else {
    if (paragraphs1.length !== paragraphs2.length) return 0;
    if (fuzzyMatch) {
      if (paragraphs1.length === 0) return 1;
      let total = 0;
      paragraphs1.forEach((paragraph, index) => {
        let left = paragraph;
        let right = (paragraphs2 as string[])[index] as string;
        if (ignoreCase) [left, right] = [pythonLower(left), pythonLower(right)];
        total += applyThreshold(fuzzRatio(left, right) / 100);
      });
      return total / paragraphs1.length;
    }
    for (let index = 0; index < paragraphs1.length; index++) {
      let left = paragraphs1[index] as string;
      let right = paragraphs2[index] as string;
      if (ignoreCase) [left, right] = [pythonLower(left), pythonLower(right)];
      if (left !== right) return 0;
    }
  }
  return 1;
}

/** The `compare_docx_files` metric; see {@link compareDocxFiles}. */
export const compareDocxFilesMetric: MetricDefinition = {
  name: 'compare_docx_files',
  expected: 'required',
  options: 'any',
  evaluate: ({ result, expected, options }) => compareDocxFiles(result, expected, options),
};
