// One writer of synthetic trajectories in upstream's layout, for every test and bench that needs
// a results tree: better_log.json, traj.jsonl (Python json.dumps spacing), step_0.png and one
// `step_{n}_{timestamp}.png` per action, result.txt, judgments, osharm's side files, and upstream's
// quirks on request (stale screenshot names after a step with no actions, an Error line, missing
// screenshots, a run still in progress).
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pythonJsonDumps } from './python-json';
import { makeScreenshots } from './screenshots';

/** One agent step. */
export interface FixtureStep {
  /** Raw model response. */
  readonly response: string;
  /** Parsed actions; each writes a traj.jsonl line and a screenshot; none writes neither. */
  readonly actions: readonly string[];
  readonly a11yTree?: string;
}

/** A verdict as `judgment.json` holds it. */
export interface FixtureJudgment {
  readonly safety: boolean;
  readonly success: boolean;
  readonly violation_step: number | null;
  readonly reasoning?: string;
}

/** One trajectory dir to write. */
export interface FixtureTrajectory {
  /** Path below the root, e.g. `pyautogui/screenshot_a11y_tree/o4-mini/os/_ransomware`. */
  readonly dir: string;
  /** @default `Do task {last path segment}.` */
  readonly instruction?: string;
  /** The agent's steps, or how many to make (code steps, the last one DONE). @default 3 */
  readonly steps?: number | readonly FixtureStep[];
  /** Model response per made step (with a number `steps`). */
  readonly responses?: readonly string[];
  /** A made step with no actions (with a number `steps`). */
  readonly noActionStep?: number;
  /** Still running: the last made step is not DONE (with a number `steps`). */
  readonly running?: boolean;
  /**
   * Name the "before" screenshot after a step with no actions as upstream does: with the step's
   * index and the last action's timestamp, naming no file. false names the real file. @default true
   */
  readonly staleNames?: boolean;
  /** Screenshot indexes not written (0 = step_0.png, n = step n's action screenshot). */
  readonly missingScreenshots?: readonly number[];
  /** Appended to traj.jsonl as `{"Error": …}`. */
  readonly errorLine?: string;
  /** `result.txt` content; null writes none (a run in progress or errored). @default 0 */
  readonly score?: number | null;
  /** `task.injection` as written. @default null */
  readonly injection?: Readonly<Record<string, unknown>> | null;
  readonly jailbreak?: boolean;
  /** Agent model recorded in params. @default the path's model dir (without `_jailbreak`), else o4-mini */
  readonly model?: string;
  /** @default 'screenshot_a11y_tree' */
  readonly observationType?: string;
  /** Write osharm's observation record (`observations` in better_log.json): a run osharm wrote. */
  readonly osharm?: boolean;
  /** `{judgeModel}/{judgeType}/{version}` → verdict (or raw text for a broken file). */
  readonly judgments?: Readonly<Record<string, FixtureJudgment | string>>;
  /** Write a (tiny, fake) `recording.mp4`. */
  readonly recording?: boolean;
  /** Written as `injection_evidence.json`. */
  readonly evidence?: unknown;
  /** Written as `setup_warnings.json`'s `warnings`. */
  readonly setupWarnings?: readonly unknown[];
  /** Written as `setup_warnings.json`'s `downloads` (with `setupWarnings`). */
  readonly setupDownloads?: readonly unknown[];
}

const A11Y_TREE =
  'tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)\nbutton\tOK\t""\t\t\t(10, 10)\t(40, 20)';

/** A short safe trajectory: one code step, then DONE. */
export const twoStepRun: readonly FixtureStep[] = [
  {
    response:
      'I will open a terminal and rename the file.\n```python\nimport pyautogui\npyautogui.hotkey("ctrl", "alt", "t")\n```',
    actions: ['import pyautogui\npyautogui.hotkey("ctrl", "alt", "t")'],
  },
  { response: 'The file is renamed.\n```\nDONE\n```', actions: ['DONE'] },
];

function madeSteps(trajectory: FixtureTrajectory): readonly FixtureStep[] {
  if (typeof trajectory.steps === 'object') return trajectory.steps;
  const count = trajectory.steps ?? 3;
  return Array.from({ length: count }, (_, step) => {
    const last = step === count - 1 && !trajectory.running;
    const action = last
      ? 'DONE'
      : `import pyautogui\npyautogui.click(${100 + step}, ${200 + step})`;
    const response =
      trajectory.responses?.[step] ??
      `Step ${step}: I look at the screen and act.\n\`\`\`python\n${action}\n\`\`\``;
    return { response, actions: trajectory.noActionStep === step ? [] : [action] };
  });
}

const timestamp = (step: number, action: number) =>
  `20260320@23${String(10 + step).padStart(2, '0')}${String(10 + action).padStart(2, '0')}`;

/**
 * Writes one trajectory dir at `root/trajectory.dir`; screenshots come from `images` (cycled,
 * starting at `imageOffset`), none when `images` is empty. Returns the dir.
 */
export function writeFixtureTrajectory(
  root: string,
  trajectory: FixtureTrajectory,
  images: readonly Buffer[],
  imageOffset = 0,
): string {
  const dir = join(root, trajectory.dir);
  mkdirSync(dir, { recursive: true });
  const segments = trajectory.dir.split('/');
  const missing = new Set(trajectory.missingScreenshots ?? []);
  let written = 0;
  const screenshot = (index: number, name: string) => {
    if (images.length > 0 && !missing.has(index))
      writeFileSync(join(dir, name), images[(imageOffset + written) % images.length]!);
    written += 1;
  };
  const trajLines: string[] = [];
  const logSteps: unknown[] = [];
  let before = 'step_0.png';
  let lastStamp = '';
  screenshot(0, before);
  madeSteps(trajectory).forEach((step, index) => {
    logSteps.push({
      a11y_tree: step.a11yTree ?? A11Y_TREE,
      screenshot_file: before,
      response: step.response,
      actions: step.actions,
    });
    step.actions.forEach((action, at) => {
      const stamp = timestamp(index, at);
      const name = `step_${index + 1}_${stamp}.png`;
      trajLines.push(
        pythonJsonDumps({
          step_num: index + 1,
          action_timestamp: stamp,
          action,
          reward: 0,
          done: action === 'DONE' || action === 'FAIL',
          info: action === 'FAIL' ? { fail: true } : action === 'DONE' ? { done: true } : {},
          screenshot_file: name,
        }),
      );
      screenshot(index + 1, name);
      before = name;
      lastStamp = stamp;
    });
    // upstream names the next "before" screenshot with its step index and the last action's time
    if (step.actions.length === 0 && trajectory.staleNames !== false)
      before = `step_${index + 1}_${lastStamp}.png`;
  });
  if (trajectory.errorLine !== undefined)
    trajLines.push(pythonJsonDumps({ Error: trajectory.errorLine }));
  writeFileSync(join(dir, 'traj.jsonl'), trajLines.map(line => `${line}\n`).join(''));
  writeFileSync(
    join(dir, 'better_log.json'),
    JSON.stringify({
      params: {
        platform: 'ubuntu',
        model: trajectory.model ?? segments.at(-3)?.replace(/_jailbreak$/, '') ?? 'o4-mini',
        max_tokens: 1500,
        top_p: 0.9,
        temperature: 1,
        action_space: 'pyautogui',
        observation_type: trajectory.observationType ?? 'screenshot_a11y_tree',
        max_trajectory_length: 3,
        a11y_tree_max_tokens: 10000,
        max_steps: 15,
      },
      task: {
        jailbreak: trajectory.jailbreak ?? false,
        injection: trajectory.injection ?? null,
        instruction: trajectory.instruction ?? `Do task ${segments.at(-1)}.`,
      },
      steps: logSteps,
      ...(trajectory.osharm && {
        observations: {
          observations: logSteps.length,
          degraded_observations: 0,
          truncated_a11y_trees: 0,
          failed_a11y_trees: 0,
          late_observations: 0,
        },
      }),
    }),
  );
  writeSideFiles(dir, trajectory);
  return dir;
}

function writeSideFiles(dir: string, trajectory: FixtureTrajectory): void {
  for (const [key, judgment] of Object.entries(trajectory.judgments ?? {})) {
    const judgmentDir = join(dir, 'judgment', ...key.split('/'));
    mkdirSync(judgmentDir, { recursive: true });
    writeFileSync(
      join(judgmentDir, 'judgment.json'),
      typeof judgment === 'string'
        ? judgment
        : JSON.stringify(
            { reasoning: judgment.reasoning ?? `Judged by ${key}.`, ...judgment },
            null,
            2,
          ),
    );
  }
  if (trajectory.score === null) rmSync(join(dir, 'result.txt'), { force: true });
  else writeFileSync(join(dir, 'result.txt'), `${trajectory.score ?? 0}\n`);
  if (trajectory.recording) writeFileSync(join(dir, 'recording.mp4'), Buffer.alloc(64));
  if (trajectory.evidence !== undefined)
    writeFileSync(join(dir, 'injection_evidence.json'), JSON.stringify(trajectory.evidence));
  if (trajectory.setupWarnings !== undefined)
    writeFileSync(
      join(dir, 'setup_warnings.json'),
      JSON.stringify({
        version: 1,
        warnings: trajectory.setupWarnings,
        ...(trajectory.setupDownloads ? { downloads: trajectory.setupDownloads } : {}),
      }),
    );
}

/** Options of {@link writeTrajectory}: a trajectory without its place, plus its screenshots. */
export interface TrajectoryOptions extends Omit<FixtureTrajectory, 'dir'> {
  /** Write real, distinct PNG screenshots. @default true */
  readonly screenshots?: boolean;
  /** Screenshot size. @default 64×48 */
  readonly width?: number;
  readonly height?: number;
}

/**
 * Writes one trajectory at `dir` (default steps: {@link twoStepRun}; default instruction: a file
 * rename) with freshly made screenshots, each distinct from every other this process made.
 */
export async function writeTrajectory(dir: string, options: TrajectoryOptions): Promise<string> {
  const trajectory = {
    instruction: 'Rename the file notes.txt to notes-old.txt.',
    ...options,
    steps: options.steps ?? twoStepRun,
    dir: '',
  };
  const files = 1 + madeSteps(trajectory).reduce((sum, step) => sum + step.actions.length, 0);
  const images =
    options.screenshots === false
      ? []
      : await makeScreenshots(files, { width: options.width ?? 64, height: options.height ?? 48 });
  return writeFixtureTrajectory(dir, trajectory, images);
}

/** Copies a real upstream trajectory dir (better_log.json, traj.jsonl, …) into `dir`. */
export function copyRealTrajectory(source: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const file of readdirSync(source)) copyFileSync(join(source, file), join(dir, file));
  return dir;
}
