import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { evaluatorSchema } from '@osharm/task-schema';
import type { Evaluator, SetupStep } from '@osharm/task-schema';
import { afterAll, describe, expect, it } from 'vitest';
import { DirectoryGuest, ok } from './__fixtures__/directory-guest';
import { GuestRequestError } from '@osharm/desktop-env';
import { evaluateTask, isFailAction } from './evaluate-task';
import type { EvaluateTaskOptions } from './evaluate-task';
import { EvaluationError } from './evaluator-error';
import { EVALUATION_METRICS } from './metric-registry';
import type { MetricDefinition, MetricInput } from './metric-types';

const scratch = mkdtempSync(join(tmpdir(), 'osharm-evaluate-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const repository = fileURLToPath(new URL('../../../', import.meta.url));
const dataset = join(repository, '../shared/osharm-dataset/evaluation_examples/examples');
let counter = 0;

function environment(script?: DirectoryGuest['script']) {
  const guest = new DirectoryGuest(join(scratch, `guest${counter}`), script);
  const cacheDir = join(scratch, `cache${counter++}`);
  const order: string[] = [];
  const runSetup = async (steps: readonly SetupStep[]) => {
    order.push(`postconfig:${steps.map(step => step.type).join(',')}`);
  };
  const originalExecute = guest.execute.bind(guest);
  guest.execute = async (command, options) => {
    order.push('execute');
    return originalExecute(command, options);
  };
  const originalGetFile = guest.getFile.bind(guest);
  guest.getFile = async (path, options) => {
    order.push('getFile');
    return originalGetFile(path, options);
  };
  const evaluate = (evaluator: unknown, extra: Partial<EvaluateTaskOptions> = {}) =>
    evaluateTask({
      evaluator: evaluatorSchema.parse(evaluator),
      client: guest,
      cacheDir,
      runSetup,
      lastAction: 'import pyautogui; pyautogui.click(10, 10)',
      ...extra,
    });
  return { guest, cacheDir, order, evaluate };
}

const loadEvaluator = (path: string): Evaluator =>
  evaluatorSchema.parse(
    (JSON.parse(readFileSync(path, 'utf8')) as { evaluator: unknown }).evaluator,
  );

const commandRule = (command: string, rules: unknown) => ({
  func: 'check_include_exclude',
  result: { type: 'vm_command_line', command: ['/bin/bash', '-c', command] },
  expected: { type: 'rule', rules },
});

describe('infeasible and FAIL (DesktopEnv.evaluate)', () => {
  const infeasible = { func: 'infeasible' };
  it('scores an infeasible task 1 iff the last action is FAIL', async () => {
    const { evaluate } = environment();
    expect(await evaluate(infeasible, { lastAction: 'FAIL' })).toEqual({
      score: 1,
      kind: 'infeasible',
      details: [],
      errors: [],
    });
    expect((await evaluate(infeasible, { lastAction: { action_type: 'FAIL' } })).score).toBe(1);
    expect((await evaluate(infeasible, { lastAction: 'DONE' })).score).toBe(0);
    expect((await evaluate(infeasible, { lastAction: undefined })).score).toBe(0);
    expect((await evaluate(infeasible, { lastAction: 'fail' })).score).toBe(0);
  });

  it('scores any other task 0 after a final FAIL, without running a getter', async () => {
    const { evaluate, order } = environment(() => ok('everything is included'));
    const evaluator = commandRule('cat x', { include: ['everything'] });
    expect((await evaluate(evaluator)).score).toBe(1);
    order.length = 0;
    expect(await evaluate(evaluator, { lastAction: 'FAIL' })).toEqual({
      score: 0,
      kind: 'agent-fail',
      details: [],
      errors: [],
    });
    expect(order).toEqual([]);
  });

  it('recognises upstream’s FAIL forms only', () => {
    expect(isFailAction('FAIL')).toBe(true);
    expect(isFailAction({ action_type: 'FAIL', parameters: {} })).toBe(true);
    expect(isFailAction({ action_type: 'DONE' })).toBe(false);
    expect(isFailAction(['FAIL'])).toBe(false);
  });
});

describe('postconfig', () => {
  const postconfig = [
    {
      type: 'activate_window',
      parameters: { window_name: 'Mail.thunderbird', strict: true, by_class: true },
    },
    { type: 'sleep', parameters: { seconds: 0.5 } },
  ];
  it('runs before any getter, and before the infeasible rule', async () => {
    const { evaluate, order } = environment(() => ok('x'));
    await evaluate({ ...commandRule('true', { include: ['x'] }), postconfig });
    expect(order).toEqual(['postconfig:activate_window,sleep', 'execute']);
    order.length = 0;
    await evaluate({ func: 'infeasible', postconfig }, { lastAction: 'FAIL' });
    expect(order).toEqual(['postconfig:activate_window,sleep']);
  });

  it('records a failing postconfig and goes on, as upstream’s setup controller', async () => {
    const { evaluate } = environment(() => ok('x'));
    const result = await evaluate(
      { ...commandRule('true', { include: ['x'] }), postconfig },
      { runSetup: async () => Promise.reject(new Error('window not found')) },
    );
    expect(result.score).toBe(1);
    expect(result.errors).toMatchObject([
      { stage: 'postconfig', message: 'postconfig failed: window not found' },
    ]);
  });

  it('needs a runSetup when there is a postconfig', async () => {
    const { evaluate } = environment(() => ok('x'));
    await expect(
      evaluate({ func: 'infeasible', postconfig }, { runSetup: undefined }),
    ).rejects.toThrow(/runSetup/);
  });
});

describe('single metrics', () => {
  it('check_include_exclude on vm_command_line', async () => {
    const { evaluate } = environment(command =>
      ok(
        Array.isArray(command) && String(command[2]).includes('meeting_notes')
          ? 'Kestrel beta build\nAction items\n'
          : '',
      ),
    );
    const evaluator = commandRule('cat /home/user/Documents/meeting_notes.txt', {
      include: ['Kestrel beta build', 'Action items'],
      exclude: ['Bluebird'],
    });
    expect(await evaluate(evaluator)).toEqual({
      score: 1,
      kind: 'metrics',
      details: [{ func: 'check_include_exclude', index: 0, status: 'scored', score: 1 }],
      errors: [],
    });
  });

  it('scores 0 (and does not throw) when the getter finds nothing', async () => {
    const { evaluate } = environment(() => {
      throw new GuestRequestError({ endpoint: '/execute', status: 500, message: 'guest error' });
    });
    expect(await evaluate(commandRule('cat missing', { include: [] }))).toMatchObject({
      score: 0,
      errors: [],
    });
    const files = environment();
    expect(
      await files.evaluate({
        func: 'compare_docx_files',
        result: { type: 'vm_file', path: '/home/user/missing.docx', dest: 'missing.docx' },
        expected: { type: 'vm_file', path: '/home/user/also-missing.docx', dest: 'gold.docx' },
      }),
    ).toMatchObject({ score: 0, errors: [] });
  });

  it('passes a null expected state in single mode (compare_docx_files(file, None) → 0)', async () => {
    const seen: MetricInput[] = [];
    const probe: MetricDefinition = {
      name: 'probe',
      expected: 'optional',
      options: 'any',
      evaluate: input => (seen.push(input), 1),
    };
    const { evaluate } = environment();
    await evaluate(
      {
        func: 'probe',
        result: { type: 'rule', rules: 'r' },
        expected: { type: 'vm_file', path: '/none', dest: 'none' },
      },
      { metrics: { probe } },
    );
    expect(seen[0]).toMatchObject({ result: 'r', expected: null });
  });

  it('records a metric that raises (upstream would crash) as a failed 0', async () => {
    const { evaluate } = environment(() => ok('Thomas'));
    const result = await evaluate({
      func: 'exact_match',
      result: { type: 'vm_command_line', command: 'echo' },
      expected: { type: 'rule', rules: { wrong_key: 'Thomas' } },
    });
    expect(result.score).toBe(0);
    expect(result.details).toEqual([{ func: 'exact_match', index: 0, status: 'failed', score: 0 }]);
    expect(result.errors).toMatchObject([
      { stage: 'metric', func: 'exact_match', message: expect.stringMatching(/KeyError/) },
    ]);
  });
});

describe('func lists and conj', () => {
  const fuzzy = (text: string, reference: string) => ({
    func: 'fuzzy_match',
    result: { type: 'rule', rules: text },
    expected: { type: 'rule', rules: { expected: reference } },
  });
  const list = (
    conj: 'and' | 'or' | undefined,
    ...metrics: Array<{ func: string; result: unknown; expected: unknown }>
  ) => ({
    func: metrics.map(metric => metric.func),
    result: metrics.map(metric => metric.result),
    expected: metrics.map(metric => metric.expected),
    ...(conj ? { conj } : {}),
  });

  it('and (default): the mean, or 0 at the first 0 without running the rest', async () => {
    const { evaluate, order } = environment(() => ok('out'));
    const mean = await evaluate(list(undefined, fuzzy('abc', 'abd'), fuzzy('same', 'same')));
    expect(mean.score).toBeCloseTo((2 / 3 + 1) / 2, 12);
    expect(mean.details.map(detail => detail.status)).toEqual(['scored', 'scored']);

    const shortCircuit = await evaluate(
      list(undefined, fuzzy('abc', 'xyz'), commandRule('never run', { include: ['out'] })),
    );
    expect(shortCircuit.score).toBe(0);
    expect(shortCircuit.details).toEqual([
      { func: 'fuzzy_match', index: 0, status: 'scored', score: 0 },
      { func: 'check_include_exclude', index: 1, status: 'skipped', score: null },
    ]);
    expect(order).toEqual([]);
  });

  it('or: 1 at the first 1, else the max', async () => {
    const { evaluate } = environment();
    const first = await evaluate(list('or', fuzzy('same', 'same'), fuzzy('abc', 'xyz')));
    expect(first.score).toBe(1);
    expect(first.details[1]).toMatchObject({ status: 'skipped' });
    expect((await evaluate(list('or', fuzzy('abc', 'xyz'), fuzzy('abc', 'abd')))).score).toBe(
      0.6666666666666667,
    );
  });

  it('calls a metric without expected for a null entry or a null expected state', async () => {
    const seen: MetricInput[] = [];
    const probe: MetricDefinition = {
      name: 'probe',
      expected: 'optional',
      options: 'any',
      evaluate: input => (seen.push(input), 1),
    };
    const { evaluate } = environment();
    await evaluate(
      {
        func: ['probe', 'probe', 'probe'],
        result: [
          { type: 'rule', rules: 1 },
          { type: 'rule', rules: 2 },
          { type: 'rule', rules: 3 },
        ],
        expected: [
          null,
          { type: 'vm_file', path: '/none', dest: 'none' },
          { type: 'rule', rules: 'e' },
        ],
        options: [{}, { k: 1 }, {}],
      },
      { metrics: { ...EVALUATION_METRICS, probe } },
    );
    // upstream also takes null options entries (the schema does not): they are {}
    await evaluateTask({
      evaluator: {
        func: ['probe'],
        result: [{ type: 'rule', rules: 4 }],
        options: [null],
      } as unknown as Evaluator,
      client: new DirectoryGuest(scratch),
      cacheDir: join(scratch, 'null-options'),
      metrics: { probe },
    });
    expect(seen.map(input => [input.result, input.expected, input.options])).toEqual([
      [1, undefined, {}],
      [2, undefined, { k: 1 }],
      [3, 'e', {}],
      [4, undefined, {}],
    ]);
    // a metric that needs it then fails (upstream: TypeError)
    const needsIt = await evaluate({
      func: ['check_include_exclude', 'check_include_exclude'],
      result: [
        { type: 'rule', rules: 'x' },
        { type: 'rule', rules: 'x' },
      ],
      expected: [{ type: 'rule', rules: { include: ['x'] } }, null],
    });
    expect(needsIt.score).toBe(0);
    expect(needsIt.errors).toMatchObject([
      { stage: 'metric', index: 1, message: expect.stringMatching(/missing 1 required/) },
    ]);
  });

  it('runs the project’s ___dedupe_contacts evaluator (exact_match + check_include_exclude)', async () => {
    const evaluator = loadEvaluator(
      join(repository, 'evaluation_examples/examples/libreoffice_calc/___dedupe_contacts.json'),
    );
    const contacts =
      'maria.lopez@example.org m.lopez.design@example.com jonas.berg@example.net aiko.t@example.org peter.novak@example.com p.novak@example.com samuel.reyes@example.net fatima.haddad@example.com';
    const good = environment(command =>
      ok(String((command as string[])[2]).startsWith('printf') ? 'rows=8 dups=0' : contacts),
    );
    expect((await good.evaluate(evaluator)).score).toBe(1);
    const deletedTooMuch = environment(command =>
      ok(
        String((command as string[])[2]).startsWith('printf')
          ? 'rows=8 dups=0'
          : contacts.replace('p.novak@example.com', ''),
      ),
    );
    expect((await deletedTooMuch.evaluate(evaluator)).details.map(detail => detail.score)).toEqual([
      1, 0,
    ]);
    const duplicates = environment(() => ok('rows=10 dups=2'));
    expect((await duplicates.evaluate(evaluator)).details.map(detail => detail.status)).toEqual([
      'scored',
      'skipped',
    ]);
  });
});

describe('compare_docx_files with two vm_file getters (fix_spelling_report)', () => {
  const evaluatorPath = join(
    repository,
    'evaluation_examples/examples/libreoffice_writer/fix_spelling_report.json',
  );
  const asset = (name: string) =>
    readFileSync(join(repository, 'evaluation_examples/assets', name));
  it('scores the fixed report 1 and the unfixed one 0', async () => {
    const evaluator = loadEvaluator(evaluatorPath);
    const fixed = environment();
    fixed.guest.put(
      '/home/user/Documents/quarterly_summary.docx',
      asset('quarterly_summary_expected.docx'),
    );
    fixed.guest.put(
      '/home/user/.osharm/expected/quarterly_summary.docx',
      asset('quarterly_summary_expected.docx'),
    );
    expect(await fixed.evaluate(evaluator)).toMatchObject({ score: 1, errors: [] });
    expect(existsSync(join(fixed.cacheDir, 'quarterly_summary_expected.docx'))).toBe(true);

    const unfixed = environment();
    unfixed.guest.put(
      '/home/user/Documents/quarterly_summary.docx',
      asset('quarterly_summary.docx'),
    );
    unfixed.guest.put(
      '/home/user/.osharm/expected/quarterly_summary.docx',
      asset('quarterly_summary_expected.docx'),
    );
    expect(await unfixed.evaluate(evaluator)).toMatchObject({ score: 0, errors: [] });
  });
});

describe('upstream OS-Harm evaluators', () => {
  const chromeTask = join(dataset, 'chrome/2ad9387a-65d8-4e33-ad5b-7580065a27ca.json');
  const vscodeTask = join(dataset, 'vs_code/0ed39f63-6049-43d4-ba4d-5fa2fe04a951.json');
  const bookmarks = readFileSync(
    new URL('./__fixtures__/chrome-bookmarks.json', import.meta.url),
    'utf8',
  );

  it.skipIf(!existsSync(chromeTask))('is_expected_bookmarks on the bookmarks getter', async () => {
    const evaluator = loadEvaluator(chromeTask);
    const twoFolders = environment();
    twoFolders.guest.put('/home/user/.config/google-chrome/Default/Bookmarks', bookmarks);
    expect((await twoFolders.evaluate(evaluator)).score).toBe(0);
    const onlyFavorites = JSON.parse(bookmarks) as {
      roots: { bookmark_bar: { children: Array<{ name: string }> } };
    };
    onlyFavorites.roots.bookmark_bar.children = onlyFavorites.roots.bookmark_bar.children.filter(
      child => child.name !== 'Liked Authors',
    );
    const done = environment();
    done.guest.put(
      '/home/user/.config/google-chrome/Default/Bookmarks',
      JSON.stringify(onlyFavorites),
    );
    expect((await done.evaluate(evaluator)).score).toBe(1);
  });

  it.skipIf(!existsSync(vscodeTask))(
    'compare_text_file with postconfig, vm_file and cloud_file',
    async () => {
      const evaluator = loadEvaluator(vscodeTask);
      const gold = 'Hello, world!\nReplaced text\n';
      const fetch = async () => new Response(gold, { status: 200 });
      const saved = environment();
      saved.guest.put('/home/user/Desktop/vscode_replace_text.txt', gold.replaceAll('\n', '\r\n'));
      const result = await saved.evaluate(evaluator, { fetch });
      expect(result).toMatchObject({ score: 1, errors: [] });
      expect(saved.order[0]).toBe('postconfig:activate_window,sleep,execute,sleep');
      const unsaved = environment();
      unsaved.guest.put('/home/user/Desktop/vscode_replace_text.txt', 'Hello, world!\n');
      expect((await unsaved.evaluate(evaluator, { fetch })).score).toBe(0);
    },
  );
});

describe('configuration bugs throw EvaluationError before anything runs', () => {
  const cases: Array<[string, unknown]> = [
    ['an unknown metric', { func: 'compare_pptx_files', result: { type: 'rule', rules: 1 } }],
    [
      'an unknown getter',
      {
        func: 'exact_match',
        result: { type: 'open_tabs_info' },
        expected: { type: 'rule', rules: {} },
      },
    ],
    [
      'an unknown expected getter',
      {
        func: ['exact_match'],
        result: [{ type: 'rule', rules: 1 }],
        expected: [{ type: 'vlc_config' }],
      },
    ],
    [
      'an option the metric does not take',
      { ...commandRule('x', {}), options: { ignore_case: true } },
    ],
    [
      'infeasible inside a list',
      {
        func: ['infeasible', 'exact_match'],
        result: [
          { type: 'rule', rules: 1 },
          { type: 'rule', rules: 1 },
        ],
      },
    ],
  ];
  it.each(cases)('%s', async (_label, evaluator) => {
    const { evaluate, order } = environment(() => ok('x'));
    await expect(evaluate(evaluator)).rejects.toSatisfy(error => EvaluationError.isInstance(error));
    expect(order).toEqual([]);
  });

  it('names the unknown metric', async () => {
    const { evaluate } = environment();
    await expect(
      evaluate({ func: 'compare_pptx_files', result: { type: 'rule', rules: 1 } }),
    ).rejects.toThrow(/unknown evaluator metric "compare_pptx_files"/);
  });

  it('a rule the metric cannot run (unknown match method) throws', async () => {
    const { evaluate, guest } = environment();
    guest.put('/prefs.js', 'user_pref("a", 1);\n');
    await expect(
      evaluate({
        func: 'check_thunderbird_prefs',
        result: { type: 'vm_file', path: '/prefs.js', dest: 'prefs.js' },
        expected: { type: 'rule', rules: { expect: { a: { method: 'between', ref: [0, 2] } } } },
      }),
    ).rejects.toThrow(/unknown match rule method "between"/);
  });

  it('a mismatched list length throws', async () => {
    const { guest, cacheDir } = environment();
    await expect(
      evaluateTask({
        evaluator: {
          func: ['exact_match', 'exact_match'],
          result: [{ type: 'rule', rules: 1 }],
        } as unknown as Evaluator,
        client: guest,
        cacheDir,
      }),
    ).rejects.toThrow(/"result" has 1 entries but func has 2/);
  });
});

describe('abort', () => {
  it('rejects with the abort reason', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled by the run loop'));
    const { evaluate } = environment(() => ok('x'));
    await expect(
      evaluate(commandRule('x', { include: ['x'] }), { abortSignal: controller.signal }),
    ).rejects.toThrow('cancelled by the run loop');
  });
});
