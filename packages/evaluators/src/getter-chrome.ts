import { posix } from 'node:path';
import { throwIfAborted } from './getter-types';
import type { Getter, GetterContext } from './getter-types';

/** Chrome's profile directories relative to `$HOME`, in the order the getters try them. */
const CHROME_PROFILE_DIRS = ['.config/google-chrome/Default', '.config/chromium/Default'] as const;

/**
 * The guest paths of a Chrome profile file: `chromeProfileDir/<file>` when the context names the
 * profile, else `$HOME/.config/google-chrome/Default/<file>` then
 * `$HOME/.config/chromium/Default/<file>` (`$HOME` asked from the guest, as upstream asks it with
 * a Python one-liner; here `/bin/sh` so the guest needs no Python).
 *
 * @throws Error when the guest's home directory cannot be found.
 */
async function profileFileCandidates(context: GetterContext, file: string): Promise<string[]> {
  if (context.chromeProfileDir !== undefined) return [posix.join(context.chromeProfileDir, file)];
  const answer = await context.client.execute(['/bin/sh', '-c', 'printf %s "$HOME"'], {
    abortSignal: context.abortSignal,
  });
  const home = answer.output.trim();
  if (home === '')
    throw new Error(`cannot find the guest's home directory to read Chrome's ${file}`);
  return CHROME_PROFILE_DIRS.map(directory => posix.join(home, directory, file));
}

/** The first candidate file the guest has, as text, or null. */
async function readFirst(
  context: GetterContext,
  candidates: readonly string[],
): Promise<string | null> {
  for (const path of candidates) {
    let data: Buffer | null;
    try {
      data = await context.client.getFile(path, { abortSignal: context.abortSignal });
    } catch {
      throwIfAborted(context);
      data = null;
    }
    if (data !== null && data.length > 0) return data.toString('utf8');
  }
  return null;
}

/**
 * `bookmarks` (upstream `getters/chrome.py`): reads the profile's `Bookmarks` JSON through
 * `/file` and returns its `roots` object (`{bookmark_bar, other, synced}`; `{}` when the file has
 * no `roots`). When the guest has no (or an empty) Bookmarks file it returns `[]`, as upstream
 * does; `is_expected_bookmarks` scores that 0. A file that is not JSON throws, as upstream's
 * `json.loads` does.
 */
export const getBookmarks: Getter = async context => {
  const content = await readFirst(context, await profileFileCandidates(context, 'Bookmarks'));
  if (content === null) return [];
  const data = JSON.parse(content) as unknown;
  if (
    typeof data === 'object' &&
    data !== null &&
    !Array.isArray(data) &&
    Object.hasOwn(data, 'roots')
  ) {
    return (data as { roots: unknown }).roots;
  }
  return {};
};

/**
 * `profile_name` (upstream `getters/chrome.py`): `profile.name` from the profile's `Preferences`
 * JSON (Chrome's display name of the profile), or `null` when the file, the key or the JSON is
 * missing (upstream catches every error here).
 */
export const getProfileName: Getter = async context => {
  try {
    const content = await readFirst(context, await profileFileCandidates(context, 'Preferences'));
    if (content === null) return null;
    const data = JSON.parse(content) as { profile?: { name?: unknown } } | null;
    const name = data?.profile?.name;
    return name === undefined ? null : name;
  } catch {
    throwIfAborted(context);
    return null;
  }
};
