// Builds results trees for tests and the bench: real PNGs (made with sharp), upstream's file
// shapes, judgments written as files, and upstream's quirks on request. No relative imports, so
// `node --experimental-strip-types` can load it from bench/.
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';

/** A verdict as `judgment.json` holds it. */
interface FixtureJudgment {
  readonly safety: boolean;
  readonly success: boolean;
  readonly violation_step: number | null;
  readonly reasoning?: string;
}

/** One trajectory dir to write. */
export interface FixtureTrajectory {
  /** Path below the root, e.g. `pyautogui/screenshot_a11y_tree/o4-mini/os/_ransomware`. */
  readonly dir: string;
  readonly instruction?: string;
  /** Agent steps. @default 3 */
  readonly steps?: number;
  /** Model response per step (default: a short reasoning plus a code block). */
  readonly responses?: readonly string[];
  readonly injection?: { type: string; goal_id: string; content: string } | null;
  readonly jailbreak?: boolean;
  /** `{judgeModel}/{judgeType}/{version}` → verdict (or raw text for a broken file). */
  readonly judgments?: Readonly<Record<string, FixtureJudgment | string>>;
  /** `result.txt` content; null writes none (a run in progress). @default 0 */
  readonly score?: number | null;
  /** Steps whose "before" screenshot is not written. */
  readonly missingScreenshots?: readonly number[];
  /** A step with no actions: the next step's logged name is stale (upstream quirk). */
  readonly noActionStep?: number;
  /** Appended as `{"Error": …}` to traj.jsonl. */
  readonly errorLine?: string;
  /** Still running: the last step's action is not DONE (and no result.txt with `score: null`). */
  readonly running?: boolean;
  /** Write a (tiny, fake) `recording.mp4`. */
  readonly recording?: boolean;
  /** Written as `injection_evidence.json`. */
  readonly evidence?: unknown;
  /** Written as `setup_warnings.json`'s `warnings`. */
  readonly setupWarnings?: readonly unknown[];
  /** Written as `setup_warnings.json`'s `downloads` (with `setupWarnings`). */
  readonly setupDownloads?: readonly unknown[];
  /** Observation type recorded in params. @default 'screenshot_a11y_tree' */
  readonly observationType?: string;
  /** Agent model recorded in params. @default the path's model dir */
  readonly model?: string;
}

/**
 * Distinct screenshots as PNG bytes: a desktop-like picture (title bar, window, text lines) with
 * a label, so thumbnails look like the real thing.
 */
export async function makeScreenshots(
  count: number,
  { width = 1280, height = 720 }: { width?: number; height?: number } = {},
): Promise<Buffer[]> {
  const colors = ['#2563eb', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#be123c'];
  const images: Buffer[] = [];
  for (let index = 0; index < count; index += 1) {
    const color = colors[index % colors.length]!;
    const lines = Array.from(
      { length: 12 },
      (_, line) =>
        `<rect x="${width * 0.18}" y="${height * 0.22 + line * 32}" width="${width * (0.3 + ((index * 7 + line * 13) % 40) / 100)}" height="12" fill="#d1d5db"/>`,
    ).join('');
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<rect width="100%" height="100%" fill="#334155"/>
<rect x="0" y="0" width="${width}" height="28" fill="#0f172a"/>
<rect x="${width * 0.12}" y="${height * 0.1}" width="${width * 0.76}" height="${height * 0.8}" fill="#f8fafc" rx="6"/>
<rect x="${width * 0.12}" y="${height * 0.1}" width="${width * 0.76}" height="36" fill="${color}" rx="6"/>
${lines}
<text x="${width * 0.5}" y="${height * 0.75}" font-size="48" font-family="sans-serif" text-anchor="middle" fill="${color}">screen ${index}</text>
</svg>`;
    images.push(await sharp(Buffer.from(svg)).png().toBuffer());
  }
  return images;
}

const timestamp = (step: number, action: number) =>
  `20260320@23${String(10 + step).padStart(2, '0')}${String(10 + action).padStart(2, '0')}`;

/**
 * Writes one trajectory dir under `root` in upstream's layout: `better_log.json`, `traj.jsonl`,
 * `step_0.png` and `step_{n}_{timestamp}.png` (from `images`, cycled), `result.txt`, judgments,
 * and the quirks asked for.
 */
export function writeFixtureTrajectory(
  root: string,
  trajectory: FixtureTrajectory,
  images: readonly Buffer[],
  imageOffset = 0,
): string {
  const dir = join(root, trajectory.dir);
  mkdirSync(dir, { recursive: true });
  const stepCount = trajectory.steps ?? 3;
  const segments = trajectory.dir.split('/');
  const pathModel = segments.at(-3) ?? 'model';
  const image = (index: number) => images[(imageOffset + index) % images.length]!;
  const missing = new Set(trajectory.missingScreenshots ?? []);
  const trajLines: string[] = [];
  const steps: unknown[] = [];
  // "before" screenshot name of each step: step_0.png, then the last action's of the step before
  let before = 'step_0.png';
  if (!missing.has(0)) writeFileSync(join(dir, 'step_0.png'), image(0));
  for (let step = 0; step < stepCount; step += 1) {
    const last = step === stepCount - 1 && !trajectory.running;
    const noAction = trajectory.noActionStep === step;
    const action = last
      ? 'DONE'
      : `import pyautogui\npyautogui.click(${100 + step}, ${200 + step})`;
    const response =
      trajectory.responses?.[step] ??
      `Step ${step}: I look at the screen and act.\n\`\`\`python\n${action}\n\`\`\``;
    steps.push({
      a11y_tree: 'tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)\n',
      screenshot_file: before,
      response,
      actions: noAction ? [] : [action],
    });
    if (noAction) {
      // upstream names the next "before" screenshot with this step's index and a stale timestamp
      before = `step_${step + 1}_${timestamp(step, 99)}.png`;
      continue;
    }
    const name = `step_${step + 1}_${timestamp(step, 0)}.png`;
    trajLines.push(
      JSON.stringify({
        step_num: step + 1,
        action_timestamp: timestamp(step, 0),
        action,
        reward: 0,
        done: last,
        info: last ? { done: true } : {},
        screenshot_file: name,
      }),
    );
    if (!missing.has(step + 1)) writeFileSync(join(dir, name), image(step + 1));
    before = name;
  }
  if (trajectory.errorLine !== undefined)
    trajLines.push(JSON.stringify({ Error: trajectory.errorLine }));
  writeFileSync(join(dir, 'traj.jsonl'), trajLines.map(line => `${line}\n`).join(''));
  writeFileSync(
    join(dir, 'better_log.json'),
    JSON.stringify({
      params: {
        platform: 'ubuntu',
        model: trajectory.model ?? pathModel.replace(/_jailbreak$/, ''),
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
        injection: trajectory.injection
          ? {
              type: trajectory.injection.type,
              goals: [trajectory.injection.goal_id],
              content: trajectory.injection.content,
              goal_id: trajectory.injection.goal_id,
            }
          : null,
        instruction: trajectory.instruction ?? `Do task ${segments.at(-1)}.`,
      },
      steps,
    }),
  );
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
  if (trajectory.score !== null)
    writeFileSync(join(dir, 'result.txt'), `${trajectory.score ?? 0}\n`);
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
  return dir;
}

/** Copies `/work/shared/real-trajectories/{name}` (better_log.json, traj.jsonl) into `dir`. */
export function copyRealTrajectory(source: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const file of readdirSync(source)) copyFileSync(join(source, file), join(dir, file));
  return dir;
}

/** A judgment file key for the default judge configuration of the fixtures. */
export const AER_V3 = 'gpt-4.1/aer/v3';
