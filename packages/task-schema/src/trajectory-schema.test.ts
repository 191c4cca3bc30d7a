import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  batchResultsFileName,
  batchResultsSchema,
  judgmentRelativePath,
  judgmentSchema,
  judgmentTypeDir,
} from './judgment-schema';
import { JUDGE_TYPES, OBSERVATION_TYPES } from './run-options';
import { TaskValidationError } from './task-validation-error';
import {
  betterLogSchema,
  formatResultTxt,
  isTrajErrorLine,
  parseResultTxt,
  parseTrajJsonl,
  trajLineSchema,
  type TrajStepLine,
} from './trajectory-schema';
import { formatIssue } from './validation-issue';

/** Real upstream run logs, read in place from `../shared` (never copied into the repository). */
const REAL = fileURLToPath(new URL('../../../../shared/real-trajectories/', import.meta.url));
const read = (example: string, file: string) => readFileSync(`${REAL}${example}/${file}`, 'utf8');

/** From the table of real-trajectories/README.md. */
const EXAMPLES = [
  {
    name: 'chrome_email_send_prompt',
    vector: 'desktop_notification',
    goal: 'email_send_prompt',
    logSteps: 14,
    trajLines: 13,
    skipped: [9],
    last: 'DONE',
  },
  {
    name: 'stop_task_notification',
    vector: 'desktop_notification',
    goal: 'stop_task',
    logSteps: 2,
    trajLines: 2,
    skipped: [],
    last: 'FAIL',
  },
  {
    name: 'swisstransfer_website',
    vector: 'website',
    goal: 'swisstransfer_send_files',
    logSteps: 5,
    trajLines: 5,
    skipped: [],
    last: 'DONE',
  },
  {
    name: 'thunderbird_swisstransfer',
    vector: 'desktop_notification',
    goal: 'swisstransfer_send_files',
    logSteps: 15,
    trajLines: 14,
    skipped: [4],
    last: 'pyautogui',
  },
] as const;

describe.each(EXAMPLES)('real trajectory $name', example => {
  const log = betterLogSchema.safeParse(JSON.parse(read(example.name, 'better_log.json')));
  const traj = parseTrajJsonl(read(example.name, 'traj.jsonl'), { file: 'traj.jsonl' });

  it('better_log.json matches betterLogSchema', () => {
    expect(log.success, JSON.stringify(log.error?.issues)).toBe(true);
    const data = log.data!;
    expect(Object.keys(data)).toEqual(['params', 'task', 'steps']);
    expect(Object.keys(data.task)).toEqual(['jailbreak', 'injection', 'instruction']);
    expect(data.params).toMatchObject({
      model: 'o4-mini',
      action_space: 'pyautogui',
      observation_type: 'screenshot_a11y_tree',
      max_steps: 15,
    });
    expect(data.task.jailbreak).toBe(false);
    expect(data.task.injection).toMatchObject({ type: example.vector, goal_id: example.goal });
    expect(data.task.injection!.goals).toContain(example.goal);
    expect(typeof data.task.injection!.content).toBe('string');
    for (const step of data.steps)
      expect(Object.keys(step)).toEqual(['a11y_tree', 'screenshot_file', 'response', 'actions']);
    expect(data.steps[0]!.screenshot_file).toBe('step_0.png');
  });

  it(`has ${example.logSteps} log steps and ${example.trajLines} traj.jsonl lines`, () => {
    expect(log.data!.steps).toHaveLength(example.logSteps);
    expect(traj.issues).toEqual([]);
    expect(traj.lines).toHaveLength(example.trajLines);
  });

  it('skips the step_num of each step without actions', () => {
    const steps = traj.lines.map(line => (line as TrajStepLine).step_num);
    const all = Array.from({ length: example.logSteps }, (_, index) => index + 1);
    expect(all.filter(step => !steps.includes(step))).toEqual(example.skipped);
    for (const skipped of example.skipped)
      expect(log.data!.steps[skipped - 1]!.actions).toEqual([]);
    // One traj line per parsed action.
    expect(log.data!.steps.reduce((sum, step) => sum + step.actions.length, 0)).toBe(
      traj.lines.length,
    );
  });

  it('writes the traj.jsonl keys in upstream order and ends with the last action', () => {
    for (const line of traj.lines) {
      expect(isTrajErrorLine(line)).toBe(false);
      expect(Object.keys(line)).toEqual([
        'step_num',
        'action_timestamp',
        'action',
        'reward',
        'done',
        'info',
        'screenshot_file',
      ]);
      const step = line as TrajStepLine;
      expect(step.action_timestamp).toMatch(/^\d{8}@\d{6}$/);
      expect(step.screenshot_file).toBe(`step_${step.step_num}_${step.action_timestamp}.png`);
      expect(step.reward).toBe(0);
    }
    const last = traj.lines.at(-1) as TrajStepLine;
    if (example.last === 'pyautogui') {
      expect(last.action).toMatch(/pyautogui/);
      expect(last).toMatchObject({ done: false, info: {} });
    } else {
      expect(last.action).toBe(example.last);
      expect(last).toMatchObject({
        done: true,
        info: example.last === 'FAIL' ? { fail: true } : { done: true },
      });
    }
  });
});

describe('parseTrajJsonl', () => {
  const step = (stepNum: number) =>
    JSON.stringify({
      step_num: stepNum,
      action_timestamp: '20260320@234620',
      action: 'WAIT',
      reward: 0,
      done: false,
      info: {},
      screenshot_file: `step_${stepNum}_20260320@234620.png`,
    });

  it('keeps an {"Error": …} line', () => {
    const text = `${step(1)}\n{"Error": "Time limit exceeded in chrome/abc"}\n`;
    const { lines, issues } = parseTrajJsonl(text, { file: 'traj.jsonl' });
    expect(issues).toEqual([]);
    expect(lines).toHaveLength(2);
    expect(isTrajErrorLine(lines[0]!)).toBe(false);
    expect(isTrajErrorLine(lines[1]!)).toBe(true);
    expect(lines[1]).toEqual({ Error: 'Time limit exceeded in chrome/abc' });
  });

  it('reports a garbage line with its line number and keeps the others', () => {
    const text = `${step(1)}\n\n{"step_num": 2, garbage\n${step(3)}\r\n`;
    const { lines, issues } = parseTrajJsonl(text, { file: 'run/traj.jsonl' });
    expect(lines.map(line => (line as TrajStepLine).step_num)).toEqual([1, 3]);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ severity: 'error', line: 3, column: 17 });
    expect(issues[0]!.message).not.toMatch(/\n/);
    expect(formatIssue(issues[0]!)).toMatchInlineSnapshot(
      `"run/traj.jsonl: line 3, column 17: not valid JSON: expected a property name in double quotes, got 'garbage'"`,
    );
  });

  it('reports a JSON line that is neither a step nor an error line', () => {
    const text = `${step(1)}\n{"step_num": "two", "action": "WAIT"}\n[1, 2]\n{"Error": 3}\n`;
    const { lines, issues } = parseTrajJsonl(text, { file: 'traj.jsonl' });
    expect(lines).toHaveLength(1);
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.every(issue => issue.severity === 'error')).toBe(true);
    expect(issues.map(formatIssue)).toMatchInlineSnapshot(`
      [
        "traj.jsonl: $.step_num: line 2: expected a number, got string "two"",
        "traj.jsonl: $.action_timestamp: line 2: required field is missing (expected a string)",
        "traj.jsonl: $.reward: line 2: required field is missing (expected a number)",
        "traj.jsonl: $.done: line 2: required field is missing (expected a boolean)",
        "traj.jsonl: $.info: line 2: required field is missing (expected an object)",
        "traj.jsonl: $.screenshot_file: line 2: required field is missing (expected a string)",
        "traj.jsonl: $: line 3: expected an object, got an array",
        "traj.jsonl: $.Error: line 4: expected a string, got number 3",
      ]
    `);
  });

  it('handles empty text and a trailing line without newline', () => {
    expect(parseTrajJsonl('', { file: 'f' })).toEqual({ lines: [], issues: [] });
    expect(parseTrajJsonl(step(1), { file: 'f' }).lines).toHaveLength(1);
  });

  it('accepts a computer_13 action object', () => {
    const line = {
      step_num: 1,
      action_timestamp: '20260320@234620',
      action: { action_type: 'CLICK', x: 10, y: 20 },
      reward: 0,
      done: false,
      info: {},
      screenshot_file: 'step_1_20260320@234620.png',
    };
    expect(trajLineSchema.safeParse(line).success).toBe(true);
    expect(trajLineSchema.safeParse({ ...line, action: 3 }).success).toBe(false);
  });
});

describe('result.txt', () => {
  it.each([
    ['1\n', 1],
    ['0\n', 0],
    ['0.25', 0.25],
    ['1.0\n', 1],
    [' 0.5 \r\n', 0.5],
    ['1e-05\n', 0.00001],
    ['-0.5', -0.5],
  ])('parses %j as %d', (text, score) => {
    expect(parseResultTxt(text, { file: 'result.txt' })).toBe(score);
  });

  it.each(['abc', '', '\n', '1 2', 'Infinity', 'NaN', '0x10', '0b1', '1,5'])(
    'rejects %j with a TaskValidationError naming the file',
    text => {
      let caught: unknown;
      try {
        parseResultTxt(text, { file: 'runs/x/result.txt' });
      } catch (error) {
        caught = error;
      }
      expect(TaskValidationError.isInstance(caught)).toBe(true);
      const error = caught as TaskValidationError;
      expect(error.message).toMatch(/^runs\/x\/result\.txt: \$: expected one number/);
      expect(error.issues).toHaveLength(1);
      expect(error.issues[0]!.file).toBe('runs/x/result.txt');
    },
  );

  it('pins the message', () => {
    expect(() =>
      parseResultTxt('abc\n', { file: 'result.txt' }),
    ).toThrowErrorMatchingInlineSnapshot(
      `[OsharmTaskValidationError: result.txt: $: expected one number (the evaluator score), got "abc"]`,
    );
  });

  it('formats a score as upstream writes it', () => {
    expect(formatResultTxt(1)).toBe('1\n');
    expect(formatResultTxt(0.25)).toBe('0.25\n');
    expect(parseResultTxt(formatResultTxt(0.75), { file: 'f' })).toBe(0.75);
  });
});

describe('judgment.json', () => {
  const judgment = {
    reasoning: 'The agent stopped.',
    success: false,
    safety: true,
    violation_step: null,
  };

  it('accepts violation_step null or a 0-based step index, and keeps extra fields', () => {
    expect(judgmentSchema.parse(judgment)).toEqual(judgment);
    expect(
      judgmentSchema.safeParse({ ...judgment, safety: false, violation_step: 0 }).success,
    ).toBe(true);
    expect(judgmentSchema.parse({ ...judgment, note: 'x' })).toEqual({ ...judgment, note: 'x' });
  });

  it.each([
    ['a negative violation_step', { ...judgment, violation_step: -1 }],
    ['a fractional violation_step', { ...judgment, violation_step: 1.5 }],
    ['a string violation_step', { ...judgment, violation_step: '3' }],
    ['no violation_step', { reasoning: 'r', success: true, safety: true }],
    ['safety as a string', { ...judgment, safety: 'safe' }],
    ['no reasoning', { success: true, safety: true, violation_step: null }],
  ])('rejects %s', (_case, value) => {
    expect(judgmentSchema.safeParse(value).success).toBe(false);
  });

  it('judgmentTypeDir keeps the upstream a11_tree_default quirk only for (default, a11y_tree)', () => {
    expect(judgmentTypeDir('default', 'a11y_tree')).toBe('a11_tree_default');
    for (const judgeType of JUDGE_TYPES)
      for (const observationType of OBSERVATION_TYPES)
        if (!(judgeType === 'default' && observationType === 'a11y_tree'))
          expect(judgmentTypeDir(judgeType, observationType)).toBe(judgeType);
  });

  it('judgmentRelativePath', () => {
    expect(
      judgmentRelativePath({
        judgeModel: 'gpt-4.1',
        judgeType: 'aer',
        promptVersion: 'v3',
        observationType: 'screenshot_a11y_tree',
      }),
    ).toBe('judgment/gpt-4.1/aer/v3/judgment.json');
    expect(
      judgmentRelativePath({
        judgeModel: 'o4-mini',
        judgeType: 'default',
        promptVersion: 'v1',
        observationType: 'a11y_tree',
      }),
    ).toBe('judgment/o4-mini/a11_tree_default/v1/judgment.json');
  });

  it('batchResultsFileName', () => {
    expect(
      batchResultsFileName({ judgeModel: 'gpt-4.1', judgeType: 'aer', promptVersion: 'v3' }),
    ).toBe('batch_judgment_results_gpt-4.1_aer_v3.json');
  });

  it('batchResultsSchema accepts the upstream shape (§6) and osharm additions', () => {
    const batch = {
      config: {
        root_dir: 'results/pyautogui/screenshot_a11y_tree/o4-mini',
        observation_type: 'screenshot_a11y_tree',
        sys_prompt_version: 'v3',
        judge_model: 'gpt-4.1',
        judge_type: 'aer',
      },
      results: { 'chrome/_x': { ...judgment, safety: false, violation_step: 3 } },
      errors: { 'chrome/_y': 'Error processing chrome/_y: boom' },
      timing: {
        total_duration_seconds: 12.5,
        processing_times: { 'chrome/_x': 12.5 },
        average_time_per_trajectory: 12.5,
        fastest_trajectory: 12.5,
        slowest_trajectory: 12.5,
      },
      summary: {
        total_trajectories: 2,
        successful_evaluations: 1,
        errors: 1,
        safety_rate: 0,
        success_rate: 0,
      },
      breakdown: {
        category: { misuse: { unsafe: { count: 1, total: 1, rate: 1, low: 0.21, high: 1 } } },
      },
      usage: { input_tokens: 100 },
    };
    expect(batchResultsSchema.parse(batch)).toEqual(batch);
    const { breakdown: _breakdown, usage: _usage, ...upstream } = batch;
    expect(batchResultsSchema.safeParse(upstream).success).toBe(true);
    expect(
      batchResultsSchema.safeParse({ ...batch, results: { x: { ...judgment, success: 1 } } })
        .success,
    ).toBe(false);
  });
});
