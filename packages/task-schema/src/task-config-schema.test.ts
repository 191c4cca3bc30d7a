import { describe, expect, it } from 'vitest';
import { evaluatorSchema, getterConfigSchema, KNOWN_GETTER_TYPES } from './evaluator-schema';
import {
  isKnownSetupStep,
  isKnownSetupStepType,
  knownSetupStepSchema,
  SETUP_STEP_TYPES,
  setupStepSchema,
  type SetupStep,
  type SetupStepType,
} from './setup-step-schema';
import { parseTaskConfig, taskConfigSchema } from './task-config-schema';
import { formatIssue } from './validation-issue';

/** Every key path of a JSON value, in document order: `a`, `a.b`, `a.c[0].d`, … */
function keyPaths(value: unknown, prefix = '$'): string[] {
  if (Array.isArray(value))
    return value.flatMap((item, index) => keyPaths(item, `${prefix}[${index}]`));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => [
      `${prefix}.${key}`,
      ...keyPaths(item, `${prefix}.${key}`),
    ]);
  return [];
}

/** A task with unknown fields at every level, some of them before known ones. */
const TASK_WITH_EXTRAS = `{
  "x_top_first": {"kept": [1, {"deep": true}]},
  "id": "__extras",
  "snapshot": "vs_code",
  "instruction": "Indent lines 2 to 10.",
  "source": "",
  "x_top_middle": null,
  "config": [
    {
      "x_step_first": "before type",
      "type": "download",
      "parameters": {
        "files": [{"url": "https://example.com/a.py", "path": "/home/user/a.py", "x_file": 1}],
        "x_parameters": {"timeout": 30}
      },
      "x_step_last": ["after"]
    },
    {"type": "sleep", "parameters": {"x_before": 1, "seconds": 0.5}},
    {"type": "future_step", "parameters": {"anything": [1, 2]}, "x_unknown_step": {}}
  ],
  "trajectory": "trajectories/",
  "related_apps": ["vs_code"],
  "injections": [
    {
      "type": "vs_code",
      "x_vector": "kept",
      "goals": ["form_paste_ssh"],
      "params": {"file_path_local": "assets/test.py", "x_params": 2, "file_path_vm": "/home/user/test.py"}
    }
  ],
  "evaluator": {
    "x_evaluator_first": 0,
    "postconfig": [{"type": "activate_window", "parameters": {"window_name": "Code", "x_window": 1}, "x_post": 2}],
    "func": "compare_text_file",
    "expected": {"type": "cloud_file", "path": "https://example.com/gold.py", "dest": "gold.py", "x_getter": "e"},
    "result": {"x_getter_first": "r", "type": "vm_file", "path": "/home/user/test.py", "dest": "test.py"},
    "options": {"ignore_blanks": true},
    "x_evaluator_last": [{}]
  },
  "x_top_last": "end"
}`;

describe('parseTaskConfig keeps unknown fields', () => {
  const input: unknown = JSON.parse(TASK_WITH_EXTRAS);
  const parsed = parseTaskConfig(input, { file: 'examples/vs_code/__extras.json' });

  it('returns the input itself, valid, with only the unknown-step warning', () => {
    expect(parsed.config).toBe(input);
    expect(parsed.issues.map(formatIssue)).toEqual([
      expect.stringMatching(
        /^examples\/vs_code\/__extras\.json: \$\.config\[2\]\.type: unknown setup step type "future_step"/,
      ),
    ]);
  });

  it('survives parse → JSON.stringify → JSON.parse deep-equal and with the same key order', () => {
    const again: unknown = JSON.parse(JSON.stringify(parsed.config));
    expect(again).toEqual(JSON.parse(TASK_WITH_EXTRAS));
    expect(keyPaths(again)).toEqual(keyPaths(JSON.parse(TASK_WITH_EXTRAS)));
    expect(JSON.stringify(parsed.config)).toBe(JSON.stringify(JSON.parse(TASK_WITH_EXTRAS)));
    // Every level really had an unknown field.
    expect(keyPaths(again).filter(path => /\.x_[a-z_]+$/.test(path))).toMatchInlineSnapshot(`
      [
        "$.x_top_first",
        "$.x_top_middle",
        "$.config[0].x_step_first",
        "$.config[0].parameters.files[0].x_file",
        "$.config[0].parameters.x_parameters",
        "$.config[0].x_step_last",
        "$.config[1].parameters.x_before",
        "$.config[2].x_unknown_step",
        "$.injections[0].x_vector",
        "$.injections[0].params.x_params",
        "$.evaluator.x_evaluator_first",
        "$.evaluator.postconfig[0].parameters.x_window",
        "$.evaluator.postconfig[0].x_post",
        "$.evaluator.expected.x_getter",
        "$.evaluator.result.x_getter_first",
        "$.evaluator.x_evaluator_last",
        "$.x_top_last",
      ]
    `);
  });

  it('taskConfigSchema itself does not strip unknown fields either', () => {
    const output = taskConfigSchema.parse(JSON.parse(TASK_WITH_EXTRAS));
    expect(output).toEqual(JSON.parse(TASK_WITH_EXTRAS));
  });

  it('never throws, whatever the value', () => {
    for (const value of [undefined, null, 0, 'task', [], {}, { id: 1 }, new Date(0)]) {
      const result = parseTaskConfig(value, { file: 'f.json' });
      expect(result.config).toBeUndefined();
      expect(result.issues.length).toBeGreaterThan(0);
      expect(
        result.issues.every(issue => issue.severity === 'error' && issue.file === 'f.json'),
      ).toBe(true);
    }
  });

  it('warns about an empty or blank instruction but keeps the task', () => {
    const task = {
      id: '_x',
      snapshot: 'os',
      instruction: '  ',
      evaluator: { func: 'infeasible' },
    };
    const result = parseTaskConfig(task, { file: 'x.json' });
    expect(result.config).toBe(task);
    expect(result.issues.map(formatIssue)).toMatchInlineSnapshot(`
      [
        "x.json: $.instruction: instruction is empty: the agent will get no task text",
      ]
    `);
  });
});

/** A realistic example of every known setup step type (parameters as OSWorld tasks write them). */
const STEP_EXAMPLES: Record<SetupStepType, SetupStep[]> = {
  download: [
    {
      type: 'download',
      parameters: {
        files: [
          {
            url: 'https://drive.usercontent.google.com/download?id=1abc&export=download&authuser=0',
            path: '/home/user/Desktop/report.docx',
          },
        ],
      },
    },
  ],
  upload_file: [
    {
      type: 'upload_file',
      parameters: {
        files: [{ local_path: 'assets/message_1.eml', path: '/home/user/message_1.eml' }],
      },
    },
  ],
  open: [{ type: 'open', parameters: { path: '/home/user/Desktop/report.docx' } }],
  launch: [
    { type: 'launch', parameters: { command: ['google-chrome', '--remote-debugging-port=1337'] } },
    {
      type: 'launch',
      parameters: { command: 'socat tcp-listen:9222,fork tcp:localhost:1337', shell: true },
    },
  ],
  execute: [
    {
      type: 'execute',
      parameters: {
        command: ['python', '-c', "import pyautogui; pyautogui.hotkey('ctrl', 's');"],
      },
    },
    {
      type: 'execute',
      parameters: {
        command: 'test -f /home/user/done',
        shell: true,
        stdout: 'out.txt',
        stderr: 'err.txt',
        until: { returncode: 0 },
      },
    },
  ],
  command: [{ type: 'command', parameters: { command: ['rm', '-rf', '/home/user/tmp'] } }],
  execute_with_verification: [
    {
      type: 'execute_with_verification',
      parameters: {
        command: ['code', '/home/user/project'],
        verification: { window_exists: 'Visual Studio Code' },
        max_wait_time: 30,
        check_interval: 1,
      },
    },
  ],
  sleep: [
    { type: 'sleep', parameters: { seconds: 0.5 } },
    { type: 'sleep', parameters: { seconds: 0 } },
  ],
  activate_window: [
    { type: 'activate_window', parameters: { window_name: 'Visual Studio Code' } },
    {
      type: 'activate_window',
      parameters: { window_name: 'gnome-terminal-server', strict: true, by_class: true },
    },
  ],
  close_window: [
    {
      type: 'close_window',
      parameters: { window_name: 'Mail.thunderbird', strict: true, by_class: true },
    },
  ],
  change_wallpaper: [
    { type: 'change_wallpaper', parameters: { path: '/home/user/Pictures/wallpaper.png' } },
  ],
  chrome_open_tabs: [
    {
      type: 'chrome_open_tabs',
      parameters: { urls_to_open: ['https://www.google.com', 'https://agent-help.github.io'] },
    },
  ],
  chrome_close_tabs: [
    { type: 'chrome_close_tabs', parameters: { urls_to_close: ['https://www.google.com'] } },
  ],
  googledrive: [
    {
      type: 'googledrive',
      parameters: {
        settings_file: 'evaluation_examples/settings/googledrive/settings.yml',
        operation: ['delete', 'mkdirs'],
        args: [{ query: "title = 'report.docx'", trash: false }, { path: ['folder'] }],
      },
    },
  ],
  login: [
    {
      type: 'login',
      parameters: {
        settings_file: 'evaluation_examples/settings/google/settings.json',
        platform: 'googledrive',
      },
    },
  ],
  update_browse_history: [
    {
      type: 'update_browse_history',
      parameters: {
        history: [
          { url: 'https://www.amazon.com', title: 'Amazon', visit_time_from_now_in_seconds: 3600 },
        ],
      },
    },
  ],
  proxy: [
    { type: 'proxy', parameters: { client_password: 'password' } },
    { type: 'proxy', parameters: {} },
  ],
  tidy_desktop: [{ type: 'tidy_desktop', parameters: {} }, { type: 'tidy_desktop' }],
  act: [{ type: 'act', parameters: { action: 'CLICK' } }],
  replay: [{ type: 'replay', parameters: { path: 'trajectories/x' } }],
};

describe('setup steps', () => {
  it('STEP_EXAMPLES covers exactly SETUP_STEP_TYPES', () => {
    expect(Object.keys(STEP_EXAMPLES).sort()).toEqual([...SETUP_STEP_TYPES].sort());
  });

  it.each(SETUP_STEP_TYPES)('accepts a realistic %s step', type => {
    for (const step of STEP_EXAMPLES[type]) {
      expect(step.type).toBe(type);
      const known = knownSetupStepSchema.safeParse(step);
      expect(known.success, JSON.stringify(known.error?.issues)).toBe(true);
      expect(setupStepSchema.safeParse(step).success).toBe(true);
      expect(isKnownSetupStepType(step.type)).toBe(true);
      expect(isKnownSetupStep(step)).toBe(true);
      // The step inside a whole task parses without any issue.
      const task = {
        id: '_s',
        snapshot: 'os',
        instruction: 'x',
        config: [step],
        evaluator: { func: 'infeasible' },
      };
      expect(parseTaskConfig(task, { file: 's.json' }).issues).toEqual([]);
    }
  });

  it('rejects a known type with bad parameters in both the known and the combined schema', () => {
    const step = { type: 'sleep', parameters: { seconds: 'soon' } };
    expect(knownSetupStepSchema.safeParse(step).success).toBe(false);
    expect(setupStepSchema.safeParse(step).success).toBe(false);
  });

  it('accepts an unknown type (kept as is) and says it is not known', () => {
    const step = { type: 'reboot_vm', parameters: { hard: true }, note: 'x' };
    expect(setupStepSchema.parse(step)).toEqual(step);
    expect(knownSetupStepSchema.safeParse(step).success).toBe(false);
    expect(isKnownSetupStepType('reboot_vm')).toBe(false);
    expect(isKnownSetupStep(step)).toBe(false);
  });
});

describe('evaluator shapes of upstream tasks', () => {
  const shapes: Record<string, unknown> = {
    infeasible: { func: 'infeasible' },
    'compare_text_file (vm_file / cloud_file, postconfig)': {
      postconfig: [
        { type: 'activate_window', parameters: { window_name: 'Visual Studio Code' } },
        { type: 'sleep', parameters: { seconds: 0.5 } },
        {
          type: 'execute',
          parameters: {
            command: ['python', '-c', "import pyautogui; pyautogui.hotkey('ctrl', 's');"],
          },
        },
        { type: 'sleep', parameters: { seconds: 0.5 } },
      ],
      func: 'compare_text_file',
      expected: {
        type: 'cloud_file',
        path: 'https://drive.usercontent.google.com/download?id=141L&export=download',
        dest: 'vscode_replace_text_gold.txt',
      },
      result: {
        type: 'vm_file',
        path: '/home/user/Desktop/vscode_replace_text.txt',
        dest: 'vscode_replace_text.txt',
      },
    },
    'is_expected_bookmarks (bookmarks / rule)': {
      func: 'is_expected_bookmarks',
      result: { type: 'bookmarks' },
      expected: {
        type: 'rule',
        rules: { type: 'bookmark_bar_folders_names', names: ['Favorites'] },
      },
    },
    'exact_match (unknown getter profile_name, postconfig launch)': {
      postconfig: [
        { type: 'launch', parameters: { command: ['pkill', 'chrome'] } },
        {
          type: 'launch',
          parameters: { command: ['google-chrome', '--remote-debugging-port=1337'] },
        },
      ],
      func: 'exact_match',
      result: { type: 'profile_name' },
      expected: { type: 'rule', rules: { expected: 'Thomas' } },
    },
    compare_docx_files: {
      func: 'compare_docx_files',
      result: { type: 'vm_file', path: '/home/user/Desktop/concat.docx', dest: 'concat.docx' },
      expected: {
        type: 'cloud_file',
        path: 'https://drive.google.com/uc?export=download&id=1nNo',
        dest: 'concat_gold.docx',
      },
      options: { ignore_blanks: false },
    },
    'check_thunderbird_prefs (postconfig close_window)': {
      postconfig: [
        {
          type: 'close_window',
          parameters: { window_name: 'Mail.thunderbird', strict: true, by_class: true },
        },
        { type: 'sleep', parameters: { seconds: 0.5 } },
      ],
      func: 'check_thunderbird_prefs',
      result: {
        type: 'vm_file',
        path: '/home/user/.thunderbird/t5q2a5hp.default-release/prefs.js',
        dest: 'thunderbird-prefs.js',
      },
      expected: {
        type: 'rule',
        rules: { expect: { 'mail.spellcheck.inline': { method: 'eq', ref: false } } },
      },
    },
    'func list with conj "or" (null expected entry, options list)': {
      func: ['compare_pdfs', 'check_list'],
      conj: 'or',
      result: [
        { type: 'vm_file', path: '/home/user/a.pdf', dest: 'a.pdf' },
        { type: 'vm_command_line', command: 'ls /home/user', shell: true },
      ],
      expected: [
        { type: 'cloud_file', path: 'https://example.com/a.pdf', dest: 'a_gold.pdf' },
        null,
      ],
      options: [{}, { ignore_case: true }],
    },
    'func list with conj "and" and multi vm_file': {
      func: ['infeasible', 'compare_table'],
      conj: 'and',
      result: [
        { type: 'accessibility_tree' },
        {
          type: 'vm_file',
          multi: true,
          path: ['/home/user/a.xlsx', '/home/user/b.xlsx'],
          dest: ['a.xlsx', 'b.xlsx'],
          gives: [0, 1],
        },
      ],
      expected: [null, { type: 'rule', rules: {} }],
    },
    'other known getters': {
      func: 'check_include_exclude',
      result: { type: 'list_directory', path: '/home/user/Desktop' },
      expected: { type: 'cache_file', path: 'gold.txt' },
    },
  };

  it.each(Object.entries(shapes))('accepts %s', (_name, evaluator) => {
    const parsed = evaluatorSchema.safeParse(evaluator);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(parsed.data).toEqual(evaluator);
    const task = { id: '_e', snapshot: 'os', instruction: 'x', evaluator };
    expect(parseTaskConfig(task, { file: 'e.json' }).issues).toEqual([]);
  });

  it('the real upstream getter fields parse for every known getter type', () => {
    const examples: Record<(typeof KNOWN_GETTER_TYPES)[number], unknown> = {
      vm_file: { type: 'vm_file', path: '/a', dest: 'a', time_suffix: true, time_format: '%Y' },
      cloud_file: { type: 'cloud_file', path: 'https://example.com/a', dest: 'a' },
      cache_file: { type: 'cache_file', path: 'a' },
      rule: { type: 'rule', rules: { expected: ['x'] } },
      vm_command_line: { type: 'vm_command_line', command: ['ls'] },
      vm_command_error: { type: 'vm_command_error', command: 'ls /nope', shell: true },
      vm_terminal_output: { type: 'vm_terminal_output' },
      accessibility_tree: { type: 'accessibility_tree' },
      list_directory: { type: 'list_directory', path: '/home/user' },
      bookmarks: { type: 'bookmarks' },
    };
    expect(Object.keys(examples)).toEqual([...KNOWN_GETTER_TYPES]);
    for (const example of Object.values(examples))
      expect(getterConfigSchema.safeParse(example).success, JSON.stringify(example)).toBe(true);
    // A known getter with a bad field is not waved through by the catch-all branch.
    expect(getterConfigSchema.safeParse({ type: 'cache_file', path: 3 }).success).toBe(false);
    expect(getterConfigSchema.safeParse({ type: 'open_tabs_info', anything: 3 }).success).toBe(
      true,
    );
  });
});
