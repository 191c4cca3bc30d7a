import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import { defaultIndexPaths, loadTaskIndex, OsharmError } from '@osharm/task-schema';
import { escapeControlChars } from '@osharm/task-schema/artifacts';
import { UsageError, type CliIo } from './cli-io';

/** Flags that pick a dataset, shared by `tasks …` and `run` (upstream names, kebab-case). */
export interface DatasetFlags {
  testConfigBaseDir?: string;
  testAllMetaPath?: string[];
  domain: string;
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** Adds `--test-config-base-dir`, `--test-all-meta-path` (repeatable) and `--domain`. */
export function addDatasetOptions(command: Command): Command {
  return command
    .option(
      '--test-config-base-dir <dir>',
      'dataset base dir holding examples/{domain}/{id}.json (default: the directory of the first --test-all-meta-path, else "evaluation_examples")',
    )
    .option(
      '--test-all-meta-path <file>',
      'task index file {domain: [ids]} (repeatable; default: every test_*.json in the base dir)',
      collect,
    )
    .option('--domain <domain>', 'only this domain ("all" for every domain)', 'all');
}

/** The dataset a command works on, with paths made relative to the working dir for messages. */
export interface ResolvedDataset {
  baseDir: string;
  indexPaths: string[];
  domain: string;
}

/**
 * A path as messages show it, one rule (docs/cli.md §paths): inside the working dir, relative to it
 * (`.` for the dir itself); anywhere else, absolute. Never `../…`, so what is printed does not depend
 * on where the working dir happens to sit. Control characters (newlines included) are escaped: a
 * path is one line.
 */
export const displayPath = (io: CliIo, path: string) => escapeControlChars(shown(io, path));

/** {@link displayPath} without the escaping: a path still usable to open the file. */
const shown = (io: CliIo, path: string) => {
  const absolute = resolve(io.cwd, path);
  const rel = relative(io.cwd, absolute);
  const outside = rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
  return outside ? absolute : rel || '.';
};

/**
 * Checks the dataset flags: the base dir exists, index files are given or found, and the domain
 * (unless `all`) is listed by at least one readable index file.
 * @throws {UsageError} when a flag points at nothing usable.
 */
export async function resolveDataset(flags: DatasetFlags, io: CliIo): Promise<ResolvedDataset> {
  const firstIndex = flags.testAllMetaPath?.[0];
  const givenBase =
    flags.testConfigBaseDir ?? (firstIndex ? dirname(firstIndex) : 'evaluation_examples');
  const baseDir = shown(io, givenBase);
  const absoluteBase = resolve(io.cwd, givenBase);
  if (!existsSync(absoluteBase) || !statSync(absoluteBase).isDirectory()) {
    throw new UsageError(
      `--test-config-base-dir: "${givenBase}" is not a directory (expected a dataset dir holding examples/{domain}/{id}.json)`,
    );
  }
  const indexPaths = flags.testAllMetaPath
    ? flags.testAllMetaPath.map(path => shown(io, path))
    : defaultIndexPaths(absoluteBase).map(path => shown(io, path));
  if (indexPaths.length === 0) {
    throw new UsageError(
      `no index file: "${baseDir}" has no test_*.json; pass --test-all-meta-path FILE`,
    );
  }
  for (const path of indexPaths) {
    if (!existsSync(resolve(io.cwd, path))) {
      throw new UsageError(`--test-all-meta-path: "${path}" does not exist`);
    }
  }
  if (flags.domain !== 'all') {
    const domains = new Set<string>();
    for (const path of indexPaths) {
      try {
        for (const domain of Object.keys(await loadTaskIndex(resolve(io.cwd, path))))
          domains.add(domain);
      } catch (error) {
        if (!OsharmError.isInstance(error)) throw error; // invalid index: `validate` reports it
      }
    }
    if (!domains.has(flags.domain)) {
      throw new UsageError(
        `--domain: "${flags.domain}" is not in ${indexPaths.join(', ')} (domains: ${[...domains].sort().join(', ') || 'none'}, or "all")`,
      );
    }
  }
  return { baseDir, indexPaths, domain: flags.domain };
}
