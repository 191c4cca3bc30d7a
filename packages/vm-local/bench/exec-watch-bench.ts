// The exec watch's cost per step (docs/packages/harm.md "The exec and connection watch"): local
// desktops of the same kind side by side, one per mode — without the watch (OSHARM_EXEC_WATCH=0),
// with it (=1: the C supervisor when built), with the Python supervisor (=python) — take the same
// steps in turn — an agent's `/execute` (a shell that starts a few
// programs and a connection attempt) followed by the harm observer's `/harm/mark`. Prints, per mode,
// the median and mean step time and the difference to mode 0 (ms and % of the step), the watch's
// supervisors' CPU per exec (all watched desktops together), and the load average before and after.
// Nothing is asserted.
// Run: pnpm --filter @osharm/vm-local bench:exec-watch [-- --steps 30 --shell openbox --modes 0,1,python]
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
    modes: { type: 'string', default: '0,1' },
    warmup: { type: 'string', default: '3' },
  },
});
const steps = Number(values.steps);
const shell = values.shell === 'gnome-shell' ? 'gnome-shell' : 'openbox';
const modes = values.modes.split(',');
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

/** One step: its time, the time of its `/harm/mark` alone, and the processes the mark recorded. */
async function step(endpoint: GuestEndpoint, index: number): Promise<[number, number, number]> {
  const started = performance.now();
  await call(endpoint, '/execute', { command, shell: true });
  const marked = performance.now();
  const mark = (await call(endpoint, '/harm/mark', { step: index })) as { processes: unknown[] };
  const ended = performance.now();
  return [ended - started, ended - marked, mark.processes.length];
}

async function desktop(watch: string) {
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
const sides: {
  mode: string;
  times: number[];
  marks: number[];
  processes: number;
  side: Awaited<ReturnType<typeof desktop>>;
}[] = [];
let cpu: number;
try {
  for (const mode of modes)
    sides.push({ mode, times: [], marks: [], processes: 0, side: await desktop(mode) });
  // Warm-up steps, not counted: the desktop started last is still settling at first.
  for (let index = 1; index <= Number(values.warmup); index++)
    for (const { side } of sides) await step(side.endpoint, index);
  const cpuBefore = supervisorCpu();
  const first = Number(values.warmup) + 1;
  for (let index = first; index < steps + first; index++) {
    // Rotating which goes first, so drift in the machine's load hits every mode alike.
    for (let at = 0; at < sides.length; at++) {
      const entry = sides[(at + index) % sides.length]!;
      const [took, mark, processes] = await step(entry.side.endpoint, index);
      entry.times.push(took);
      entry.marks.push(mark);
      entry.processes += processes;
    }
  }
  cpu = supervisorCpu() - cpuBefore;
} finally {
  for (const { side } of sides) await side.provider.stop();
}
console.log(`exec watch per step (${shell}, ${steps} steps per mode, in turn)`);
console.log(`  step = /execute of: ${command}  + /harm/mark`);
const reference = sides.find(entry => entry.mode === '0');
for (const { mode, times, marks, processes, side } of sides) {
  const [middle, average] = [median(times), mean(times)];
  const versus =
    reference && reference.mode !== mode
      ? (() => {
          const [m0, a0] = [median(reference.times), mean(reference.times)];
          return `; − mode 0: median ${(middle - m0).toFixed(1)} ms (${(((middle - m0) / m0) * 100).toFixed(1)} %), mean ${(average - a0).toFixed(1)} ms (${(((average - a0) / a0) * 100).toFixed(1)} %)`;
        })()
      : '';
  console.log(
    `  OSHARM_EXEC_WATCH=${mode} (${side.coverage ?? 'no watch'}): median ${middle.toFixed(1)} ms (its mark ${median(marks).toFixed(1)} ms; ${(processes / steps).toFixed(1)} processes recorded per step), mean ${average.toFixed(1)} ms${versus}`,
  );
}
const execs = sides
  .filter(entry => entry.side.coverage !== null)
  .reduce((sum, entry) => sum + entry.processes, 0);
console.log(
  `  supervisors' CPU over the measured steps: ${cpu.toFixed(2)} s (≈ ${execs ? ((cpu * 1000) / execs).toFixed(2) : '–'} ms per recorded process of the watched desktops)`,
);
console.log(`  load average before: ${loadBefore}; after: ${load()}`);
