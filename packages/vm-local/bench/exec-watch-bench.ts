// The exec watch's cost per step (docs/packages/harm.md "The exec and connection watch"): two local
// desktops of the same kind side by side, one with the watch (OSHARM_EXEC_WATCH=1) and one without
// (=0), take the same steps in alternation — an agent's `/execute` (a shell that starts a few
// programs and a connection attempt) followed by the harm observer's `/harm/mark`. Prints, per mode,
// the median and mean step time, the difference on − off (ms and % of the step), the watch's
// supervisors' CPU per exec, and the load average before and after. Nothing is asserted.
// Run: pnpm --filter @osharm/vm-local bench:exec-watch [-- --steps 30 --shell openbox]
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { guestRequest } from '@osharm/desktop-guest';
import type { GuestEndpoint } from '@osharm/desktop-env';
import { createLocalProvider } from '../dist/index.js';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '30' },
    shell: { type: 'string', default: 'openbox' },
  },
});
const steps = Number(values.steps);
const shell = values.shell === 'gnome-shell' ? 'gnome-shell' : 'openbox';
if (!Number.isInteger(steps) || steps < 1) {
  console.error('exec-watch-bench: --steps must be a positive integer');
  process.exit(2);
}

// A step as an agent's shell action: 7 programs (one through sudo) and a TCP attempt closed at once.
const command = [
  'ls -la ~ >/dev/null',
  'for i in 1 2 3; do /bin/true; done',
  'echo password | sudo -S -p "" id -u >/dev/null',
  'python3 -c "import socket; s=socket.socket(); s.settimeout(0.01); s.connect_ex((\'10.1.2.3\',80))"',
].join('; ');
const execsPerStep = 8; // sh, ls, 3 × true, sudo's id (sudo's own bash and helpers come on top), python3

/** CPU seconds of the exec watch's supervisors running now (C helper or Python fallback). */
function supervisorCpu(): number {
  let total = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (!/exec_watch\.py\0supervise|osharm-exec-watch/.test(cmdline)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

async function call(endpoint: GuestEndpoint, path: string, json: unknown): Promise<unknown> {
  const response = await guestRequest(endpoint, path, { method: 'POST', json, timeoutMs: 120_000 });
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
  return JSON.parse(response.body.toString()) as unknown;
}

async function step(endpoint: GuestEndpoint, index: number): Promise<number> {
  const started = performance.now();
  await call(endpoint, '/execute', { command, shell: true });
  await call(endpoint, '/harm/mark', { step: index });
  return performance.now() - started;
}

async function desktop(watch: '0' | '1') {
  // The desktop's start reads it (local-sandbox.ts).
  process.env.OSHARM_EXEC_WATCH = watch;
  const provider = createLocalProvider({ shell, warmSpare: false, startTimeoutMs: 300_000 });
  const endpoint = await provider.start();
  const baseline = (await call(endpoint, '/harm/baseline', {})) as {
    coverage: { exec_watch?: string | null };
  };
  return { provider, endpoint, coverage: baseline.coverage.exec_watch ?? null };
}

const median = (list: number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const mean = (list: number[]) => list.reduce((sum, value) => sum + value, 0) / list.length;
const load = () =>
  loadavg()
    .map(value => value.toFixed(2))
    .join(' ');

const loadBefore = load();
const on = await desktop('1');
const off = await desktop('0');
if (on.coverage === null)
  console.warn('exec-watch-bench: the watched desktop reports no exec watch');
if (off.coverage !== null) console.warn('exec-watch-bench: the unwatched desktop reports a watch');
const times = { on: [] as number[], off: [] as number[] };
let cpu = 0;
try {
  // One warm-up step each, not counted.
  await step(on.endpoint, 1);
  await step(off.endpoint, 1);
  const cpuBefore = supervisorCpu();
  for (let index = 2; index < steps + 2; index++) {
    // Alternating which goes first, so drift in the machine's load hits both alike.
    const order = index % 2 ? ([on, off] as const) : ([off, on] as const);
    for (const side of order) {
      const took = await step(side.endpoint, index);
      (side === on ? times.on : times.off).push(took);
    }
  }
  cpu = supervisorCpu() - cpuBefore;
} finally {
  await on.provider.stop();
  await off.provider.stop();
}
const [medianOn, medianOff] = [median(times.on), median(times.off)];
const [meanOn, meanOff] = [mean(times.on), mean(times.off)];
console.log(
  `exec watch per step (${shell}, ${steps} steps each, alternating; watch: ${on.coverage})`,
);
console.log(`  step = /execute of: ${command}  + /harm/mark`);
console.log(`  off: median ${medianOff.toFixed(1)} ms, mean ${meanOff.toFixed(1)} ms`);
console.log(`  on:  median ${medianOn.toFixed(1)} ms, mean ${meanOn.toFixed(1)} ms`);
console.log(
  `  on − off: median ${(medianOn - medianOff).toFixed(1)} ms (${(((medianOn - medianOff) / medianOff) * 100).toFixed(1)} %), mean ${(meanOn - meanOff).toFixed(1)} ms (${(((meanOn - meanOff) / meanOff) * 100).toFixed(1)} %)`,
);
console.log(
  `  supervisors' CPU over the measured steps: ${cpu.toFixed(2)} s (≈ ${((cpu * 1000) / (steps * execsPerStep)).toFixed(2)} ms per counted exec, sudo's helpers uncounted)`,
);
console.log(`  load average before: ${loadBefore}; after: ${load()}`);
