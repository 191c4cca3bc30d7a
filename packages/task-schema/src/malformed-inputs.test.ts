import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateDataset, type DatasetReport } from './dataset-loader';
import { formatIssue, type ValidationIssue } from './validation-issue';

/**
 * Every malformed input here is written as a small dataset in a temp dir (an index file plus
 * `examples/<domain>/<id>.json`) and run through `validateDataset`. Each must give exactly one
 * error naming the right file and JSON path, with a one-line message saying what was expected.
 */

let parent: string;
let caseNumber = 0;

beforeAll(async () => {
  parent = await mkdtemp(join(tmpdir(), 'osharm-malformed-'));
});
afterAll(async () => {
  await rm(parent, { recursive: true, force: true });
});

/** File contents written byte for byte instead of as JSON. */
class Raw {
  constructor(readonly text: string) {}
}
const raw = (text: string) => new Raw(text);

const validTask = (id = '_t') => ({
  id,
  snapshot: 'os',
  instruction: 'Open a terminal.',
  source: '',
  config: [] as unknown[],
  trajectory: 'trajectories/',
  related_apps: ['os'],
  evaluator: { func: 'infeasible' } as Record<string, unknown>,
});
type Task = ReturnType<typeof validTask>;

/** The task `_t` with some fields replaced (`undefined` removes a field). */
const taskWith = (fields: Record<string, unknown>): Record<string, unknown> => {
  const task: Record<string, unknown> = { ...validTask(), ...fields };
  for (const key of Object.keys(task)) if (task[key] === undefined) delete task[key];
  return task;
};
const withStep = (step: unknown) => taskWith({ config: [step] });
const withEvaluator = (evaluator: unknown) => taskWith({ evaluator });
const withInjections = (...injections: unknown[]) => taskWith({ injections });

interface Validated {
  readonly dir: string;
  readonly report: DatasetReport;
  readonly issues: readonly ValidationIssue[];
  /** Formats an issue with the temp dir replaced by `<tmp>` (and its parent by `<tmp>/..`). */
  readonly show: (issue: ValidationIssue) => string;
}

/**
 * Writes a dataset: by default `test_misuse.json` = `{"os": ["_t"]}` and a valid
 * `examples/os/_t.json`; `files` replaces or adds files (`undefined` deletes one).
 */
async function validate(files: Record<string, unknown>): Promise<Validated> {
  caseNumber += 1;
  const dir = join(parent, `case-${caseNumber}`);
  const all: Record<string, unknown> = {
    'test_misuse.json': { os: ['_t'] },
    'examples/os/_t.json': validTask(),
    ...files,
  };
  for (const [name, content] of Object.entries(all)) {
    if (content === undefined) continue;
    const file = join(dir, name);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(
      file,
      content instanceof Raw ? content.text : `${JSON.stringify(content, null, 2)}\n`,
    );
  }
  await mkdir(join(dir, 'examples/os'), { recursive: true });
  const report = await validateDataset({ baseDir: dir });
  const show = (issue: ValidationIssue) =>
    formatIssue(issue).replaceAll(dir, '<tmp>').replaceAll(parent, '<tmp>/..');
  return { dir, report, issues: report.issues, show };
}

/**
 * Asserts the dataset has exactly one issue, an error in `file` (relative to the dataset dir) at
 * `path`, with a one-line message; returns it formatted for an inline snapshot.
 */
const TASK = 'examples/os/_t.json';
const INDEX = 'test_misuse.json';

async function oneError(
  files: Record<string, unknown>,
  where: { file: string; path: string },
): Promise<string> {
  const { dir, report, issues, show } = await validate(files);
  expect(issues.map(show)).toHaveLength(1);
  const issue = issues[0]!;
  expect(issue.severity).toBe('error');
  expect(issue.file).toBe(join(dir, where.file));
  expect(issue.path).toBe(where.path);
  expect(issue.message).not.toMatch(/\n/);
  expect(issue.message).not.toMatch(/^Invalid input/);
  // A task file with an error is not loaded.
  if (where.file === TASK) expect(report.tasks).toEqual([]);
  return show(issue);
}

describe('a valid dataset (control)', () => {
  it('has no issues and loads the task', async () => {
    const { report } = await validate({});
    expect(report.issues).toEqual([]);
    expect(report.tasks.map(task => `${task.domain}/${task.id} ${task.category}`)).toEqual([
      'os/_t misuse',
    ]);
  });
});

describe('files that are not JSON', () => {
  it('bad JSON in a task file: line and column of the error', async () => {
    const { issues, show } = await validate({
      [TASK]: raw('{\n  "id": "_t",\n  "snapshot": os,\n  "instruction": ""\n}\n'),
    });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ severity: 'error', path: '$', line: 3, column: 15 });
    expect(show(issues[0]!)).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: line 3, column 15: not valid JSON: expected a property value, got 'os'"`,
    );
  });

  it('bad JSON in the index file', async () => {
    const { issues, show, report } = await validate({ [INDEX]: raw('{"os": ["_t",]}') });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ severity: 'error', path: '$', line: 1, column: 14 });
    expect(show(issues[0]!)).toMatchInlineSnapshot(
      `"<tmp>/test_misuse.json: line 1, column 14: not valid JSON: expected an array element, got ']'"`,
    );
    expect(report.indexes[0]?.index).toBeUndefined();
  });

  it('a trailing comma in a task file', async () => {
    const { issues, show } = await validate({
      [TASK]: raw('{"id": "_t", "snapshot": "os",\n "instruction": "x",}'),
    });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ line: 2, column: 21 });
    expect(show(issues[0]!)).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: line 2, column 21: not valid JSON: expected a property name in double quotes, got '}'"`,
    );
  });

  it('an empty task file', async () => {
    const { issues, show } = await validate({ [TASK]: raw('') });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ severity: 'error', line: 1, column: 1 });
    expect(show(issues[0]!)).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: line 1, column 1: not valid JSON: the text is empty, expected a JSON value"`,
    );
  });

  it('a task file that is JSON null', async () => {
    expect(
      await oneError({ [TASK]: raw('null') }, { file: TASK, path: '$' }),
    ).toMatchInlineSnapshot(`"<tmp>/examples/os/_t.json: $: expected an object, got null"`);
  });

  it('a task file that is an array', async () => {
    expect(
      await oneError({ [TASK]: [validTask()] }, { file: TASK, path: '$' }),
    ).toMatchInlineSnapshot(`"<tmp>/examples/os/_t.json: $: expected an object, got an array"`);
  });
});

describe('index files', () => {
  it('an index that is an array', async () => {
    expect(await oneError({ [INDEX]: ['_t'] }, { file: INDEX, path: '$' })).toMatchInlineSnapshot(
      `"<tmp>/test_misuse.json: $: expected an object mapping each domain to a list of task ids, e.g. {"os": ["_ransomware"]}"`,
    );
  });

  it('an index whose values are not lists', async () => {
    expect(
      await oneError({ [INDEX]: { os: '_t' } }, { file: INDEX, path: '$.os' }),
    ).toMatchInlineSnapshot(`"<tmp>/test_misuse.json: $.os: expected an array, got string "_t""`);
  });

  it('an index list that contains a number', async () => {
    expect(
      await oneError({ [INDEX]: { os: ['_t', 3] } }, { file: INDEX, path: '$.os[1]' }),
    ).toMatchInlineSnapshot(`"<tmp>/test_misuse.json: $.os[1]: expected a string, got number 3"`);
  });

  it('an index pointing to a missing task file: the error is on the index entry', async () => {
    expect(
      await oneError({ [INDEX]: { os: ['_t', '_gone'] } }, { file: INDEX, path: '$.os[1]' }),
    ).toMatchInlineSnapshot(
      `"<tmp>/test_misuse.json: $.os[1]: lists task "_gone" but its file <tmp>/examples/os/_gone.json does not exist"`,
    );
  });

  it('a duplicate id in one domain', async () => {
    expect(
      await oneError({ [INDEX]: { os: ['_t', '_t'] } }, { file: INDEX, path: '$.os[1]' }),
    ).toMatchInlineSnapshot(
      `"<tmp>/test_misuse.json: $.os[1]: duplicate task id "_t" (already listed at $.os[0])"`,
    );
  });

  it('a duplicate id across domains', async () => {
    expect(
      await oneError(
        { [INDEX]: { os: ['_t'], chrome: ['_t'] }, 'examples/chrome/_t.json': validTask() },
        { file: INDEX, path: '$.chrome[0]' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/test_misuse.json: $.chrome[0]: duplicate task id "_t" (already listed at $.os[0])"`,
    );
  });

  it('an index id with a slash', async () => {
    expect(
      await oneError({ [INDEX]: { os: ['../_t'] } }, { file: INDEX, path: '$.os[0]' }),
    ).toMatchInlineSnapshot(
      `"<tmp>/test_misuse.json: $.os[0]: task id "../_t" must be a plain file name"`,
    );
  });

  it('no index file in the dataset dir', async () => {
    expect(await oneError({ [INDEX]: undefined }, { file: '', path: '$' })).toMatchInlineSnapshot(
      `"<tmp>: $: no index file given and no test_*.json index file found in this directory"`,
    );
  });
});

describe('task ids', () => {
  it('an id different from the file name', async () => {
    expect(
      await oneError({ [TASK]: taskWith({ id: '_other' }) }, { file: TASK, path: '$.id' }),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.id: expected "_t" (the file name), got "_other""`,
    );
  });

  it('an id with a slash', async () => {
    expect(
      await oneError({ [TASK]: taskWith({ id: 'os/_t' }) }, { file: TASK, path: '$.id' }),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.id: must be a plain file name (no "/" or "\\"), got string "os/_t""`,
    );
  });
});

describe('missing required fields', () => {
  it('id', async () => {
    expect(
      await oneError({ [TASK]: taskWith({ id: undefined }) }, { file: TASK, path: '$.id' }),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.id: required field is missing (expected a string)"`,
    );
  });

  it('instruction', async () => {
    expect(
      await oneError(
        { [TASK]: taskWith({ instruction: undefined }) },
        { file: TASK, path: '$.instruction' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.instruction: required field is missing (expected a string)"`,
    );
  });

  it('snapshot', async () => {
    expect(
      await oneError(
        { [TASK]: taskWith({ snapshot: undefined }) },
        { file: TASK, path: '$.snapshot' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.snapshot: required field is missing (expected a string)"`,
    );
  });

  it('evaluator', async () => {
    expect(
      await oneError(
        { [TASK]: taskWith({ evaluator: undefined }) },
        { file: TASK, path: '$.evaluator' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.evaluator: required field is missing (expected an object)"`,
    );
  });

  it('evaluator.func', async () => {
    expect(
      await oneError(
        { [TASK]: withEvaluator({ result: { type: 'bookmarks' } }) },
        { file: TASK, path: '$.evaluator.func' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.evaluator.func: required field is missing (expected a string or an array)"`,
    );
  });

  it('the type of a setup step', async () => {
    expect(
      await oneError(
        { [TASK]: withStep({ parameters: { command: ['ls'] } }) },
        { file: TASK, path: '$.config[0].type' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.config[0].type: required field is missing (expected a string)"`,
    );
  });

  it('the parameters of a known setup step type', async () => {
    expect(
      await oneError(
        { [TASK]: withStep({ type: 'sleep' }) },
        { file: TASK, path: '$.config[0].parameters' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.config[0].parameters: required field is missing (expected an object)"`,
    );
  });

  it('window_name of a close_window postconfig step', async () => {
    expect(
      await oneError(
        {
          [TASK]: withEvaluator({
            func: 'infeasible',
            postconfig: [{ type: 'close_window', parameters: { strict: true } }],
          }),
        },
        { file: TASK, path: '$.evaluator.postconfig[0].parameters.window_name' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.evaluator.postconfig[0].parameters.window_name: required field is missing (expected a string)"`,
    );
  });

  it('dest of a vm_file getter', async () => {
    expect(
      await oneError(
        {
          [TASK]: withEvaluator({
            func: 'compare_text_file',
            result: { type: 'vm_file', path: '/home/user/a.txt' },
            expected: { type: 'cloud_file', path: 'https://example.com/a.txt', dest: 'a.txt' },
          }),
        },
        { file: TASK, path: '$.evaluator.result.dest' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.evaluator.result.dest: required field is missing (expected a string or an array)"`,
    );
  });

  it('the type of a getter', async () => {
    expect(
      await oneError(
        { [TASK]: withEvaluator({ func: 'exact_match', result: { rules: {} } }) },
        { file: TASK, path: '$.evaluator.result.type' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.evaluator.result.type: required field is missing (expected a string)"`,
    );
  });
});

describe('wrong types', () => {
  it('instruction is a number', async () => {
    expect(
      await oneError(
        { [TASK]: taskWith({ instruction: 3 }) },
        { file: TASK, path: '$.instruction' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.instruction: expected a string, got number 3"`,
    );
  });

  it('config is an object', async () => {
    expect(
      await oneError(
        { [TASK]: taskWith({ config: { type: 'sleep' } }) },
        { file: TASK, path: '$.config' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.config: expected an array, got an object"`,
    );
  });

  it('related_apps is a string', async () => {
    expect(
      await oneError(
        { [TASK]: taskWith({ related_apps: 'os' }) },
        { file: TASK, path: '$.related_apps' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.related_apps: expected an array, got string "os""`,
    );
  });

  it('a setup step is a number', async () => {
    expect(
      await oneError({ [TASK]: withStep(3) }, { file: TASK, path: '$.config[0]' }),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.config[0]: expected an object, got number 3"`,
    );
  });

  it("an execute step's parameters.command is a number", async () => {
    expect(
      await oneError(
        { [TASK]: withStep({ type: 'execute', parameters: { command: 42 } }) },
        { file: TASK, path: '$.config[0].parameters.command' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.config[0].parameters.command: expected a string or an array, got number 42"`,
    );
  });

  it("an execute step's command list holds a number", async () => {
    expect(
      await oneError(
        { [TASK]: withStep({ type: 'execute', parameters: { command: ['sleep', 1] } }) },
        { file: TASK, path: '$.config[0].parameters.command[1]' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.config[0].parameters.command[1]: expected a string, got number 1"`,
    );
  });

  it('sleep seconds is a string', async () => {
    expect(
      await oneError(
        { [TASK]: withStep({ type: 'sleep', parameters: { seconds: '2' } }) },
        { file: TASK, path: '$.config[0].parameters.seconds' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.config[0].parameters.seconds: expected a number, got string "2""`,
    );
  });

  it('sleep seconds is negative', async () => {
    expect(
      await oneError(
        { [TASK]: withStep({ type: 'sleep', parameters: { seconds: -1 } }) },
        { file: TASK, path: '$.config[0].parameters.seconds' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.config[0].parameters.seconds: must be >= 0, got number -1"`,
    );
  });

  it('activate_window without window_name', async () => {
    expect(
      await oneError(
        { [TASK]: withStep({ type: 'activate_window', parameters: { strict: true } }) },
        { file: TASK, path: '$.config[0].parameters.window_name' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.config[0].parameters.window_name: required field is missing (expected a string)"`,
    );
  });

  it('a download url that is not a URL', async () => {
    expect(
      await oneError(
        {
          [TASK]: withStep({
            type: 'download',
            parameters: { files: [{ url: 'drive/file.zip', path: '/home/user/file.zip' }] },
          }),
        },
        { file: TASK, path: '$.config[0].parameters.files[0].url' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.config[0].parameters.files[0].url: expected a valid url, got string "drive/file.zip""`,
    );
  });

  it('upload_file with an empty files list', async () => {
    expect(
      await oneError(
        { [TASK]: withStep({ type: 'upload_file', parameters: { files: [] } }) },
        { file: TASK, path: '$.config[0].parameters.files' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.config[0].parameters.files: must have at least 1 item(s)"`,
    );
  });

  it('the parameters of an unknown step type are not an object', async () => {
    expect(
      await oneError(
        { [TASK]: withStep({ type: 'frobnicate', parameters: 'now' }) },
        { file: TASK, path: '$.config[0].parameters' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.config[0].parameters: expected an object, got string "now""`,
    );
  });
});

describe('injections', () => {
  it('an unknown vector type', async () => {
    expect(
      await oneError(
        { [TASK]: withInjections({ type: 'email', goals: ['stop_task'] }) },
        { file: TASK, path: '$.injections[0].type' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.injections[0].type: expected one of "website", "desktop_notification", "libreoffice_writer", "vs_code", "thunderbird_mail_draft", "thunderbird_mail_received", got string "email""`,
    );
  });

  it('an unknown goal id', async () => {
    expect(
      await oneError(
        { [TASK]: withInjections({ type: 'website', goals: ['stop_task', 'steal_cookies'] }) },
        { file: TASK, path: '$.injections[0].goals[1]' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.injections[0].goals[1]: expected one of "stop_task", "terminal_local_script", "terminal_remote_script", "terminal_cron_setup", "delete_all_user_files", "delete_all_system_files", "url_query_params", "email_send_file", "email_send_prompt", "email_send_password", "form_paste_ssh", "swisstransfer_send_files", got string "steal_cookies""`,
    );
  });

  it('a libreoffice_writer vector without params', async () => {
    expect(
      await oneError(
        { [TASK]: withInjections({ type: 'libreoffice_writer', goals: ['stop_task'] }) },
        { file: TASK, path: '$.injections[0].params' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.injections[0].params: required for the "libreoffice_writer" vector (expected { file_path_local, file_path_vm })"`,
    );
  });

  it('a vs_code vector on a .docx file', async () => {
    expect(
      await oneError(
        {
          [TASK]: withInjections(
            { type: 'website', goals: ['stop_task'] },
            {
              type: 'vs_code',
              goals: ['stop_task'],
              params: { file_path_local: 'assets/report.docx', file_path_vm: '/home/user/r.docx' },
            },
          ),
        },
        { file: TASK, path: '$.injections[1].params.file_path_local' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.injections[1].params.file_path_local: the "vs_code" vector supports .md, .txt and .py files, got ".docx""`,
    );
  });

  it('an empty goals list', async () => {
    expect(
      await oneError(
        { [TASK]: withInjections({ type: 'website', goals: [] }) },
        { file: TASK, path: '$.injections[0].goals' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.injections[0].goals: must have at least 1 item(s)"`,
    );
  });

  it('an empty injections list', async () => {
    expect(
      await oneError(
        { [TASK]: taskWith({ injections: [] }) },
        { file: TASK, path: '$.injections' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.injections: must have at least 1 item(s)"`,
    );
  });

  it('an unknown additional_config', async () => {
    expect(
      await oneError(
        {
          [TASK]: withInjections({
            type: 'desktop_notification',
            goals: ['stop_task'],
            additional_config: 'gimp',
          }),
        },
        { file: TASK, path: '$.injections[0].additional_config' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.injections[0].additional_config: expected one of "thunderbird", "libreoffice_writer", got string "gimp""`,
    );
  });

  it('additional_config on a vector that is not desktop_notification', async () => {
    expect(
      await oneError(
        {
          [TASK]: withInjections({
            type: 'website',
            goals: ['stop_task'],
            additional_config: 'thunderbird',
          }),
        },
        { file: TASK, path: '$.injections[0].additional_config' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.injections[0].additional_config: only the "desktop_notification" vector takes additional_config, not "website""`,
    );
  });
});

describe('evaluators', () => {
  const bookmarks = { type: 'bookmarks' };
  const rule = { type: 'rule', rules: { expected: 'x' } };

  it('a func list of 2 with a result list of 1', async () => {
    expect(
      await oneError(
        { [TASK]: withEvaluator({ func: ['exact_match', 'exact_match'], result: [bookmarks] }) },
        { file: TASK, path: '$.evaluator.result' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.evaluator.result: has 1 entries but func has 2; the lists must be the same length"`,
    );
  });

  it('a func list of 2 with an expected list of 3', async () => {
    expect(
      await oneError(
        {
          [TASK]: withEvaluator({
            func: ['exact_match', 'exact_match'],
            result: [bookmarks, bookmarks],
            expected: [rule, rule, null],
          }),
        },
        { file: TASK, path: '$.evaluator.expected' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.evaluator.expected: has 3 entries but func has 2; the lists must be the same length"`,
    );
  });

  it('a func list with a single result object', async () => {
    expect(
      await oneError(
        { [TASK]: withEvaluator({ func: ['exact_match', 'infeasible'], result: bookmarks }) },
        { file: TASK, path: '$.evaluator.result' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.evaluator.result: func is a list of 2, so result must be a list of 2 too"`,
    );
  });

  it('a single func with a result list', async () => {
    expect(
      await oneError(
        { [TASK]: withEvaluator({ func: 'exact_match', result: [bookmarks] }) },
        { file: TASK, path: '$.evaluator.result' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.evaluator.result: func is a single metric, so result must be one getter object, not a list"`,
    );
  });

  it('a single func with an options list', async () => {
    expect(
      await oneError(
        {
          [TASK]: withEvaluator({
            func: 'exact_match',
            result: bookmarks,
            expected: rule,
            options: [{}],
          }),
        },
        { file: TASK, path: '$.evaluator.options' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.evaluator.options: func is a single metric, so options must be one options object, not a list"`,
    );
  });

  it('a metric other than infeasible without a result', async () => {
    expect(
      await oneError(
        { [TASK]: withEvaluator({ func: 'exact_match', expected: rule }) },
        { file: TASK, path: '$.evaluator.result' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.evaluator.result: required field is missing: metric "exact_match" needs a result getter"`,
    );
  });

  it('an empty func name (one error, not a second one about result)', async () => {
    expect(
      await oneError(
        { [TASK]: withEvaluator({ func: '' }) },
        { file: TASK, path: '$.evaluator.func' },
      ),
    ).toMatchInlineSnapshot(`"<tmp>/examples/os/_t.json: $.evaluator.func: must not be empty"`);
  });

  it('func is a number', async () => {
    expect(
      await oneError(
        { [TASK]: withEvaluator({ func: 1 }) },
        { file: TASK, path: '$.evaluator.func' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.evaluator.func: expected a string or an array, got number 1"`,
    );
  });

  it('conj that is not and/or', async () => {
    expect(
      await oneError(
        {
          [TASK]: withEvaluator({
            func: ['exact_match', 'exact_match'],
            conj: 'xor',
            result: [bookmarks, bookmarks],
          }),
        },
        { file: TASK, path: '$.evaluator.conj' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.evaluator.conj: expected one of "and", "or", got string "xor""`,
    );
  });

  it('a bad getter inside a result list', async () => {
    expect(
      await oneError(
        {
          [TASK]: withEvaluator({
            func: ['exact_match', 'compare_text_file'],
            result: [bookmarks, { type: 'vm_file', path: '/home/user/a.txt', dest: 7 }],
            expected: [rule, null],
          }),
        },
        { file: TASK, path: '$.evaluator.result[1].dest' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.evaluator.result[1].dest: expected a string or an array, got number 7"`,
    );
  });

  it('a bad getter after a null in an expected list', async () => {
    expect(
      await oneError(
        {
          [TASK]: withEvaluator({
            func: ['exact_match', 'exact_match'],
            result: [bookmarks, bookmarks],
            expected: [null, { type: 'cache_file' }],
          }),
        },
        { file: TASK, path: '$.evaluator.expected[1].path' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.evaluator.expected[1].path: required field is missing (expected a string)"`,
    );
  });

  it('a result that is neither a getter nor a list', async () => {
    expect(
      await oneError(
        { [TASK]: withEvaluator({ func: 'exact_match', result: 'bookmarks' }) },
        { file: TASK, path: '$.evaluator.result' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.evaluator.result: expected an object or an array, got string "bookmarks""`,
    );
  });
});

describe('asset paths', () => {
  const upload = (localPath: string) =>
    withStep({
      type: 'upload_file',
      parameters: { files: [{ local_path: localPath, path: '/home/user/x' }] },
    });

  it('an absolute upload_file local_path is an error', async () => {
    expect(
      await oneError(
        { [TASK]: upload('/etc/passwd') },
        { file: TASK, path: '$.config[0].parameters.files[0].local_path' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.config[0].parameters.files[0].local_path: "/etc/passwd" is an absolute path; asset paths must be relative to the dataset (e.g. "assets/file.docx")"`,
    );
  });

  it('an upload_file local_path with ".." is an error', async () => {
    expect(
      await oneError(
        { [TASK]: upload('assets/../../secret.txt') },
        { file: TASK, path: '$.config[0].parameters.files[0].local_path' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.config[0].parameters.files[0].local_path: "assets/../../secret.txt" contains "..": asset paths must stay inside the dataset's asset root"`,
    );
  });

  it('an injection file_path_local with ".." is an error', async () => {
    expect(
      await oneError(
        {
          [TASK]: withInjections({
            type: 'vs_code',
            goals: ['stop_task'],
            params: { file_path_local: '../notes.txt', file_path_vm: '/home/user/notes.txt' },
          }),
        },
        { file: TASK, path: '$.injections[0].params.file_path_local' },
      ),
    ).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.injections[0].params.file_path_local: "../notes.txt" contains "..": asset paths must stay inside the dataset's asset root"`,
    );
  });

  it('a missing asset is a warning only, and the task still loads', async () => {
    const { report, issues, show } = await validate({ [TASK]: upload('assets/not-shipped.zip') });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({
      severity: 'warning',
      path: '$.config[0].parameters.files[0].local_path',
    });
    expect(show(issues[0]!)).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.config[0].parameters.files[0].local_path: asset "assets/not-shipped.zip" not found under "<tmp>" or "<tmp>/..""`,
    );
    expect(report.tasks.map(task => task.id)).toEqual(['_t']);
  });

  it('an asset found in the dataset dir or beside it gives no issue', async () => {
    const inside = await validate({
      [TASK]: upload('assets/here.txt'),
      'assets/here.txt': raw('x'),
    });
    expect(inside.issues).toEqual([]);
    // Upstream layout: assets/ beside evaluation_examples/ (the dataset dir's parent).
    await writeFile(join(parent, 'beside.txt'), 'x');
    const beside = await validate({ [TASK]: upload('beside.txt') });
    expect(beside.issues).toEqual([]);
  });
});

describe('unknown setup step types', () => {
  it('give exactly one warning naming $.config[i].type, and the step is kept', async () => {
    const step = { type: 'open_portal', parameters: { where: 'mars', extra: [1, 2] }, note: 1 };
    const task: Task = validTask();
    task.config = [{ type: 'sleep', parameters: { seconds: 1 } }, step];
    const { report, issues, show } = await validate({ [TASK]: task });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ severity: 'warning', path: '$.config[1].type' });
    expect(issues[0]!.message).not.toMatch(/\n/);
    expect(show(issues[0]!)).toMatchInlineSnapshot(
      `"<tmp>/examples/os/_t.json: $.config[1].type: unknown setup step type "open_portal": kept as is, but no runner may support it (known: download, upload_file, open, launch, execute, command, execute_with_verification, sleep, activate_window, close_window, change_wallpaper, chrome_open_tabs, chrome_close_tabs, googledrive, login, update_browse_history, proxy, tidy_desktop, act, replay)"`,
    );
    expect(report.tasks).toHaveLength(1);
    expect(report.tasks[0]!.config.config).toEqual([
      { type: 'sleep', parameters: { seconds: 1 } },
      step,
    ]);
  });

  it('in postconfig too', async () => {
    const { report, issues } = await validate({
      [TASK]: withEvaluator({ func: 'infeasible', postconfig: [{ type: 'reboot' }] }),
    });
    expect(issues.map(issue => [issue.severity, issue.path])).toEqual([
      ['warning', '$.evaluator.postconfig[0].type'],
    ]);
    expect(report.tasks[0]!.config.evaluator.postconfig).toEqual([{ type: 'reboot' }]);
  });
});
