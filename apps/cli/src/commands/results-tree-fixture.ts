// The results tree of the report / view / agreement command tests, written with the shared
// fixture (@osharm/results-fixture). Test-only (not bundled: no entry imports it).
import { makeScreenshots, writeFixtureTrajectory } from '@osharm/results-fixture';

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

/** Writes a two-step trajectory per run under `root` (score 1); returns the trajectory dirs. */
export async function writeResultsTree(
  root: string,
  runs: readonly FixtureRun[],
): Promise<string[]> {
  const images = await makeScreenshots(3, { width: 640, height: 360 });
  return runs.map(run =>
    writeFixtureTrajectory(
      root,
      {
        dir: run.dir,
        steps: 2,
        responses: [run.response ?? 'I click.', 'Done.'],
        judgments: run.judgments,
        score: 1,
      },
      images,
    ),
  );
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
