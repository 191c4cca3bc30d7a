import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { resolveTaskAsset } from './task-assets';
import { taskCategory, type TaskCategory } from './task-category';
import { parseTaskConfig, type TaskConfig } from './task-config-schema';
import { OSHARM_INDEX_FILES, taskIndexSchema, type TaskIndex } from './task-index';
import { TaskValidationError } from './task-validation-error';
import { readJsonFile } from './json-file';
import { toJsonPath, type ValidationIssue } from './validation-issue';
import { fromZodIssues } from './zod-issues';

/** A task of a dataset, with where it came from. */
export interface DatasetTask {
  /** The index domain the task is listed under (also its folder under `examples/`). */
  readonly domain: string;
  readonly id: string;
  /** From the id prefix ({@link taskCategory}); `injection` for any task with an `injections` block. */
  readonly category: TaskCategory;
  /** Path of the task file. */
  readonly file: string;
  /** Path of the index file that lists it (the first one, when several do). */
  readonly indexFile: string;
  readonly config: TaskConfig;
}

/** Options of {@link validateDataset} and {@link loadDataset}. */
export interface DatasetOptions {
  /**
   * Dataset base dir holding `examples/{domain}/{id}.json` (upstream `--test_config_base_dir`).
   * @default 'evaluation_examples'
   */
  readonly baseDir?: string;
  /**
   * Index file(s) (upstream `--test_all_meta_path`), resolved against the working directory.
   * @default every `test_*.json` in `baseDir` ({@link defaultIndexPaths})
   */
  readonly indexPaths?: string | readonly string[];
  /** Only this domain; `'all'` or undefined for every domain. */
  readonly domain?: string;
}

/** Everything {@link validateDataset} found. */
export interface DatasetReport {
  /** Valid tasks, in index order. */
  readonly tasks: readonly DatasetTask[];
  /** Errors and warnings, each naming file and JSON path. */
  readonly issues: readonly ValidationIssue[];
  /** The index files read, with their contents (undefined when unreadable). */
  readonly indexes: readonly { readonly file: string; readonly index: TaskIndex | undefined }[];
}

/**
 * Reads a task index file.
 * @throws {TaskValidationError} when the file is missing, not JSON, or not `{domain: [ids]}`.
 */
export async function loadTaskIndex(file: string): Promise<TaskIndex> {
  const { index, issues } = await readIndex(file);
  if (!index) throw new TaskValidationError({ issues });
  return index;
}

async function readIndex(file: string): Promise<{ index?: TaskIndex; issues: ValidationIssue[] }> {
  const read = await readJsonFile(file);
  if (!read.ok) return { issues: [read.issue] };
  if (read.value === null || typeof read.value !== 'object' || Array.isArray(read.value)) {
    return {
      issues: [
        {
          severity: 'error',
          file,
          path: '$',
          message:
            'expected an object mapping each domain to a list of task ids, e.g. {"os": ["_ransomware"]}',
        },
      ],
    };
  }
  const parsed = taskIndexSchema.safeParse(read.value, { reportInput: true });
  if (!parsed.success) return { issues: fromZodIssues(parsed.error.issues, file) };
  const index = read.value as TaskIndex;
  const issues: ValidationIssue[] = [];
  const seen = new Map<string, string>();
  for (const [domain, ids] of Object.entries(index)) {
    ids.forEach((id, position) => {
      const path = toJsonPath([domain, position]);
      const first = seen.get(id);
      if (first !== undefined) {
        issues.push({
          severity: 'error',
          file,
          path,
          message: `duplicate task id "${id}" (already listed at ${first})`,
        });
      } else seen.set(id, path);
      if (/[/\\]/.test(id) || id === '.' || id === '..') {
        issues.push({
          severity: 'error',
          file,
          path,
          message: `task id "${id}" must be a plain file name`,
        });
      }
    });
    if (/[/\\]/.test(domain) || domain === '.' || domain === '..') {
      issues.push({
        severity: 'error',
        file,
        path: toJsonPath([domain]),
        message: `domain "${domain}" must be a plain folder name`,
      });
    }
  }
  if (issues.length > 0) return { issues };
  return { index, issues };
}

/**
 * The index files of a base dir, used when no index path is given: every `test_*.json` in it,
 * OS-Harm's three (misuse, injection, misbehavior) first, then the others by name.
 */
export function defaultIndexPaths(baseDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(baseDir).filter(name => /^test_.*\.json$/.test(name));
  } catch {
    return [];
  }
  const rank = (name: string) => {
    const at = (OSHARM_INDEX_FILES as readonly string[]).indexOf(name);
    return at === -1 ? OSHARM_INDEX_FILES.length : at;
  };
  return names
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
    .map(name => join(baseDir, name));
}

/**
 * Validates a dataset: the index file(s) and every task file they list (schema, id = file name,
 * asset paths). Never throws for bad data: everything is in the report.
 */
export async function validateDataset(options: DatasetOptions = {}): Promise<DatasetReport> {
  const baseDir = options.baseDir ?? 'evaluation_examples';
  const indexPaths =
    options.indexPaths === undefined
      ? defaultIndexPaths(baseDir)
      : typeof options.indexPaths === 'string'
        ? [options.indexPaths]
        : [...options.indexPaths];
  const issues: ValidationIssue[] = [];
  if (indexPaths.length === 0) {
    issues.push({
      severity: 'error',
      file: baseDir,
      path: '$',
      message: 'no index file given and no test_*.json index file found in this directory',
    });
  }
  const indexes: { file: string; index: TaskIndex | undefined }[] = [];
  const wanted: { domain: string; id: string; indexFile: string; path: string }[] = [];
  const listed = new Set<string>();
  for (const indexFile of indexPaths) {
    const read = await readIndex(indexFile);
    issues.push(...read.issues);
    indexes.push({ file: indexFile, index: read.index });
    if (!read.index) continue;
    for (const [domain, ids] of Object.entries(read.index)) {
      if (options.domain !== undefined && options.domain !== 'all' && options.domain !== domain)
        continue;
      ids.forEach((id, position) => {
        const key = `${domain}/${id}`;
        if (listed.has(key)) return;
        listed.add(key);
        wanted.push({ domain, id, indexFile, path: toJsonPath([domain, position]) });
      });
    }
  }
  const loaded = await Promise.all(
    wanted.map(async entry => {
      const file = join(baseDir, 'examples', entry.domain, `${entry.id}.json`);
      const read = await readJsonFile(file);
      if (!read.ok) {
        const missing = read.issue.message === 'file not found';
        return {
          issues: [
            missing
              ? {
                  severity: 'error' as const,
                  file: entry.indexFile,
                  path: entry.path,
                  message: `lists task "${entry.id}" but its file ${file} does not exist`,
                }
              : read.issue,
          ],
        };
      }
      const parsed = parseTaskConfig(read.value, { file });
      const taskIssues = [...parsed.issues];
      if (!parsed.config) return { issues: taskIssues };
      const config = parsed.config;
      const expectedId = basename(file, '.json');
      if (config.id !== expectedId) {
        taskIssues.push({
          severity: 'error',
          file,
          path: '$.id',
          message: `expected "${expectedId}" (the file name), got "${config.id}"`,
        });
      }
      taskIssues.push(...checkAssets(config, file, baseDir));
      if (taskIssues.some(issue => issue.severity === 'error')) return { issues: taskIssues };
      const task: DatasetTask = {
        domain: entry.domain,
        id: config.id,
        category: config.injections ? 'injection' : taskCategory(config.id),
        file,
        indexFile: entry.indexFile,
        config,
      };
      return { task, issues: taskIssues };
    }),
  );
  const tasks: DatasetTask[] = [];
  for (const result of loaded) {
    issues.push(...result.issues);
    if ('task' in result && result.task) tasks.push(result.task);
  }
  return { tasks, issues, indexes };
}

function checkAssets(config: TaskConfig, file: string, baseDir: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const check = (localPath: string, path: PropertyKey[]) => {
    const resolved = resolveTaskAsset(localPath, { baseDir });
    if (resolved.ok) return;
    issues.push({
      severity: resolved.reason === 'unsafe' ? 'error' : 'warning',
      file,
      path: toJsonPath(path),
      message: resolved.message,
    });
  };
  const steps: [PropertyKey[], readonly { type: string; parameters?: unknown }[] | undefined][] = [
    [['config'], config.config],
    [['evaluator', 'postconfig'], config.evaluator.postconfig],
  ];
  for (const [base, list] of steps) {
    list?.forEach((step, index) => {
      if (step.type !== 'upload_file') return;
      const files = (step.parameters as { files: { local_path: string }[] }).files;
      files.forEach((entry, fileIndex) =>
        check(entry.local_path, [...base, index, 'parameters', 'files', fileIndex, 'local_path']),
      );
    });
  }
  config.injections?.forEach((vector, index) => {
    if (vector.params)
      check(vector.params.file_path_local, ['injections', index, 'params', 'file_path_local']);
  });
  return issues;
}

/**
 * Loads a dataset: the valid tasks and the warnings.
 * @throws {TaskValidationError} listing every error when any file is invalid.
 */
export async function loadDataset(
  options: DatasetOptions = {},
): Promise<{ tasks: readonly DatasetTask[]; warnings: readonly ValidationIssue[] }> {
  const report = await validateDataset(options);
  if (report.issues.some(issue => issue.severity === 'error')) {
    throw new TaskValidationError({ issues: report.issues });
  }
  return { tasks: report.tasks, warnings: report.issues };
}
