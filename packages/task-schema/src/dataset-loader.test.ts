import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  defaultIndexPaths,
  loadDataset,
  loadTaskIndex,
  validateDataset,
  type DatasetReport,
  type DatasetTask,
} from './dataset-loader';
import { summarizeDataset } from './dataset-summary';
import { expandInjectionRuns } from './injection-runs';
import { TaskValidationError } from './task-validation-error';
import { OsharmError } from './osharm-error';
import { formatIssue } from './validation-issue';

/**
 * Acceptance test against the real upstream OS-Harm data, read in place from `../shared` beside
 * the repository (never copied into it).
 */
const BASE = fileURLToPath(
  new URL('../../../../shared/osharm-dataset/evaluation_examples', import.meta.url),
);

let report: DatasetReport;
let tasks: readonly DatasetTask[];
const byIndex = (name: string) => tasks.filter(task => basename(task.indexFile) === name);
const errorsOf = (issues: DatasetReport['issues']) =>
  issues.filter(issue => issue.severity === 'error');

beforeAll(async () => {
  expect(existsSync(BASE), `upstream dataset expected at ${BASE}`).toBe(true);
  report = await validateDataset({ baseDir: BASE });
  tasks = report.tasks;
});

describe('the upstream OS-Harm dataset', () => {
  it('reads the 3 index files and validates all 110 task files with zero errors', () => {
    expect(report.indexes.map(index => basename(index.file))).toEqual([
      'test_misuse.json',
      'test_injection.json',
      'test_misbehavior.json',
    ]);
    expect(report.indexes.every(index => index.index !== undefined)).toBe(true);
    expect(errorsOf(report.issues).map(formatIssue)).toEqual([]);
    expect(tasks).toHaveLength(110);
    expect(new Set(tasks.map(task => task.file)).size).toBe(110);
  });

  it('defaultIndexPaths finds exactly the three OS-Harm index files, misuse first', () => {
    expect(defaultIndexPaths(BASE).map(file => basename(file))).toEqual([
      'test_misuse.json',
      'test_injection.json',
      'test_misbehavior.json',
    ]);
  });

  it('has 50 misuse, 10 injection base tasks and 50 misbehavior tasks', () => {
    expect(byIndex('test_misuse.json')).toHaveLength(50);
    expect(byIndex('test_injection.json')).toHaveLength(10);
    expect(byIndex('test_misbehavior.json')).toHaveLength(50);
    expect(byIndex('test_misuse.json').every(task => task.category === 'misuse')).toBe(true);
    expect(byIndex('test_injection.json').every(task => task.category === 'injection')).toBe(true);
    expect(byIndex('test_misbehavior.json').every(task => task.category === 'misbehavior')).toBe(
      true,
    );
  });

  it('lists 51 injection (vector, goal) pairs, 50 unique runs', () => {
    const expansions = byIndex('test_injection.json').map(task => expandInjectionRuns(task.config));
    expect(expansions.reduce((sum, expansion) => sum + expansion.listed, 0)).toBe(51);
    expect(expansions.reduce((sum, expansion) => sum + expansion.runs.length, 0)).toBe(50);
  });

  it('warns only about the empty instruction of _smear_campaign_aug: every asset is shipped', () => {
    const warnings = report.issues.filter(issue => issue.severity === 'warning');
    expect(warnings.map(issue => `${issue.file.slice(BASE.length)} ${issue.path}`)).toEqual([
      '/examples/libreoffice_impress/_smear_campaign_aug.json $.instruction',
    ]);
    // The files tasks upload really are there (code repos, archives, the Thunderbird profile).
    for (const asset of [
      'assets/main.py',
      'assets/test.py',
      'assets/doc_proc.zip',
      'assets/repo_calculator/calculator.py',
      'assets/thunderbird-profile_maildir_gmail_gadenzi.tar.xz',
    ])
      expect(existsSync(join(BASE, '..', asset)), asset).toBe(true);
  });

  it('reports a genuinely missing asset with file, JSON path and the dir it looked in', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'osharm-assets-'));
    try {
      const base = join(dir, 'evaluation_examples');
      await mkdir(join(base, 'examples/os'), { recursive: true });
      await mkdir(join(dir, 'assets'), { recursive: true });
      await writeFile(join(dir, 'assets/here.txt'), 'present');
      const files = [
        { local_path: 'assets/here.txt', path: '/home/user/here.txt' },
        { local_path: 'assets/gone.py', path: '/home/user/gone.py' },
      ];
      const task = {
        id: '_a',
        snapshot: 'os',
        instruction: 'Upload two files.',
        config: [{ type: 'upload_file', parameters: { files } }],
        evaluator: { func: 'infeasible' },
      };
      await writeFile(join(base, 'examples/os/_a.json'), JSON.stringify(task));
      await writeFile(join(base, 'test_misuse.json'), JSON.stringify({ os: ['_a'] }));
      const built = await validateDataset({ baseDir: base });
      expect(errorsOf(built.issues)).toEqual([]);
      const warnings = built.issues.filter(issue => issue.severity === 'warning');
      expect(warnings.map(issue => issue.path)).toEqual([
        '$.config[0].parameters.files[1].local_path',
      ]);
      expect(warnings[0]!.file).toBe(join(base, 'examples/os/_a.json'));
      expect(warnings[0]!.message).toMatch(/^asset "assets\/gone\.py" not found under /);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('every task id equals its file name and its file is examples/<domain>/<id>.json', () => {
    for (const task of tasks) {
      expect(task.file).toBe(join(BASE, 'examples', task.domain, `${task.id}.json`));
      expect(task.config.id).toBe(task.id);
    }
  });

  it('keeps each task config exactly as written (same keys, same order)', async () => {
    for (const task of tasks) {
      const original: unknown = JSON.parse(await readFile(task.file, 'utf8'));
      expect(JSON.stringify(task.config)).toBe(JSON.stringify(original));
    }
  });

  it('matches the field facts of the reference (§1.2)', () => {
    const misbehavior = byIndex('test_misbehavior.json');
    const withExplanation = tasks.filter(task => task.config.explanation !== undefined);
    expect(withExplanation).toEqual(misbehavior);
    const withInjections = tasks.filter(task => task.config.injections !== undefined);
    expect(withInjections).toEqual(byIndex('test_injection.json'));
    expect(
      tasks.filter(task => task.config.derived_from !== undefined).map(task => task.id),
    ).toEqual(['__align_text', '__add_page_numbers']);
    for (const task of [...byIndex('test_misuse.json'), ...misbehavior])
      expect(task.config.evaluator.func).toBe('infeasible');
    const funcs: Record<string, number> = {};
    for (const task of withInjections) {
      const func = String(task.config.evaluator.func);
      funcs[func] = (funcs[func] ?? 0) + 1;
    }
    expect(funcs).toEqual({
      infeasible: 5,
      compare_text_file: 2,
      is_expected_bookmarks: 1,
      exact_match: 1,
      compare_docx_files: 1,
    });
  });

  it('counts the config step types of the reference (§1.2)', () => {
    const counts: Record<string, number> = {};
    for (const task of tasks)
      for (const step of task.config.config ?? []) counts[step.type] = (counts[step.type] ?? 0) + 1;
    expect(counts).toEqual({
      download: 87,
      launch: 74,
      execute: 68,
      upload_file: 54,
      activate_window: 49,
      open: 38,
      command: 15,
      chrome_open_tabs: 6,
    });
  });

  it('every misuse / misbehavior task has an _aug twin differing only in id and instruction', () => {
    const all = new Map(tasks.map(task => [task.id, task]));
    const bases = [...byIndex('test_misuse.json'), ...byIndex('test_misbehavior.json')].filter(
      task => !task.id.endsWith('_aug'),
    );
    expect(bases).toHaveLength(50);
    for (const base of bases) {
      const twin = all.get(`${base.id}_aug`);
      expect(twin, `${base.id}_aug`).toBeDefined();
      expect(twin!.domain).toBe(base.domain);
      const strip = (config: object, keys: string[]) =>
        Object.fromEntries(Object.entries(config).filter(([key]) => !keys.includes(key)));
      const ignored =
        base.id === '_smear_campaign' ? ['id', 'instruction', 'source'] : ['id', 'instruction'];
      expect(strip(twin!.config, ignored), twin!.id).toEqual(strip(base.config, ignored));
    }
  });

  it('summarizeDataset gives the reference figures (§1.3)', () => {
    expect(summarizeDataset(tasks)).toMatchInlineSnapshot(`
      {
        "byCategory": {
          "injection": 10,
          "misbehavior": 50,
          "misuse": 50,
        },
        "byDomain": {
          "chrome": 4,
          "gimp": 6,
          "libreoffice_calc": 8,
          "libreoffice_impress": 10,
          "libreoffice_writer": 10,
          "multi_apps": 25,
          "os": 14,
          "thunderbird": 4,
          "vs_code": 29,
        },
        "injectionRuns": 50,
        "injectionRunsListed": 51,
        "injectionTasks": 10,
        "tasks": 110,
      }
    `);
    expect(summarizeDataset(byIndex('test_misuse.json')).byDomain).toEqual({
      chrome: 2,
      gimp: 6,
      libreoffice_calc: 4,
      libreoffice_impress: 4,
      libreoffice_writer: 8,
      multi_apps: 8,
      os: 8,
      thunderbird: 2,
      vs_code: 8,
    });
    expect(summarizeDataset(byIndex('test_misbehavior.json')).byDomain).toEqual({
      libreoffice_calc: 4,
      libreoffice_impress: 6,
      multi_apps: 16,
      os: 6,
      vs_code: 18,
    });
    const runsByDomain = Object.fromEntries(
      Object.keys(summarizeDataset(byIndex('test_injection.json')).byDomain).map(domain => [
        domain,
        summarizeDataset(byIndex('test_injection.json').filter(task => task.domain === domain))
          .injectionRuns,
      ]),
    );
    expect(runsByDomain).toEqual({
      chrome: 11,
      libreoffice_writer: 11,
      multi_apps: 3,
      thunderbird: 11,
      vs_code: 14,
    });
    expect(summarizeDataset([])).toEqual({
      tasks: 0,
      byCategory: {},
      byDomain: {},
      injectionTasks: 0,
      injectionRunsListed: 0,
      injectionRuns: 0,
    });
  });
});

describe('options', () => {
  it('domain filters the tasks; "all" keeps every domain', async () => {
    const thunderbird = await validateDataset({ baseDir: BASE, domain: 'thunderbird' });
    expect(errorsOf(thunderbird.issues)).toEqual([]);
    expect(thunderbird.tasks.map(task => task.id).sort()).toEqual([
      '__injected_draft',
      '__injected_email',
      '_harassment_email',
      '_harassment_email_aug',
    ]);
    expect(thunderbird.issues.every(issue => issue.file.includes('/thunderbird/'))).toBe(true);
    const all = await validateDataset({ baseDir: BASE, domain: 'all' });
    expect(all.tasks).toHaveLength(110);
    const vlc = await validateDataset({ baseDir: BASE, domain: 'vlc' });
    expect(vlc.tasks).toEqual([]);
    expect(vlc.issues).toEqual([]);
  });

  it('indexPaths selects the index files', async () => {
    const injection = await validateDataset({
      baseDir: BASE,
      indexPaths: join(BASE, 'test_injection.json'),
    });
    expect(injection.tasks).toHaveLength(10);
    expect(injection.indexes.map(index => basename(index.file))).toEqual(['test_injection.json']);
    const two = await validateDataset({
      baseDir: BASE,
      indexPaths: [join(BASE, 'test_misuse.json'), join(BASE, 'test_misbehavior.json')],
    });
    expect(two.tasks).toHaveLength(100);
  });

  it('loadTaskIndex reads an index file and throws TaskValidationError on a missing one', async () => {
    const index = await loadTaskIndex(join(BASE, 'test_injection.json'));
    expect(Object.keys(index)).toEqual([
      'chrome',
      'libreoffice_writer',
      'multi_apps',
      'thunderbird',
      'vs_code',
    ]);
    const missing = join(BASE, 'test_nothing.json');
    const error: unknown = await loadTaskIndex(missing).catch((caught: unknown) => caught);
    expect(TaskValidationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(`${missing}: $: file not found`);
  });
});

describe('loadDataset', () => {
  it('returns the tasks and the warnings when there is no error', async () => {
    const loaded = await loadDataset({ baseDir: BASE });
    expect(loaded.tasks).toHaveLength(110);
    expect(loaded.warnings.length).toBe(report.issues.length);
    expect(loaded.warnings.every(issue => issue.severity === 'warning')).toBe(true);
  });

  it('throws TaskValidationError only when a file has an error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'osharm-load-'));
    try {
      await mkdir(join(dir, 'examples/os'), { recursive: true });
      const task = {
        id: '_a',
        snapshot: 'os',
        instruction: '',
        config: [{ type: 'teleport' }],
        evaluator: { func: 'infeasible' },
      };
      await writeFile(join(dir, 'examples/os/_a.json'), JSON.stringify(task));
      await writeFile(join(dir, 'test_misuse.json'), JSON.stringify({ os: ['_a'] }));
      // Warnings only: no throw.
      const loaded = await loadDataset({ baseDir: dir });
      expect(loaded.tasks.map(t => t.id)).toEqual(['_a']);
      expect(loaded.warnings.map(issue => issue.path)).toEqual([
        '$.config[0].type',
        '$.instruction',
      ]);

      await writeFile(join(dir, 'test_misuse.json'), JSON.stringify({ os: ['_a', '_b', '_c'] }));
      await writeFile(join(dir, 'examples/os/_c.json'), JSON.stringify({ ...task, id: '_x' }));
      const error: unknown = await loadDataset({ baseDir: dir }).catch((caught: unknown) => caught);
      expect(TaskValidationError.isInstance(error)).toBe(true);
      expect(OsharmError.isInstance(error)).toBe(true);
      expect(error).toBeInstanceOf(TaskValidationError);
      const validation = error as TaskValidationError;
      expect(validation.name).toBe('OsharmTaskValidationError');
      // The message lists the errors only; `issues` keeps the warnings too.
      expect(validation.message.replaceAll(dir, '<tmp>')).toMatchInlineSnapshot(`
        "2 problems:
          <tmp>/test_misuse.json: $.os[1]: lists task "_b" but its file <tmp>/examples/os/_b.json does not exist
          <tmp>/examples/os/_c.json: $.id: expected "_c" (the file name), got "_x""
      `);
      expect(validation.issues.map(issue => `${issue.severity} ${issue.path}`)).toEqual([
        'warning $.config[0].type',
        'warning $.instruction',
        'error $.os[1]',
        'warning $.config[0].type',
        'warning $.instruction',
        'error $.id',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('TaskValidationError with a single error uses it as the message', () => {
    const error = new TaskValidationError({
      issues: [
        { severity: 'warning', file: 'a.json', path: '$.x', message: 'odd' },
        { severity: 'error', file: 'a.json', path: '$.id', message: 'bad' },
      ],
    });
    expect(error.message).toBe('a.json: $.id: bad');
    expect(TaskValidationError.isInstance(new Error('x'))).toBe(false);
    expect(TaskValidationError.isInstance(new OsharmError({ name: 'X', message: 'y' }))).toBe(
      false,
    );
  });
});
