// The harm observer's cost: the same scripted run (offline-replay of the delete / cron / chmod
// script on the upstream task ___revoke_permissions) with the observer off, on without the exec
// watch (OSHARM_EXEC_WATCH=0: the /proc poll only), and on with it (the default), in turn.
// Prints per run: wall time, the time the run waited for the observer (observed_harm.json
// coverage.observer_ms_total), the guest server's CPU time and peak RSS (read from the host's /proc:
// the observer lives in the guest server), and the difference on − off. Nothing is asserted.
// Run (after building apps/cli): node --experimental-strip-types apps/cli/bench/harm-bench.ts [--repeats 2]
//   [--dataset ../shared/osharm-dataset/evaluation_examples]
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runCli } from '../dist/program.js';

const { values } = parseArgs({
  options: {
    repeats: { type: 'string', default: '2' },
    dataset: { type: 'string' },
  },
});
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const dataset = resolve(
  values.dataset ?? join(repoRoot, '..', 'shared', 'osharm-dataset', 'evaluation_examples'),
);
const script = join(repoRoot, 'apps/cli/src/commands/__fixtures__/harm-scripts/delete-cron-chmod');
const ticks = 100; // USER_HZ

/** The guest servers (and exec watch supervisors) running now: pid → [cpu seconds, rss KiB]. */
function guestServers(
  marker: string | RegExp = 'guest-server-bin.js',
): Map<number, [number, number]> {
  const found = new Map<number, [number, number]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (typeof marker === 'string' ? !cmdline.includes(marker) : !marker.test(cmdline)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cpu = (Number(fields[11]) + Number(fields[12])) / ticks;
      const rss = Number(
        /^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1],
      );
      found.set(Number(name), [cpu, rss]);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

type Mode = 'off' | 'poll' | 'on';

interface Sample {
  mode: Mode;
  watchCpuS: number;
  watchRssMiB: number;
  wallS: number;
  observerMs: number | null;
  cpuS: number;
  rssMiB: number;
  load: number;
}

async function once(mode: Mode, tmp: string, index: number): Promise<Sample> {
  const results = join(tmp, `${mode}-${index}`);
  // The desktop's start reads it (vm-local's local-sandbox.ts).
  process.env.OSHARM_EXEC_WATCH = mode === 'on' ? '1' : '0';
  const seen = new Map<number, [number, number]>();
  const watchSeen = new Map<number, number>();
  let watchRss = 0;
  const poll = setInterval(() => {
    for (const [pid, [cpu, rss]] of guestServers()) {
      const before = seen.get(pid);
      seen.set(pid, [Math.max(cpu, before?.[0] ?? 0), Math.max(rss, before?.[1] ?? 0)]);
    }
    for (const [pid, [cpu, rss]] of guestServers(/(exec_watch\.py|osharm-exec-watch)\0supervise/)) {
      watchSeen.set(pid, Math.max(cpu, watchSeen.get(pid) ?? 0));
      watchRss = Math.max(watchRss, rss);
    }
  }, 100);
  const started = performance.now();
  const out: string[] = [];
  const code = await runCli(
    [
      'run',
      '--model',
      `offline-replay:${script}`,
      '--judge-model',
      'none',
      '--settle',
      '0.5',
      '--no-recording',
      ...(mode === 'off' ? ['--no-observe-harm'] : []),
      '--result-dir',
      results,
      '--test-config-base-dir',
      dataset,
      '--test-all-meta-path',
      join(dataset, 'test_misbehavior.json'),
      '--task',
      '___revoke_permissions',
    ],
    {
      cwd: repoRoot,
      env: process.env,
      stdout: text => out.push(text),
      stderr: text => out.push(text),
      isTTY: false,
    },
  );
  const wallS = (performance.now() - started) / 1000;
  clearInterval(poll);
  if (code !== 0) throw new Error(`run ${mode} exited ${code}: ${out.join('')}`);
  let observerMs: number | null = null;
  if (mode !== 'off') {
    const record = JSON.parse(
      readFileSync(
        join(
          results,
          'pyautogui/a11y_tree/offline-replay/os/___revoke_permissions/observed_harm.json',
        ),
        'utf8',
      ),
    ) as { coverage: { observer_ms_total: number } | null };
    observerMs = record.coverage?.observer_ms_total ?? null;
  }
  const [cpuS, rssKiB] = [...seen.values()].reduce(
    ([cpu, rss], [c, r]) => [cpu + c, Math.max(rss, r)],
    [0, 0],
  );
  const watchCpuS = [...watchSeen.values()].reduce((a, b) => a + b, 0);
  return {
    mode,
    wallS,
    observerMs,
    cpuS,
    watchCpuS,
    watchRssMiB: watchRss / 1024,
    rssMiB: rssKiB / 1024,
    load: loadavg()[0]!,
  };
}

const tmp = await mkdtemp(join(tmpdir(), 'osharm-harm-bench-'));
const samples: Sample[] = [];
try {
  for (let index = 0; index < Number(values.repeats); index += 1) {
    for (const mode of ['off', 'poll', 'on'] as const) {
      const sample = await once(mode, tmp, index);
      samples.push(sample);
      console.log(
        `${mode.padEnd(4)} wall ${sample.wallS.toFixed(1)} s, waited for observer ${sample.observerMs ?? '-'} ms, guest server cpu ${sample.cpuS.toFixed(2)} s, exec watch cpu ${sample.watchCpuS.toFixed(2)} s and peak rss ${sample.watchRssMiB.toFixed(1)} MiB, guest server peak rss ${sample.rssMiB.toFixed(1)} MiB (load ${sample.load.toFixed(1)})`,
      );
    }
  }
} finally {
  await rm(tmp, { recursive: true, force: true });
}
const mean = (mode: Mode, key: 'wallS' | 'cpuS' | 'rssMiB' | 'watchCpuS') => {
  const list = samples.filter(sample => sample.mode === mode).map(sample => sample[key]);
  return list.reduce((a, b) => a + b, 0) / list.length;
};
const on = samples.filter(sample => sample.mode === 'on');
const waited = on.reduce((sum, sample) => sum + (sample.observerMs ?? 0), 0) / on.length / 1000;
console.log(
  `\nmeans: wall off ${mean('off', 'wallS').toFixed(1)} s, on ${mean('on', 'wallS').toFixed(1)} s; waited for the observer ${waited.toFixed(2)} s = ${((100 * waited) / mean('on', 'wallS')).toFixed(1)} % of the run; guest server cpu +${(mean('on', 'cpuS') - mean('off', 'cpuS')).toFixed(2)} s; peak rss off ${mean('off', 'rssMiB').toFixed(1)} MiB, on ${mean('on', 'rssMiB').toFixed(1)} MiB (+${(mean('on', 'rssMiB') - mean('off', 'rssMiB')).toFixed(1)} MiB)`,
);
console.log(
  `exec watch (on vs poll): wall ${mean('poll', 'wallS').toFixed(1)} → ${mean('on', 'wallS').toFixed(1)} s (${((100 * (mean('on', 'wallS') - mean('poll', 'wallS'))) / mean('poll', 'wallS')).toFixed(1)} %); its supervisor ${mean('on', 'watchCpuS').toFixed(2)} s cpu per run, guest server cpu ${mean('poll', 'cpuS').toFixed(2)} → ${mean('on', 'cpuS').toFixed(2)} s`,
);
