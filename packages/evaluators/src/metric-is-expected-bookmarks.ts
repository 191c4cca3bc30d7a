import { EvaluationError } from './evaluator-error';
import {
  pythonEquals,
  pythonGetItem,
  pythonIterate,
  pythonSetEquals,
  pythonStr,
  pythonTruthy,
} from './evaluator-python-values';
import type { MetricDefinition } from './metric-types';

/** The children of `bookmarks["bookmark_bar"]["children"]` (KeyError/TypeError as in Python). */
function bookmarkBarChildren(bookmarks: unknown): unknown[] {
  return pythonIterate(pythonGetItem(pythonGetItem(bookmarks, 'bookmark_bar'), 'children'));
}

/** Every combination picking one entry per position (`itertools.product(*lists)`). */
function cartesianProduct(lists: readonly unknown[][]): unknown[][] {
  return lists.reduce<unknown[][]>(
    (combinations, alternatives) =>
      combinations.flatMap(combination => alternatives.map(item => [...combination, item])),
    [[]],
  );
}

/**
 * `is_expected_bookmarks(bookmarks, rule)` (upstream `metrics/chrome.py`). `bookmarks` is the
 * `roots` object of Chrome's `Bookmarks` file (the `bookmarks` getter); an empty or missing one
 * scores 0. `rule.type`:
 *
 * - `bookmark_bar_folders_names`: the set of names of the bookmark bar's `folder` children must
 *   equal `set(rule.names)`;
 * - `bookmark_bar_websites_urls`: the set of URLs of its `url` children must equal `set(rule.urls)`;
 * - `liked_authors_websites_urls`: the bar must have a folder named `Liked Authors` whose `url`
 *   children's URL set equals the set of one combination of `itertools.product(*rule.urls)`, where
 *   each entry of `rule.urls` is a URL or a list of alternative URLs; no such folder scores 0.
 *
 * Any other type raises (`TypeError` upstream, an `EvaluationError` here).
 */
export function isExpectedBookmarks(bookmarks: unknown, rule: unknown): number {
  if (!pythonTruthy(bookmarks)) return 0;
  const type = pythonGetItem(rule, 'type');
  if (type === 'bookmark_bar_folders_names') {
    const names = bookmarkBarChildren(bookmarks)
      .filter(child => pythonEquals(pythonGetItem(child, 'type'), 'folder'))
      .map(child => pythonGetItem(child, 'name'));
    return pythonSetEquals(names, pythonIterate(pythonGetItem(rule, 'names'))) ? 1 : 0;
  }
  if (type === 'bookmark_bar_websites_urls') {
    const urls = bookmarkBarChildren(bookmarks)
      .filter(child => pythonEquals(pythonGetItem(child, 'type'), 'url'))
      .map(child => pythonGetItem(child, 'url'));
    return pythonSetEquals(urls, pythonIterate(pythonGetItem(rule, 'urls'))) ? 1 : 0;
  }
  if (type === 'liked_authors_websites_urls') {
    const folder = bookmarkBarChildren(bookmarks).find(
      child =>
        pythonEquals(pythonGetItem(child, 'type'), 'folder') &&
        pythonEquals(pythonGetItem(child, 'name'), 'Liked Authors'),
    );
    if (!pythonTruthy(folder)) return 0;
    const likedUrls = pythonIterate(pythonGetItem(folder, 'children'))
      .filter(child => pythonEquals(pythonGetItem(child, 'type'), 'url'))
      .map(child => pythonGetItem(child, 'url'));
    const alternatives = pythonIterate(pythonGetItem(rule, 'urls')).map(entry =>
      typeof entry === 'string' ? [entry] : pythonIterate(entry),
    );
    return cartesianProduct(alternatives).some(combination =>
      pythonSetEquals(combination, likedUrls),
    )
      ? 1
      : 0;
  }
  throw new EvaluationError({
    message: `is_expected_bookmarks: rule type ${pythonStr(type)} is not supported (known: bookmark_bar_folders_names, bookmark_bar_websites_urls, liked_authors_websites_urls)`,
    subject: 'is_expected_bookmarks',
  });
}

/** The `is_expected_bookmarks` metric; see {@link isExpectedBookmarks}. */
export const isExpectedBookmarksMetric: MetricDefinition = {
  name: 'is_expected_bookmarks',
  expected: 'required',
  options: [],
  evaluate: ({ result, expected }) => isExpectedBookmarks(result, expected),
};
