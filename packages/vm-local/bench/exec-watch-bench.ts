// The exec watch's cost per step (docs/packages/harm.md "The exec and connection watch"): local
// desktops of the same kind side by side, one per mode — without the watch (OSHARM_EXEC_WATCH=0),
// with it (=1: the C supervisor when built), with the Python supervisor (=python) — take the same
// steps in turn — an agent's `/execute` (a shell that starts a few programs, one through sudo, and
// a connection attempt) followed by the harm observer's `/harm/mark`. Prints, per mode and round,
// the median step time and the difference to mode 0 (ms and % of the step); the CPU per step of
// each desktop's guest server and supervisor; the load average before and after; and the verdict
// against the target (#25: the watch adds ≤ 5 % to a step): PASS / FAIL on the median over
// all rounds, with the rounds' own figures beside it (rounds that disagree say the machine does
// not resolve the difference).
// Run: pnpm --filter @osharm/vm-local bench:exec-watch [-- --steps 30 --rounds 3 --shell openbox --modes 0,1,python]
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { guestRequest } from '@osharm/desktop-guest';
import type { GuestEndpoint } from '@osharm/desktop-env';
import { createLocalProvider } from '../dist/index.js';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '30' },
    rounds: { type: 'string', default: '3' },
    shell: { type: 'string', default: 'openbox' },
    modes: { type: 'string', default: '0,1' },
    warmup: { type: 'string', default: '3' },
    target: { type: 'string', default: '5' },
  },
});
const [steps, rounds, target] = [
  Number(values.steps),
  Number(values.rounds),
  Number(values.target),
];
const shell = values.shell === 'gnome-shell' ? 'gnome-shell' : 'openbox';
const modes = values.modes.split(',');
if (![steps, rounds].every(value => Number.isInteger(value) && value >= 1)) {
  console.error('exec-watch-bench: --steps and --rounds must be positive integers');
  process.exit(2);
}

// A step as an agent's shell action: 7 programs (one through sudo) and a TCP attempt closed at once.
const command = [
  'ls -la ~ >/dev/null',
  'for i in 1 2 3; do /bin/true; done',
  'echo password | sudo -S -p "" id -u >/dev/null',
  'python3 -c "import socket; s=socket.socket(); s.settimeout(0.01); s.connect_ex((\'10.1.2.3\',80))"',
].join('; ');

const supervisorPattern = /exec_watch\.py\0supervise|osharm-exec-watch\0supervise/;
const serverPattern = /guest-server-bin\.js/;

/** The pids of the processes whose command line matches. */
function pidsOf(pattern: RegExp): Set<number> {
  const found = new Set<number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (pattern.test(readFileSync(`/proc/${name}/cmdline`, 'utf8'))) found.add(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** CPU seconds (user + system) of these processes so far. */
function cpuOf(pids: Iterable<number>): number {
  let total = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
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
  const [servers, supervisors] = [pidsOf(serverPattern), pidsOf(supervisorPattern)];
  const provider = createLocalProvider({ shell, warmSpare: false, startTimeoutMs: 300_000 });
  const endpoint = await provider.start();
  const baseline = (await call(endpoint, '/harm/baseline', {})) as {
    coverage: { exec_watch?: string | null };
  };
  // This desktop's own guest server and supervisor: the ones that were not there before its start.
  const server = [...pidsOf(serverPattern)].filter(pid => !servers.has(pid));
  const supervisor = [...pidsOf(supervisorPattern)].filter(pid => !supervisors.has(pid));
  return { provider, endpoint, coverage: baseline.coverage.exec_watch ?? null, server, supervisor };
}

const median = (list: number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const load = () =>
  loadavg()
    .map(value => value.toFixed(2))
    .join(' ');

interface Side {
  readonly mode: string;
  /** Step times per round. */
  readonly times: number[][];
  readonly marks: number[];
  processes: number;
  serverCpu: number;
  supervisorCpu: number;
  readonly side: Awaited<ReturnType<typeof desktop>>;
}

const loadBefore = load();
const sides: Side[] = [];
try {
  for (const mode of modes) {
    const side = await desktop(mode);
    sides.push({ mode, times: [], marks: [], processes: 0, serverCpu: 0, supervisorCpu: 0, side });
  }
  // Warm-up steps, not counted: the desktop started last is still settling at first.
  let index = 1;
  for (; index <= Number(values.warmup); index++)
    for (const { side } of sides) await step(side.endpoint, index);
  for (let round = 0; round < rounds; round++) {
    for (const entry of sides) entry.times.push([]);
    for (let count = 0; count < steps; count++, index++) {
      // Rotating which goes first, so drift in the machine's load hits every mode alike.
      for (let at = 0; at < sides.length; at++) {
        const entry = sides[(at + index) % sides.length]!;
        const [server, supervisor] = [cpuOf(entry.side.server), cpuOf(entry.side.supervisor)];
        const [took, mark, processes] = await step(entry.side.endpoint, index);
        entry.serverCpu += cpuOf(entry.side.server) - server;
        entry.supervisorCpu += cpuOf(entry.side.supervisor) - supervisor;
        entry.times[round]!.push(took);
        entry.marks.push(mark);
        entry.processes += processes;
      }
    }
  }
} finally {
  for (const { side } of sides) await side.provider.stop();
}
const loadAfter = load();
const all = steps * rounds;
console.log(
  `exec watch per step (${shell}, ${rounds} round(s) of ${steps} steps per mode, in turn)`,
);
console.log(`  step = /execute of: ${command}  + /harm/mark`);
const reference = sides.find(entry => entry.mode === '0');
const verdicts: string[] = [];
for (const entry of sides) {
  const { mode, times, marks, side } = entry;
  const overall = median(times.flat());
  const perRound = times.map(median);
  let versus = '';
  if (reference && reference !== entry) {
    const base = median(reference.times.flat());
    const rise = ((overall - base) / base) * 100;
    const roundPercents = perRound.map((value, at) => {
      const own = median(reference.times[at]!);
      return [value - own, ((value - own) / own) * 100] as const;
    });
    const roundRises = roundPercents.map(
      ([ms, percent]) => `${ms.toFixed(1)} ms (${percent.toFixed(1)} %)`,
    );
    versus = `\n    − mode 0: median ${(overall - base).toFixed(1)} ms (${rise.toFixed(1)} %); per round ${roundRises.join(', ')}`;
    const above = roundPercents.filter(([, percent]) => percent > target).length;
    const split =
      above > 0 && above < rounds
        ? `; ${above} of ${rounds} rounds above it: the rounds disagree, the machine does not resolve the difference at this load`
        : '';
    verdicts.push(
      `OSHARM_EXEC_WATCH=${mode}: ${rise <= target ? 'PASS' : 'FAIL'} (${rise.toFixed(1)} % against ≤ ${target} %${split})`,
    );
  }
  const cpu = (seconds: number) => `${((seconds * 1000) / all).toFixed(1)} ms`;
  console.log(
    `  OSHARM_EXEC_WATCH=${mode} (${side.coverage ?? 'no watch'}): median ${overall.toFixed(1)} ms (rounds ${perRound.map(value => value.toFixed(1)).join(', ')}; its mark ${median(marks).toFixed(1)} ms; ${(entry.processes / all).toFixed(1)} processes recorded per step); CPU per step: guest server ${cpu(entry.serverCpu)}, supervisor ${side.supervisor.length ? cpu(entry.supervisorCpu) : '–'}${versus}`,
  );
}
console.log(`  load average before: ${loadBefore}; after: ${loadAfter}`);
for (const verdict of verdicts) console.log(`  ${verdict}`);
