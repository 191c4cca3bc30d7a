// How big and how fast the report is on a full-size tree: 150 tasks × 15 steps (2,250 steps).
//
//   pnpm --filter @osharm/report bench                     # reused screenshots (8 synthetic ones)
//   node --experimental-strip-types bench/report-bench.ts --distinct --screenshots /tmp/report-fixture
//
// --distinct        every step gets its own PNG (a labelled variant of a pool image), so thumbnail
//                   de-duplication does not help: the realistic file size
// --screenshots DIR take the pool from the PNGs under DIR (e.g. a real results tree) instead of
//                   synthetic pictures
// --tasks N, --steps N   tree size (default 150 × 15)
//
// Prints: tree read time, report build time, HTML size, thumbnails, and in headless Chromium the
// time until the page is interactive (median of 5 loads), the time to open one trajectory, and the
// same for the viewer. Numbers from one run on this machine; nothing is asserted.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import sharp from 'sharp';
import { buildReport, createViewServer, loadResultsTree } from '../dist/index.js';
import { makeScreenshots, writeFixtureTrajectory } from '@osharm/results-fixture';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const value = (name: string, fallback: string) => {
  const index = args.indexOf(name);
  return index === -1 ? fallback : (args[index + 1] ?? fallback);
};
const tasks = Number(value('--tasks', '150'));
const steps = Number(value('--steps', '15'));
const distinct = flag('--distinct');
const screenshotDir = value('--screenshots', '');

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (value: number) => `${value.toFixed(0)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function findPngs(dir: string, limit: number): string[] {
  const found: string[] = [];
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      if (found.length >= limit) return;
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.png')) found.push(path);
    }
  };
  walk(dir);
  return found;
}

const base = mkdtempSync(join(tmpdir(), 'osharm-report-bench-'));
const root = join(base, 'results');
try {
  let pool: Buffer[];
  if (screenshotDir) {
    const files = findPngs(screenshotDir, 24);
    if (files.length === 0) throw new Error(`no PNG under ${screenshotDir}`);
    pool = files.map(file => readFileSync(file));
  } else pool = await makeScreenshots(8, { width: 1920, height: 1080 });

  let started = performance.now();
  let written = 0;
  for (let task = 0; task < tasks; task += 1) {
    let images = pool;
    if (distinct) {
      // one variant per step: the pool image with a label stamped on (distinct bytes, same look)
      images = await Promise.all(
        Array.from({ length: steps + 1 }, async (_, step) => {
          const label = Buffer.from(
            `<svg xmlns="http://www.w3.org/2000/svg" width="420" height="40"><rect width="420" height="40" fill="#111827"/><text x="10" y="28" font-size="22" font-family="sans-serif" fill="#f9fafb">task ${task} step ${step}</text></svg>`,
          );
          return sharp(pool[(task + step) % pool.length]!)
            .composite([{ input: label, top: 40, left: 40 }])
            .png({ compressionLevel: 1 })
            .toBuffer();
        }),
      );
    }
    writeFixtureTrajectory(
      root,
      {
        dir: `pyautogui/screenshot_a11y_tree/o4-mini/${['os', 'chrome', 'thunderbird', 'vs_code', 'libreoffice_calc'][task % 5]}/${['_misuse', '__injection', '___misbehavior'][task % 3]}_${task}`,
        steps,
        judgments: {
          'gpt-4.1/aer/v3': {
            safety: task % 4 !== 0,
            success: task % 2 === 0,
            violation_step: task % 4 === 0 ? task % steps : null,
          },
        },
        score: task % 2,
      },
      images,
      distinct ? 0 : task,
    );
    written += 1;
  }
  const writeMs = performance.now() - started;

  started = performance.now();
  const tree = await loadResultsTree([root]);
  const loadMs = performance.now() - started;

  started = performance.now();
  const html = await buildReport(tree, { baseDir: base });
  const buildMs = performance.now() - started;
  const file = join(base, 'report.html');
  writeFileSync(file, html);
  const thumbnails =
    html.match(/<script type="text\/plain" id="th-[^"]+">([^<]*)<\/script>/g) ?? [];
  const thumbBytes = thumbnails.reduce((sum, element) => sum + element.length, 0);
  const shotBytes = readdirSync(tree.trajectories[0]!.dir)
    .filter(name => name.endsWith('.png'))
    .reduce((sum, name) => sum + statSync(join(tree.trajectories[0]!.dir, name)).size, 0);

  const browser = await chromium.launch({
    executablePath: process.env.OSHARM_CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
    ],
  });
  const interactive = async (url: string) => {
    const times: number[] = [];
    const opens: number[] = [];
    for (let run = 0; run < 5; run += 1) {
      const page: Page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
      await page.goto(url);
      await page.waitForSelector('body[data-ready]');
      times.push(
        await page.evaluate(() => (window as unknown as { osharmReadyMs: number }).osharmReadyMs),
      );
      const id = await page.getAttribute('#grid tbody tr:nth-child(20) a.cell-link', 'data-id');
      opens.push(
        await page.evaluate(async target => {
          const t0 = performance.now();
          location.hash = `t=${target}`;
          await new Promise<void>(resolve => {
            const check = () =>
              document.querySelector('#detail section.step')
                ? resolve()
                : requestAnimationFrame(check);
            check();
          });
          return performance.now() - t0;
        }, id),
      );
      await page.close();
    }
    return { ready: median(times), open: median(opens) };
  };
  const staticTimes = await interactive(pathToFileURL(file).href);
  started = performance.now();
  const server = await createViewServer({ roots: [root], pollIntervalMs: 0 });
  const serverStartMs = performance.now() - started;
  const liveTimes = await interactive(server.url);
  await server.close();
  await browser.close();

  const lines = [
    `report bench: ${written} tasks × ${steps} steps = ${written * steps} steps, ${distinct ? 'distinct screenshots' : `${pool.length} reused screenshots`}${screenshotDir ? ` from ${screenshotDir}` : ' (synthetic)'}`,
    `  write tree                 ${ms(writeMs)} (one trajectory's PNGs: ${mb(shotBytes)})`,
    `  loadResultsTree            ${ms(loadMs)}`,
    `  buildReport (html)         ${ms(buildMs)}`,
    `  html size                  ${mb(html.length)} (${thumbnails.length} inlined thumbnails, ${mb(thumbBytes)}; ${(thumbBytes / Math.max(1, thumbnails.length) / 1024).toFixed(1)} KiB each)`,
    `  static page interactive    ${ms(staticTimes.ready)} (median of 5, file://)`,
    `  open one trajectory        ${ms(staticTimes.open)}`,
    `  viewer start               ${ms(serverStartMs)}`,
    `  viewer page interactive    ${ms(liveTimes.ready)} (median of 5)`,
    `  viewer open one trajectory ${ms(liveTimes.open)}`,
  ];
  console.log(lines.join('\n'));
} finally {
  rmSync(base, { recursive: true, force: true });
}
