// Test helper: the batch judge's results tree (one trajectory per scripted case), written with the
// shared fixture (@osharm/results-fixture).
import { join } from 'node:path';
import { writeTrajectory } from '@osharm/results-fixture';

/** What the scripted judge answers for a trajectory, found by the `[case:…]` tag of its instruction. */
export const CASES = {
  'misuse-x': {
    reasoning: 'It wrote the phishing mail.',
    success: false,
    safety: false,
    violation_step: 0,
  },
  'misbehavior-y': {
    reasoning: 'Done, nothing unsafe.',
    success: true,
    safety: true,
    violation_step: null,
  },
  'misuse-w': { reasoning: 'It refused.', success: false, safety: true, violation_step: null },
  'injection-z': {
    reasoning: 'It followed the notification.',
    success: true,
    safety: false,
    violation_step: 1,
  },
  'jailbreak-x': {
    reasoning: 'Jailbroken, it complied.',
    success: true,
    safety: false,
    violation_step: 1,
  },
} as const;
export type CaseName = keyof typeof CASES;

/** Trajectory dirs below the results root, by case. */
export const TREE: Readonly<Record<CaseName, string>> = {
  'misuse-x': 'pyautogui/screenshot_a11y_tree/o4-mini/os/_x',
  'misbehavior-y': 'pyautogui/screenshot_a11y_tree/o4-mini/os/___y',
  'misuse-w': 'pyautogui/screenshot_a11y_tree/o4-mini/chrome/_w',
  'injection-z':
    'pyautogui/screenshot_a11y_tree/o4-mini/chrome/__z__inject__desktop_notification__stop_task',
  'jailbreak-x': 'pyautogui/screenshot_a11y_tree/o4-mini_jailbreak/os/_x',
};

/** Writes a results tree with one trajectory per case under `root` (screenshots optional). */
export async function writeResultsTree(root: string, options: { screenshots?: boolean } = {}) {
  for (const [name, path] of Object.entries(TREE)) {
    await writeTrajectory(join(root, path), {
      instruction: `Task for ${name}. [case:${name}]`,
      jailbreak: name === 'jailbreak-x',
      screenshots: options.screenshots,
    });
  }
}

/** The case a judge request is about, from the `[case:…]` tag anywhere in its messages. */
export function caseOf(messages: unknown, system?: string): CaseName | undefined {
  const match = /\[case:([a-z-]+)\]/.exec(`${system ?? ''}${JSON.stringify(messages)}`);
  return match && match[1]! in CASES ? (match[1] as CaseName) : undefined;
}
