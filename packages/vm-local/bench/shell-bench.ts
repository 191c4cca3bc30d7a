// The desktop's two shells side by side in one run (GNOME Shell as upstream's VM, openbox the lighter
// fallback): cold start → first screenshot (and where it goes, phase by phase), cold revert, revert
// as a run sees it with the warm spare, screenshot, accessibility walk of the idle desktop, idle CPU
// and memory per desktop, and N desktops at once (failed starts, degraded observations). Run:
// pnpm --filter @osharm/vm-local bench:shell [-- --runs 3 --parallel 4]
// (builds first; needs the Debian packages of docs/packages/vm-local.md). Prints one table and the load.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { guestRequest } from '@osharm/desktop-guest';
import { createLocalProvider } from '../dist/index.js';
import type { GuestEndpoint } from '@osharm/desktop-env';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, parallel: { type: 'string', default: '4' } },
});
const runs = Number(values.runs);
const parallel = Number(values.parallel);
if (!(Number.isInteger(runs) && runs > 0 && Number.isInteger(parallel) && parallel > 0)) {
  console.error('shell-bench: --runs and --parallel must be positive integers');
  process.exit(2);
}
const shells = ['openbox', 'gnome-shell'] as const;
type Shell = (typeof shells)[number];

const median = (list: number[]): number => {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length === 0
    ? NaN
    : sorted.length % 2
      ? sorted[middle]!
      : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const ms = (value: number) => (Number.isFinite(value) ? `${Math.round(value)} ms` : '–');

async function timed<T>(action: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await action();
  return [value, performance.now() - started];
}

async function execute(endpoint: GuestEndpoint, command: string): Promise<string> {
  const response = await guestRequest(endpoint, '/execute', {
    method: 'POST',
    json: { command, shell: true },
    timeoutMs: 120_000,
  });
  return (JSON.parse(response.body.toString()) as { output: string }).output;
}

async function screenshot(endpoint: GuestEndpoint): Promise<void> {
  const response = await guestRequest(endpoint, '/screenshot', { timeoutMs: 60_000 });
  if (response.status !== 200) throw new Error(`/screenshot answered ${response.status}`);
}

/** One walk of the idle desktop: its time, node count, and whether it was degraded (cut, failed). */
async function walk(
  endpoint: GuestEndpoint,
): Promise<{ ms: number; nodes: number; degraded: boolean }> {
  const [response, took] = await timed(() =>
    guestRequest(endpoint, '/accessibility', { timeoutMs: 60_000 }),
  );
  if (response.status !== 200) return { ms: took, nodes: 0, degraded: true };
  const xml = (JSON.parse(response.body.toString()) as { AT: string }).AT;
  return {
    ms: took,
    nodes: (xml.match(/<[a-z]/g) ?? []).length,
    degraded: response.headers['x-osharm-truncated'] !== undefined,
  };
}

/** CPU (cores, over 10 s) and proportional memory (MiB) of every process inside, after settling. */
async function idle(endpoint: GuestEndpoint): Promise<{ cpu: number; pssMb: number }> {
  const ticks = `cat /proc/[0-9]*/stat 2>/dev/null | awk '{t+=$14+$15} END {print t}'`;
  const output = await execute(
    endpoint,
    `sleep 10; a=$(${ticks}); sleep 10; b=$(${ticks}); ` +
      `p=$(cat /proc/[0-9]*/smaps_rollup 2>/dev/null | awk '/^Pss:/ {s+=$2} END {print s}'); ` +
      `echo "$a $b $p $(getconf CLK_TCK)"`,
  );
  const [a, b, pss, hz] = output.trim().split(/\s+/).map(Number);
  return { cpu: (b! - a!) / hz! / 10, pssMb: pss! / 1024 };
}

/** The desktop's start-up phases (guest: /run/osharm/start-phases), in ms after `since`. */
async function phases(endpoint: GuestEndpoint, since: number): Promise<Map<string, number>> {
  const response = await guestRequest(endpoint, '/file', {
    method: 'POST',
    body: {
      data: 'file_path=/run/osharm/start-phases',
      contentType: 'application/x-www-form-urlencoded',
    },
    timeoutMs: 10_000,
  });
  const marks = new Map<string, number>();
  if (response.status !== 200) return marks;
  for (const line of response.body.toString().split('\n')) {
    const [name, seconds] = line.trim().split(' ');
    if (name && Number.isFinite(Number(seconds))) marks.set(name, Number(seconds) * 1000 - since);
  }
  return marks;
}

interface Figures {
  phases: Map<string, number>[];
  warmRevert: number[];
  spareReady: number[];
  earlyRevert: number[];
  coldRevert: number[];
  start: number[];
  revert: number[];
  screenshot: number[];
  walk: number[];
  nodes: number[];
  cpu: number[];
  pss: number[];
  fallbacks: string[];
  parallelStart?: number;
  parallelFailed?: number;
  parallelDegraded?: number;
  parallelFallbacks?: number;
}
const figures = Object.fromEntries(
  shells.map(shell => [
    shell,
    {
      ...{ phases: [], warmRevert: [], spareReady: [], earlyRevert: [], coldRevert: [] },
      ...{ start: [], revert: [], screenshot: [], walk: [], nodes: [], cpu: [], pss: [] },
      fallbacks: [],
    },
  ]),
) as unknown as Record<Shell, Figures>;
const load: number[] = [];

/** Cold figures: no warm spare (every start and revert pays the whole start). */
async function oneDesktop(shell: Shell): Promise<void> {
  const provider = createLocalProvider({ shell, startTimeoutMs: 300_000, warmSpare: false });
  const f = figures[shell];
  try {
    const since = Date.now();
    const [endpoint, started] = await timed(async () => {
      const answered = await provider.start();
      await screenshot(answered);
      return answered;
    });
    f.start.push(started);
    const marks = await phases(endpoint, since);
    marks.set('host: answered + first screenshot', started);
    f.phases.push(marks);
    const fallback = provider.desktopShell()?.fallback;
    if (fallback) f.fallbacks.push(fallback);
    for (let i = 0; i < 5; i++) f.screenshot.push((await timed(() => screenshot(endpoint)))[1]);
    for (let i = 0; i < 3; i++) {
      const result = await walk(endpoint);
      f.walk.push(result.ms);
      f.nodes.push(result.nodes);
    }
    const usage = await idle(endpoint);
    f.cpu.push(usage.cpu);
    f.pss.push(usage.pssMb);
    f.revert.push((await timed(() => provider.revert()))[1]);
  } finally {
    await provider.stop();
  }
}

/** Until the provider's warm spare is ready (or failed); ms waited. */
async function spareReady(provider: ReturnType<typeof createLocalProvider>): Promise<number> {
  const started = performance.now();
  while (provider.spareStatus() === 'starting') await new Promise(done => setTimeout(done, 50));
  if (provider.spareStatus() !== 'ready') throw new Error('the warm spare failed to start');
  return performance.now() - started;
}

/**
 * A run's path with the warm spare (the provider's default): the first revert (a run's first
 * reset: cold, the spare starts after it), a revert once the spare is ready (a run at least that
 * long), and a revert right after the previous one (the spare still starting).
 */
async function warmPath(shell: Shell): Promise<void> {
  const provider = createLocalProvider({ shell, startTimeoutMs: 300_000 });
  const f = figures[shell];
  const revert = () =>
    timed(async () => {
      await screenshot(await provider.revert());
    });
  try {
    f.coldRevert.push((await revert())[1]);
    f.spareReady.push(await spareReady(provider));
    f.warmRevert.push((await revert())[1]);
    f.earlyRevert.push((await revert())[1]);
  } finally {
    await provider.stop();
  }
}

async function manyDesktops(shell: Shell): Promise<void> {
  const providers = Array.from({ length: parallel }, () =>
    createLocalProvider({ shell, startTimeoutMs: 300_000, warmSpare: false }),
  );
  const f = figures[shell];
  try {
    const [results, took] = await timed(() =>
      Promise.allSettled(
        providers.map(async provider => {
          const endpoint = await provider.start();
          await screenshot(endpoint);
          const result = await walk(endpoint);
          return { degraded: result.degraded, fallback: provider.desktopShell()?.fallback ?? null };
        }),
      ),
    );
    f.parallelStart = took;
    f.parallelFailed = results.filter(result => result.status === 'rejected').length;
    const done = results.flatMap(result => (result.status === 'fulfilled' ? [result.value] : []));
    f.parallelDegraded = done.filter(result => result.degraded).length;
    f.parallelFallbacks = done.filter(result => result.fallback !== null).length;
  } finally {
    await Promise.all(providers.map(provider => provider.stop()));
  }
}

for (let run = 0; run < runs; run++) {
  for (const shell of shells) {
    load.push(loadavg()[0]!);
    await oneDesktop(shell);
    load.push(loadavg()[0]!);
    await warmPath(shell);
  }
}
for (const shell of shells) {
  load.push(loadavg()[0]!);
  await manyDesktops(shell);
}
load.push(loadavg()[0]!);

const row = (label: string, cell: (f: Figures) => string) =>
  `| ${label} | ${shells.map(shell => cell(figures[shell])).join(' | ')} |`;
console.log(`| median of ${runs} run(s) | ${shells.join(' | ')} |`);
console.log(`| --- | ${shells.map(() => '---').join(' | ')} |`);
console.log(row('cold: start → first screenshot', f => ms(median(f.start))));
console.log(row('cold: revert → answering', f => ms(median(f.revert))));
console.log(row('warm spare: first revert → screenshot (cold)', f => ms(median(f.coldRevert))));
console.log(row('warm spare: the spare ready after', f => ms(median(f.spareReady))));
console.log(row('warm spare: revert → screenshot, spare ready', f => ms(median(f.warmRevert))));
console.log(row('warm spare: revert → screenshot, spare starting', f => ms(median(f.earlyRevert))));
console.log(row('screenshot', f => ms(median(f.screenshot))));
console.log(
  row('accessibility walk, idle desktop', f => `${ms(median(f.walk))} (${median(f.nodes)} nodes)`),
);
console.log(row('idle CPU (10 s)', f => `${(median(f.cpu) * 100).toFixed(1)} % of a core`));
console.log(row('idle memory (PSS, all processes)', f => `${Math.round(median(f.pss))} MiB`));
console.log(
  row(
    `${parallel} desktops at once: all answered + screenshot + walk`,
    f =>
      `${ms(f.parallelStart ?? NaN)}; ${f.parallelFailed} failed, ${f.parallelDegraded} degraded, ${f.parallelFallbacks} fell back`,
  ),
);
console.log(row('fallbacks in the single runs', f => String(f.fallbacks.length)));
console.log(
  `load average (1 min) during the run: ${load.map(value => value.toFixed(1)).join(', ')} on ` +
    `${(await import('node:os')).cpus().length} cores`,
);
// Where a cold start goes: each phase's median time after the host's start() call.
const phaseNames = [
  ...new Set(shells.flatMap(shell => figures[shell].phases.flatMap(m => [...m.keys()]))),
];
const phaseAt = (f: Figures, name: string) =>
  median(f.phases.flatMap(marks => (marks.has(name) ? [marks.get(name)!] : [])));
const order = (name: string) => {
  const gnome = phaseAt(figures['gnome-shell'], name);
  return Number.isFinite(gnome) ? gnome : phaseAt(figures.openbox, name);
};
phaseNames.sort((a, b) => order(a) - order(b));
console.log(`\n| cold start phase (median ms after start()) | ${shells.join(' | ')} |`);
console.log(`| --- | ${shells.map(() => '---').join(' | ')} |`);
for (const name of phaseNames) console.log(row(name, f => ms(phaseAt(f, name))));
for (const shell of shells)
  for (const reason of new Set(figures[shell].fallbacks))
    console.log(`${shell} fallback: ${reason}`);
