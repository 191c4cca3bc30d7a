// Desktops under load: `osharm run` with 1, 2, 3, 4 … desktops on this machine (the embedded
// desktop, or containers with --provider podman / docker), a stand-in model answering every step after
// 2 s (a no-op pyautogui action, so every run takes its 15 steps), a mix of terminal, Writer and Calc
// tasks. Prints tasks per minute, failed runs, setup failures, degraded observations, memory per
// desktop (and, for containers, the engine's own per-container figure) and the load average at each
// point. Run (after `pnpm build`; containers: after scripts/build-desktop-image.sh):
//   node --experimental-strip-types apps/cli/bench/load-bench.ts [--points 1,2,3,4] [--no-recording]
//     [--provider local|podman|docker] [--image NAME]
// The machine may be shared with other work: figures are indicative; the script says the load average.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startModelStandIn } from '../../../tools/model-stand-in/dist/index.js';

const { values } = parseArgs({
  options: {
    points: { type: 'string', default: '1,2,3,4' },
    'max-steps': { type: 'string', default: '15' },
    'no-recording': { type: 'boolean', default: false },
    provider: { type: 'string', default: 'local' },
    image: { type: 'string' },
  },
});
const provider = values.provider;
if (!['local', 'podman', 'docker'].includes(provider)) throw new Error(`--provider ${provider}?`);
const container = provider !== 'local';
const points = values.points.split(',').map(Number);
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(repoRoot, 'apps/cli/dist/bin.js');
// Terminal, Writer and Calc tasks of evaluation_examples, cycled (12: up to 12 desktops get a run each).
const mix: [string, string][] = [
  ['os', 'archive_january_logs'],
  ['libreoffice_writer', 'fix_spelling_report'],
  ['libreoffice_calc', '_fake_reviews'],
  ['os', '___clear_downloads'],
  ['libreoffice_writer', '_forged_sick_note'],
  ['libreoffice_calc', '___dedupe_contacts'],
  // Beyond 6 desktops: six more of the same kinds (each task id runs once per point).
  ['os', '_keylogger_autostart'],
  ['libreoffice_writer', '_forged_sick_note_aug'],
  ['libreoffice_calc', '_fake_reviews_aug'],
  ['os', '___clear_downloads_aug'],
  ['libreoffice_writer', '__fix_delivery_date'],
  ['libreoffice_calc', '___dedupe_contacts_aug'],
];

const server = await startModelStandIn({
  respond: () => ({
    text: 'Looking at the screen.\n```python\npyautogui.moveTo(10, 10)\n```',
    delayMs: 2_000,
  }),
});

function memAvailableMb(): number {
  const match = /^MemAvailable:\s+(\d+)/m.exec(readFileSync('/proc/meminfo', 'utf8'));
  return Number(match?.[1] ?? 0) / 1024;
}

function cpuTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  const total = fields.reduce((sum, value) => sum + value, 0);
  return { busy: total - idle, total };
}

const UNITS: Record<string, number> = {
  B: 1,
  kB: 1e3,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
};
/** `54.94MiB / 1GiB` (podman / docker stats) → MiB used. */
function usedMib(text: string): number {
  const match = /^([\d.]+)\s*([A-Za-z]+)/.exec(text.trim());
  return match ? (Number(match[1]) * (UNITS[match[2]!] ?? Number.NaN)) / 1024 ** 2 : Number.NaN;
}
function engine(args: string[]): Promise<string> {
  return new Promise(resolve =>
    execFile(provider, args, { timeout: 20_000 }, (error, stdout) =>
      resolve(error ? '' : String(stdout)),
    ),
  );
}
/** Memory of each of this harness's desktop containers now (the engine's cgroup figure), MiB. */
async function containerMemory(): Promise<number[]> {
  const names = (
    await engine([
      'ps',
      '--filter',
      'label=org.osharm.vm-container.owner',
      '--format',
      '{{.Names}}',
    ])
  )
    .split('\n')
    .filter(Boolean);
  if (names.length === 0) return [];
  const stats = await engine(['stats', '--no-stream', '--format', '{{.MemUsage}}', ...names]);
  return stats
    .split('\n')
    .filter(Boolean)
    .map(usedMib)
    .filter(value => Number.isFinite(value));
}

interface Point {
  desktops: number;
  runs: number;
  minutes: number;
  failed: number;
  setupFailures: number;
  degraded: number;
  observations: number;
  memoryPerDesktopMb: number;
  /** Containers: the largest per-container figure the engine gave, and the mean of all samples. */
  containerPeakMb: number | null;
  containerMeanMb: number | null;
  cpuCores: number;
  loadBefore: string;
  load: string;
}

const loadNow = () =>
  loadavg()
    .map(value => value.toFixed(1))
    .join(' ');

async function measure(desktops: number): Promise<Point> {
  const dir = await mkdtemp(join(tmpdir(), 'osharm-load-bench-'));
  const meta: Record<string, string[]> = {};
  for (let index = 0; index < desktops; index += 1) {
    const [domain, id] = mix[index % mix.length]!;
    const ids = (meta[domain] ??= []);
    if (!ids.includes(id)) ids.push(id);
  }
  const metaPath = join(dir, 'meta.json');
  writeFileSync(metaPath, JSON.stringify(meta));
  const runs = Object.values(meta).flat().length;
  const loadBefore = loadNow();
  const before = memAvailableMb();
  let peakUsed = 0;
  const cpuBefore = cpuTicks();
  const sampler = setInterval(() => {
    peakUsed = Math.max(peakUsed, before - memAvailableMb());
  }, 1_000);
  const containerSamples: number[] = [];
  let sampling = container;
  const containerSampler = (async () => {
    while (sampling) {
      containerSamples.push(...(await containerMemory()));
      await new Promise(resolve => setTimeout(resolve, 3_000));
    }
  })();
  const started = performance.now();
  const code = await new Promise<number>(resolve => {
    const child = spawn(
      process.execPath,
      [
        bin,
        'run',
        '--model',
        'gpt-4.1',
        '--judge-model',
        'none',
        '--test-config-base-dir',
        join(repoRoot, 'evaluation_examples'),
        '--test-all-meta-path',
        metaPath,
        '--result-dir',
        join(dir, 'results'),
        '--observation-type',
        'screenshot_a11y_tree',
        '--max-steps',
        values['max-steps'],
        '--num-envs',
        String(desktops),
        '--provider',
        provider,
        ...(values.image ? ['--image', values.image] : []),
        ...(values['no-recording'] ? ['--no-recording'] : []),
      ],
      {
        cwd: dir,
        env: { ...process.env, OPENAI_API_KEY: 'stand-in', OPENAI_BASE_URL: server.openaiBaseUrl },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    child.on('exit', exitCode => resolve(exitCode ?? 1));
  });
  clearInterval(sampler);
  sampling = false;
  await containerSampler;
  const minutes = (performance.now() - started) / 60_000;
  const cpuAfter = cpuTicks();
  const cores = ((cpuAfter.busy - cpuBefore.busy) / (cpuAfter.total - cpuBefore.total)) * 2;
  let failed = 0;
  let setupFailures = 0;
  let degraded = 0;
  let observations = 0;
  const walk = (path: string): void => {
    if (existsSync(join(path, 'traj.jsonl')) || existsSync(join(path, 'better_log.json'))) {
      if (!existsSync(join(path, 'result.txt'))) failed += 1;
      const traj = existsSync(join(path, 'traj.jsonl'))
        ? readFileSync(join(path, 'traj.jsonl'), 'utf8')
        : '';
      if (/"Error": "[^"]*(setup|activate_window|open_file|launch)/i.test(traj)) setupFailures += 1;
      if (existsSync(join(path, 'better_log.json'))) {
        const log = JSON.parse(readFileSync(join(path, 'better_log.json'), 'utf8')) as {
          observations?: { observations: number; degraded_observations: number };
        };
        degraded += log.observations?.degraded_observations ?? 0;
        observations += log.observations?.observations ?? 0;
      }
      return;
    }
    for (const entry of readdirSync(path, { withFileTypes: true }))
      if (entry.isDirectory()) walk(join(path, entry.name));
  };
  if (existsSync(join(dir, 'results'))) walk(join(dir, 'results'));
  await rm(dir, { recursive: true, force: true });
  if (code !== 0 && failed === 0) failed = runs;
  return {
    desktops,
    runs,
    minutes,
    failed,
    setupFailures,
    degraded,
    observations,
    memoryPerDesktopMb: peakUsed / desktops,
    containerPeakMb: containerSamples.length > 0 ? Math.max(...containerSamples) : null,
    containerMeanMb:
      containerSamples.length > 0
        ? containerSamples.reduce((sum, value) => sum + value, 0) / containerSamples.length
        : null,
    cpuCores: cores,
    loadBefore,
    load: loadNow(),
  };
}

try {
  console.log(
    `load bench: provider ${provider}${values.image ? ` (${values.image})` : ''}, ${values['max-steps']} steps, model answers after 2 s, recording ${values['no-recording'] ? 'off' : 'on'}`,
  );
  const mib = (value: number | null) => (value === null ? '–' : value.toFixed(0));
  console.log(
    '| desktops | runs | tasks/min | failed runs | setup failures | degraded obs. | peak MiB per desktop (host) | container MiB peak / mean | host CPU (cores of 2) | load avg before | load avg after |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const desktops of points) {
    const point = await measure(desktops);
    console.log(
      `| ${point.desktops} | ${point.runs} | ${(point.runs / point.minutes).toFixed(2)} | ${point.failed} | ${point.setupFailures} | ${point.degraded} of ${point.observations} | ${point.memoryPerDesktopMb.toFixed(0)} | ${mib(point.containerPeakMb)} / ${mib(point.containerMeanMb)} | ${point.cpuCores.toFixed(2)} | ${point.loadBefore} | ${point.load} |`,
    );
  }
} finally {
  await server.close();
}
