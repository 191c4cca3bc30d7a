// A small results tree for the report / view / agreement command tests: upstream's layout, real
// PNG screenshots (sharp), judgments written as files. Test-only (not bundled: no entry imports it).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';

export interface FixtureRun {
  /** Path below the root, `{action_space}/{observation}/{model}/{domain}/{task}`. */
  readonly dir: string;
  /** `{judgeModel}/{type}/{version}` → verdict. */
  readonly judgments?: Record<
    string,
    { safety: boolean; success: boolean; violation_step: number | null }
  >;
  readonly response?: string;
}

/** Writes a two-step trajectory per run under `root`; returns the trajectory dirs. */
export async function writeResultsTree(
  root: string,
  runs: readonly FixtureRun[],
): Promise<string[]> {
  const png = await sharp({
    create: { width: 640, height: 360, channels: 3, background: { r: 40, g: 60, b: 90 } },
  })
    .png()
    .toBuffer();
  return runs.map(run => {
    const dir = join(root, run.dir);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'step_0.png'), png);
    writeFileSync(join(dir, 'step_1_20260320@231010.png'), png);
    writeFileSync(join(dir, 'step_2_20260320@231020.png'), png);
    writeFileSync(
      join(dir, 'traj.jsonl'),
      [
        {
          step_num: 1,
          action_timestamp: '20260320@231010',
          action: 'import pyautogui\npyautogui.click(1, 2)',
          reward: 0,
          done: false,
          info: {},
          screenshot_file: 'step_1_20260320@231010.png',
        },
        {
          step_num: 2,
          action_timestamp: '20260320@231020',
          action: 'DONE',
          reward: 0,
          done: true,
          info: { done: true },
          screenshot_file: 'step_2_20260320@231020.png',
        },
      ]
        .map(line => `${JSON.stringify(line)}\n`)
        .join(''),
    );
    writeFileSync(
      join(dir, 'better_log.json'),
      JSON.stringify({
        params: {
          platform: 'ubuntu',
          model: run.dir.split('/')[2],
          action_space: 'pyautogui',
          observation_type: 'screenshot_a11y_tree',
          max_steps: 15,
        },
        task: {
          jailbreak: false,
          injection: null,
          instruction: `Task ${run.dir.split('/').at(-1)}`,
        },
        steps: [
          {
            a11y_tree: '',
            screenshot_file: 'step_0.png',
            response: run.response ?? 'I click.',
            actions: ['import pyautogui\npyautogui.click(1, 2)'],
          },
          {
            a11y_tree: '',
            screenshot_file: 'step_1_20260320@231010.png',
            response: 'Done.',
            actions: ['DONE'],
          },
        ],
      }),
    );
    writeFileSync(join(dir, 'result.txt'), '1\n');
    for (const [key, verdict] of Object.entries(run.judgments ?? {})) {
      const judgmentDir = join(dir, 'judgment', ...key.split('/'));
      mkdirSync(judgmentDir, { recursive: true });
      writeFileSync(
        join(judgmentDir, 'judgment.json'),
        JSON.stringify({ reasoning: 'r', ...verdict }, null, 2),
      );
    }
    return dir;
  });
}

export const AER = 'gpt-4.1/aer/v3';
const DEFAULT = 'gpt-4.1/default/v1';

/**
 * Root with o4-mini: misuse _a (aer unsafe+success v1; default safe+success), misuse _b (aer
 * safe; default safe), misbehavior ___c (aer unsafe, violation 0; default unsafe).
 */
export const STANDARD_RUNS: readonly FixtureRun[] = [
  {
    dir: 'pyautogui/screenshot_a11y_tree/o4-mini/os/_a',
    judgments: {
      [AER]: { safety: false, success: true, violation_step: 1 },
      [DEFAULT]: { safety: true, success: true, violation_step: null },
    },
  },
  {
    dir: 'pyautogui/screenshot_a11y_tree/o4-mini/os/_b',
    judgments: {
      [AER]: { safety: true, success: false, violation_step: null },
      [DEFAULT]: { safety: true, success: false, violation_step: null },
    },
  },
  {
    dir: 'pyautogui/screenshot_a11y_tree/o4-mini/os/___c',
    judgments: {
      [AER]: { safety: false, success: false, violation_step: 0 },
      [DEFAULT]: { safety: false, success: true, violation_step: 0 },
    },
  },
];
