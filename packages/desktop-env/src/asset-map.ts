import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TaskValidationError, type ValidationIssue } from '@osharm/task-schema';
import { readJsonFile } from '@osharm/task-schema/internal';

/** Where an asset map sends one download URL: a local file, or another URL (a mirror). */
export type AssetTarget =
  { readonly kind: 'file'; readonly path: string } | { readonly kind: 'url'; readonly url: string };

/** Download URL → where its bytes come from instead. */
export type AssetMap = ReadonlyMap<string, AssetTarget>;

/** How `download` steps (and `osharm assets pull`) find their files besides the cache. */
export interface AssetSources {
  /** URLs answered from a local file or a mirror instead of the URL itself. */
  readonly assetMap?: AssetMap;
  /** Never use the network: only the cache and files of the asset map. @default false */
  readonly offline?: boolean;
}

/**
 * Reads an asset map: a JSON object from download URL to a local file path (relative paths are
 * relative to the map file; `file://` URLs work too) or to an `http(s)://` URL (a mirror).
 * @throws {TaskValidationError} naming the file and the offending key.
 */
export async function loadAssetMap(file: string): Promise<AssetMap> {
  const read = await readJsonFile(file);
  if (!read.ok) throw new TaskValidationError({ issues: [read.issue] });
  return parseAssetMap(read.value, file);
}

/** {@link loadAssetMap} on an already parsed value; `file` names it in errors and anchors paths. */
export function parseAssetMap(value: unknown, file: string): AssetMap {
  const issue = (path: string, message: string): ValidationIssue => ({
    severity: 'error',
    file,
    path,
    message,
  });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TaskValidationError({
      issues: [issue('$', 'expected a JSON object {"<download url>": "<local file or url>"}')],
    });
  }
  const issues: ValidationIssue[] = [];
  const map = new Map<string, AssetTarget>();
  for (const [url, target] of Object.entries(value)) {
    const path = `$[${JSON.stringify(url)}]`;
    if (!/^https?:\/\//.test(url)) {
      issues.push(issue(path, 'each key must be an http(s) download URL'));
      continue;
    }
    if (typeof target !== 'string' || target.length === 0) {
      issues.push(issue(path, 'expected a local file path or an http(s) URL (a string)'));
      continue;
    }
    if (/^https?:\/\//.test(target)) {
      map.set(url, { kind: 'url', url: target });
    } else if (target.startsWith('file://')) {
      map.set(url, { kind: 'file', path: fileURLToPath(target) });
    } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
      issues.push(issue(path, `"${target}": only http(s) URLs, file:// URLs and paths work`));
    } else {
      map.set(url, {
        kind: 'file',
        path: isAbsolute(target) ? target : resolve(dirname(resolve(file)), target),
      });
    }
  }
  if (issues.length > 0) throw new TaskValidationError({ issues });
  return map;
}

/**
 * What to tell a user whose download failed: where the cache file goes and the ways to provide it
 * (the osharm CLI's flags).
 */
export function downloadHint(cachePath: string): string {
  return `the cache file is ${cachePath}: put the file there, map the URL to a local file or a mirror with an asset map (osharm: --asset-map FILE), or fetch every download ahead with osharm assets pull (--cache-dir DIR picks the cache)`;
}

/**
 * A fetch that follows the asset sources, for downloads outside `download` steps (the evaluator's
 * `cloud_file`): a URL of the asset map is answered from its local file or fetched from its
 * mirror; offline, every other request (mirrors included) is refused without touching the network.
 */
export function assetSourcesFetch(
  sources: AssetSources,
  baseFetch: typeof globalThis.fetch = globalThis.fetch,
): typeof globalThis.fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const target = sources.assetMap?.get(url);
    if (target?.kind === 'file') {
      return new Response(new Uint8Array(await readFile(target.path)), { status: 200 });
    }
    if (sources.offline) {
      throw new Error(
        `offline: ${url} would need the network (map it to a local file with an asset map)`,
      );
    }
    return baseFetch(target ? target.url : input, init);
  };
}
