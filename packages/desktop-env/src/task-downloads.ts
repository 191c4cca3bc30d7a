import { posix } from 'node:path';
import type { TaskConfig } from '@osharm/task-schema';
import { uuid5 } from './download-cache';

/** One file a task fetches from the network: in a `download` step or an evaluator `cloud_file`. */
export interface TaskDownload {
  /** `download`: a setup / postconfig step; `cloud_file`: an evaluator getter. */
  readonly kind: 'download' | 'cloud_file';
  readonly url: string;
  /**
   * The file's name inside the task's cache dir: `<uuid5(url)>_<basename>` for `download` (upstream's
   * naming), the getter's `dest` for `cloud_file`.
   */
  readonly cacheFile: string;
  /** `download`: where the file goes in the guest. */
  readonly guestPath?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Every network file of a task, in order: the `download` steps of `config` and of the evaluator's
 * `postconfig`, then the evaluator's `cloud_file` getters (`result` / `expected`, lists included).
 * Entries that are not well-formed are skipped (`osharm tasks validate` reports them).
 */
export function listTaskDownloads(task: TaskConfig): TaskDownload[] {
  const found: TaskDownload[] = [];
  const steps = [...(task.config ?? []), ...(task.evaluator.postconfig ?? [])] as unknown[];
  for (const step of steps) {
    if (!isObject(step) || step['type'] !== 'download' || !isObject(step['parameters'])) continue;
    const files = step['parameters']['files'];
    if (!Array.isArray(files)) continue;
    for (const file of files as unknown[]) {
      if (!isObject(file) || typeof file['url'] !== 'string' || typeof file['path'] !== 'string')
        continue;
      found.push({
        kind: 'download',
        url: file['url'],
        cacheFile: `${uuid5(file['url'])}_${posix.basename(file['path'])}`,
        guestPath: file['path'],
      });
    }
  }
  const evaluator = task.evaluator as Record<string, unknown>;
  for (const key of ['result', 'expected']) {
    const getters = Array.isArray(evaluator[key])
      ? (evaluator[key] as unknown[])
      : [evaluator[key]];
    for (const getter of getters) {
      if (!isObject(getter) || getter['type'] !== 'cloud_file') continue;
      const paths = Array.isArray(getter['path']) ? getter['path'] : [getter['path']];
      const dests = Array.isArray(getter['dest']) ? getter['dest'] : [getter['dest']];
      for (const [index, url] of (paths as unknown[]).entries()) {
        const dest = dests[index];
        if (typeof url !== 'string' || typeof dest !== 'string') continue;
        found.push({ kind: 'cloud_file', url, cacheFile: dest });
      }
    }
  }
  return found;
}
