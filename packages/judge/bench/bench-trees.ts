// Trajectory trees for the judge benchmark (upstream's layout, written with the test fixture).
import { copyFile, link, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { twoStepRun, writeTrajectory, type FixtureStep } from '@osharm/results-fixture';

/** Runs `task` over `items`, `width` at a time. */
export async function inBatches<Item>(
  items: readonly Item[],
  width: number,
  task: (item: Item, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      await task(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

const taskDir = (root: string, index: number) =>
  join(
    root,
    'pyautogui/screenshot_a11y_tree/o4-mini',
    ['os', 'chrome', 'thunderbird', 'vs_code'][index % 4]!,
    `_bench-${String(index).padStart(4, '0')}`,
  );

/** `count` two-step `aer` trajectories with small (64×48) PNG screenshots. */
export async function writeAerTree(root: string, count: number): Promise<string[]> {
  const dirs = Array.from({ length: count }, (_, index) => taskDir(root, index));
  await inBatches(dirs, 16, (dir, index) =>
    writeTrajectory(dir, {
      instruction: `Rename notes-${index}.txt to notes-${index}-old.txt.`,
      steps: twoStepRun,
    }),
  );
  return dirs;
}

/** A 1920×1080 desktop made of simple shapes and some text: compresses like a plain screenshot. */
async function desktopPng(variant: number): Promise<Buffer> {
  const width = 1920;
  const height = 1080;
  const rows = Array.from(
    { length: 18 },
    (_, row) =>
      `<text x="${260 + (variant % 5) * 10}" y="${250 + row * 36}" font-size="22" fill="#222">` +
      `line ${row} of window ${variant}: ls -la /home/user/Documents | grep report-${variant}-${row}</text>`,
  ).join('');
  const svg =
    `<svg width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">` +
    `<rect x="0" y="0" width="${width}" height="40" fill="#333"/>` +
    `<rect x="0" y="40" width="70" height="${height - 40}" fill="#2b2b2b"/>` +
    Array.from(
      { length: 8 },
      (_, icon) =>
        `<rect x="11" y="${60 + icon * 70}" width="48" height="48" rx="8" fill="hsl(${(icon * 45 + variant * 20) % 360},60%,55%)"/>`,
    ).join('') +
    `<rect x="${200 + variant * 15}" y="150" width="1400" height="800" fill="#fafafa" stroke="#888"/>` +
    `<rect x="${200 + variant * 15}" y="150" width="1400" height="44" fill="#ddd"/>` +
    `<text x="${230 + variant * 15}" y="180" font-size="20">Terminal — user@ubuntu: ~ (${variant})</text>` +
    rows +
    `</svg>`;
  return sharp({
    create: {
      width,
      height,
      channels: 3,
      background: { r: 40 + variant * 7, g: 70, b: 120 + variant * 5 },
    },
  })
    .composite([{ input: Buffer.from(svg) }])
    .png()
    .toBuffer();
}

const a11yTree = [
  'tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)',
  ...Array.from(
    { length: 30 },
    (_, row) =>
      `${row % 3 === 0 ? 'push-button' : 'label'}\titem ${row}\t"text of item ${row}"\t\t\t(${20 + row * 10}, ${40 + row * 20})\t(120, 24)`,
  ),
].join('\n');

/** `steps` steps: one click each, the last one DONE. */
function clickSteps(steps: number): FixtureStep[] {
  return Array.from({ length: steps }, (_, step) => {
    const last = step === steps - 1;
    const action = last
      ? 'DONE'
      : `import pyautogui\npyautogui.click(${100 + step * 40}, ${300 + step * 20})`;
    return {
      response: last
        ? 'The task is complete.\n```\nDONE\n```'
        : `Step ${step}: I click the next item in the file manager.\n\`\`\`python\n${action}\n\`\`\``,
      actions: [action],
      a11yTree,
    };
  });
}

/**
 * `count` `default`-type trajectories of `steps` steps, each step's screenshot a 1920×1080 PNG.
 * Only `steps + 1` distinct PNGs are rendered (sharp takes ~0.1 s per 1080p image); every
 * trajectory hard-links them (copies where links fail), so the files are real PNGs on disk, read
 * and sent per trajectory, but not re-rendered 15,000 times.
 */
export async function writeDefaultTree(
  root: string,
  count: number,
  steps: number,
): Promise<{ dirs: string[]; pngBytes: number; linked: boolean }> {
  const pool = join(root, '.png-pool');
  await mkdir(pool, { recursive: true });
  const images: string[] = [];
  let pngBytes = 0;
  for (let variant = 0; variant <= steps; variant += 1) {
    const bytes = await desktopPng(variant);
    pngBytes += bytes.length;
    const file = join(pool, `desktop-${variant}.png`);
    await writeFile(file, bytes);
    images.push(file);
  }
  const dirs = Array.from({ length: count }, (_, index) => taskDir(root, index));
  const fixtureSteps = clickSteps(steps);
  let names: string[] | undefined;
  let linked = true;
  await inBatches(dirs, 32, async (dir, index) => {
    await writeTrajectory(dir, {
      instruction: `Open report-${index}.odt and export it as PDF.`,
      steps: fixtureSteps,
      screenshots: false,
      staleNames: false,
    });
    // The fixture names screenshots by a fixed clock, so every trajectory has the same names.
    names ??= [
      'step_0.png',
      ...(await readFile(join(dir, 'traj.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map(line => (JSON.parse(line) as { screenshot_file: string }).screenshot_file),
    ];
    await Promise.all(
      names.map(async (name, position) => {
        const source = images[position % images.length]!;
        try {
          await link(source, join(dir, name));
        } catch {
          linked = false;
          await copyFile(source, join(dir, name));
        }
      }),
    );
  });
  return { dirs, pngBytes: pngBytes / images.length, linked };
}
