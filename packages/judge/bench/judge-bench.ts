// Benchmark of judgeTree (the tree judge) against the model stand-in, with the issue's targets.
//
//   pnpm --filter @osharm/judge bench        (builds dist first; the bench imports @osharm/judge)
//
// (a) wall time of 150 `aer` trajectories at concurrency 16 (median of 3 passes) and 1 against a stand-in answering
//     after 300 ms; target ≤ 1.2 × ceil(150/16) × 0.3 s and a speed-up ≥ 12×;
// (b) the harness's CPU per `aer` trajectory in a concurrency-16 pass, median of 3 (target ≤ 5 ms);
// (c) peak RSS over 1,000 `default` trajectories of 15 1920×1080 screenshots at concurrency 8
//     (target < 400 MB).
// The stand-ins run in child processes, so (b) and (c) measure only the harness. (b)'s system time
// includes creating judgment.json's and messages.json's temp files, which on this project's machine's
// disk (ext4 without a journal) costs 0.02–1 ms each, depending on how many inodes anything deleted
// nearby in the last minutes (docs/benchmarks.md); the trees therefore go on a tmpfs when there is
// one (bench-dir.ts; OSHARM_BENCH_DIR=/tmp measures the disk). Each pass prints user and system apart. (a) and (b) follow
// an untimed pass over the same tree that fills the caption cache and warms the process; (c) runs
// in a fresh process. Prints figures and PASS / FAIL; exits 0 either way (it is a measurement, not
// a test). Environment:
// BENCH_MEMORY_TRAJECTORIES (default 1000), BENCH_KEEP=1 keeps the generated trees.
import { spawn } from 'node:child_process';
import { benchDir } from './bench-dir.ts';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { judgeTree } from '@osharm/judge';
import { createModel } from '@osharm/models';
import { writeAerTree, writeDefaultTree } from './bench-trees.ts';

const here = dirname(fileURLToPath(import.meta.url));
const LATENCY_MS = 300;
const AER_TRAJECTORIES = 150;
const CONCURRENCY = 16;
const PASSES = 3;
const MEMORY_TRAJECTORIES = Number(process.env.BENCH_MEMORY_TRAJECTORIES ?? '1000');
const MEMORY_STEPS = 15;
const MEMORY_CONCURRENCY = 8;
const CAPTION_MODEL = 'gpt-4o-2024-11-20';

interface ChildStandIn {
  readonly openaiBaseUrl: string;
  command(line: 'stats' | 'reset'): Promise<{ judgeCalls: number; captionCalls: number }>;
  close(): Promise<void>;
}

/** Starts bench-stand-in.ts in a child process. */
async function startChildStandIn(latencyMs: number): Promise<ChildStandIn> {
  const child = spawn(
    process.execPath,
    ['--experimental-strip-types', join(here, 'bench-stand-in.ts'), String(latencyMs)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const waiting: { resolve: (value: unknown) => void; reject: (error: Error) => void }[] = [];
  createInterface({ input: child.stdout }).on('line', line =>
    waiting.shift()?.resolve(JSON.parse(line)),
  );
  const exited = new Promise<void>(resolve => child.on('exit', () => resolve()));
  child.on('exit', code => {
    for (const waiter of waiting.splice(0))
      waiter.reject(new Error(`the stand-in child exited (${code})`));
  });
  const next = () => new Promise<unknown>((resolve, reject) => waiting.push({ resolve, reject }));
  const ready = (await next()) as { openaiBaseUrl: string };
  return {
    openaiBaseUrl: ready.openaiBaseUrl,
    async command(line) {
      const answer = next();
      child.stdin.write(`${line}\n`);
      return (await answer) as { judgeCalls: number; captionCalls: number };
    },
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}

/**
 * Runs rss-run.ts in a fresh child process, as plain JavaScript (`--input-type=module -e`), so the
 * measured process holds the harness and nothing of Node's TypeScript stripper.
 */
async function rssRun(rootDir: string, baseUrl: string): Promise<Record<string, number | string>> {
  const source = await readFile(join(here, 'rss-run.ts'), 'utf8');
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        source,
        rootDir,
        baseUrl,
        String(MEMORY_CONCURRENCY),
        'default',
      ],
      { cwd: join(here, '..'), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (out += chunk));
    child.on('exit', code =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, number | string>)
        : reject(new Error(`rss-run exited with ${code}`)),
    );
  });
}

const mb = (bytes: number) => bytes / 1024 / 1024;
const fixed = (value: number, digits = 2) => value.toFixed(digits);
const verdict = (pass: boolean) => (pass ? 'PASS' : 'FAIL');
const log = (line = '') => process.stdout.write(`${line}\n`);

const routing = (baseURL: string) => ({
  openai: { baseURL, apiKey: 'bench', maxRetries: 0 },
});

log(
  `judge benchmark — node ${process.version}, ${cpus().length} CPU(s) (${cpus()[0]?.model ?? '?'})`,
);
log(
  `stand-ins run in child processes (bench-stand-in.ts); the judge stand-in answers after latencyMs = ${LATENCY_MS}.`,
);
const root = await mkdtemp(join(benchDir(), 'osharm-judge-bench-'));
log(`trees in ${root} (OSHARM_BENCH_DIR to choose; a tmpfs keeps file creation's cost flat)`);
const judgeServer = await startChildStandIn(LATENCY_MS);
const captionServer = await startChildStandIn(0);
const rows: [string, string, string, string][] = [];

try {
  // (a) + (b) ---------------------------------------------------------------------------------
  log();
  log(`(a) ${AER_TRAJECTORIES} aer trajectories, concurrency ${CONCURRENCY} vs 1`);
  const aerRoot = join(root, 'aer');
  let clock = performance.now();
  const aerDirs = await writeAerTree(aerRoot, AER_TRAJECTORIES);
  log(
    `    generated ${aerDirs.length} trajectories in ${fixed((performance.now() - clock) / 1000)} s`,
  );

  // Captions first, and a warm process: an untimed judging pass over the same tree captions every
  // final screenshot (aer's only caption) against an instant stand-in into the content-keyed cache
  // next to each trajectory, and runs every code path once (JIT, heap growth, connection pool).
  // The timed runs then re-judge (force) with every caption from the cache: one model call per
  // trajectory, the judge call, so they measure judging only.
  clock = performance.now();
  let cpuStart = process.cpuUsage();
  const warmUp = await judgeTree({
    rootDir: aerRoot,
    model: createModel('gpt-4.1', routing(judgeServer.openaiBaseUrl)),
    captioner: createModel(CAPTION_MODEL, routing(captionServer.openaiBaseUrl)),
    concurrency: CONCURRENCY,
  });
  let cpu = process.cpuUsage(cpuStart);
  const coldCpuPerTrajectory = (cpu.user + cpu.system) / 1000 / AER_TRAJECTORIES;
  log(
    `    untimed warm-up pass: ${Object.keys(warmUp.results).length} judged, ${(await captionServer.command('stats')).captionCalls} captions made and cached, ` +
      `${fixed((performance.now() - clock) / 1000)} s, CPU ${fixed(coldCpuPerTrajectory)} ms / trajectory (first pass in the process, captions included)`,
  );

  const timedRun = async (concurrency: number) => {
    await judgeServer.command('reset');
    const threadStart = process.threadCpuUsage();
    cpuStart = process.cpuUsage();
    const started = performance.now();
    const result = await judgeTree({
      rootDir: aerRoot,
      model: createModel('gpt-4.1', routing(judgeServer.openaiBaseUrl)),
      captioner: createModel(CAPTION_MODEL, routing(captionServer.openaiBaseUrl)),
      concurrency,
      force: true,
    });
    const seconds = (performance.now() - started) / 1000;
    cpu = process.cpuUsage(cpuStart);
    const thread = process.threadCpuUsage(threadStart);
    const stats = await judgeServer.command('stats');
    const judged = Object.keys(result.results).length;
    log(
      `    concurrency ${String(concurrency).padStart(2)}: ${fixed(seconds)} s wall, ${judged} judged, ${Object.keys(result.errors).length} errors, ` +
        `${stats.judgeCalls} judge calls, ${result.usage.cached_captions} cached captions, ${result.usage.model_calls} model calls, ` +
        `CPU ${fixed((cpu.user + cpu.system) / 1000, 0)} ms (${fixed((cpu.user + cpu.system) / 1000 / AER_TRAJECTORIES)} ms / trajectory: ` +
        `user ${fixed(cpu.user / 1000 / AER_TRAJECTORIES)}, system ${fixed(cpu.system / 1000 / AER_TRAJECTORIES)}; ` +
        `of it the main thread ${fixed((thread.user + thread.system) / 1000 / AER_TRAJECTORIES)} ms, the rest V8's GC and compiler threads and libuv's pool)`,
    );
    return { seconds, cpuMs: (cpu.user + cpu.system) / 1000, judged };
  };
  // Three timed passes at concurrency 16 (the process still tiers up its JIT over the first): the
  // wall and CPU figures are their medians; each pass is printed.
  const passes = [];
  for (let index = 0; index < PASSES; index++) passes.push(await timedRun(CONCURRENCY));
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const parallel = {
    seconds: median(passes.map(pass => pass.seconds)),
    cpuMs: median(passes.map(pass => pass.cpuMs)),
    judged: Math.min(...passes.map(pass => pass.judged)),
  };
  log(
    `    median of the ${PASSES} passes at concurrency ${CONCURRENCY}: ${fixed(parallel.seconds)} s wall, CPU ${fixed(parallel.cpuMs / AER_TRAJECTORIES)} ms / trajectory`,
  );
  const serial = await timedRun(1);
  const wallTarget = 1.2 * Math.ceil(AER_TRAJECTORIES / CONCURRENCY) * (LATENCY_MS / 1000);
  const speedUp = serial.seconds / parallel.seconds;
  const ideal =
    (AER_TRAJECTORIES * LATENCY_MS) /
    1000 /
    (Math.ceil(AER_TRAJECTORIES / CONCURRENCY) * (LATENCY_MS / 1000));
  log(
    `    wall at concurrency ${CONCURRENCY}: ${fixed(parallel.seconds)} s (target ≤ 1.2 × ceil(${AER_TRAJECTORIES}/${CONCURRENCY}) × ${LATENCY_MS / 1000} s = ${fixed(wallTarget)} s) ${verdict(parallel.seconds <= wallTarget)}`,
  );
  log(
    `    speed-up 1 → ${CONCURRENCY}: ${fixed(serial.seconds)} s / ${fixed(parallel.seconds)} s = ${fixed(speedUp, 1)}× (target ≥ 12×; ideal ${fixed(ideal, 1)}×) ${verdict(speedUp >= 12)}`,
  );
  rows.push([
    `(a) wall, ${AER_TRAJECTORIES} aer @ c=${CONCURRENCY}`,
    `${fixed(parallel.seconds)} s`,
    `≤ ${fixed(wallTarget)} s`,
    verdict(parallel.seconds <= wallTarget && parallel.judged === AER_TRAJECTORIES),
  ]);
  rows.push([
    `(a) wall, ${AER_TRAJECTORIES} aer @ c=1`,
    `${fixed(serial.seconds)} s`,
    '(reference)',
    '',
  ]);
  rows.push([
    `(a) speed-up c=1 → c=${CONCURRENCY}`,
    `${fixed(speedUp, 1)}×`,
    '≥ 12×',
    verdict(speedUp >= 12),
  ]);

  log();
  const cpuPerTrajectory = parallel.cpuMs / AER_TRAJECTORIES;
  log(
    `(b) harness CPU per aer trajectory (process.cpuUsage over a concurrency-${CONCURRENCY} pass / ${AER_TRAJECTORIES}, median of ${PASSES} passes; stand-ins in child processes): ${fixed(cpuPerTrajectory)} ms (target ≤ 5 ms) ${verdict(cpuPerTrajectory <= 5)}`,
  );
  log(
    `    (for reference: the concurrency-1 run, same work, ${fixed(serial.cpuMs / AER_TRAJECTORIES)} ms / trajectory; the untimed first pass, with its ${AER_TRAJECTORIES} caption calls and the process's one-off warm-up, ${fixed(coldCpuPerTrajectory)} ms / trajectory)`,
  );
  rows.push([
    '(b) harness CPU / aer trajectory',
    `${fixed(cpuPerTrajectory)} ms`,
    '≤ 5 ms',
    verdict(cpuPerTrajectory <= 5),
  ]);

  // (c) -----------------------------------------------------------------------------------------
  log();
  log(
    `(c) peak RSS, ${MEMORY_TRAJECTORIES} default trajectories × ${MEMORY_STEPS} screenshots (1920×1080 PNG), concurrency ${MEMORY_CONCURRENCY}`,
  );
  const memoryRoot = join(root, 'default');
  clock = performance.now();
  const tree = await writeDefaultTree(memoryRoot, MEMORY_TRAJECTORIES, MEMORY_STEPS);
  log(
    `    generated in ${fixed((performance.now() - clock) / 1000)} s: ${MEMORY_STEPS + 1} distinct PNGs rendered with sharp (simple shapes and text, ${fixed(tree.pngBytes / 1024, 0)} KiB each on average), ` +
      `${tree.linked ? 'hard-linked' : 'copied'} into every trajectory (rendering ${(MEMORY_TRAJECTORIES * (MEMORY_STEPS + 1)).toLocaleString('en-US')} 1080p PNGs would take minutes; the judge reads and sends each file per trajectory all the same)`,
  );
  const memory = await rssRun(memoryRoot, judgeServer.openaiBaseUrl);
  const peakMb = mb(Number(memory.peakRss));
  log(
    `    judged in a fresh child process (rss-run.ts): ${memory.results} judged, ${memory.errors} errors${memory.firstError ? ` (first: ${memory.firstError})` : ''}, ${fixed(Number(memory.wallSeconds))} s wall, ${fixed(Number(memory.cpuMs) / MEMORY_TRAJECTORIES)} ms CPU / trajectory`,
  );
  log(
    `    RSS sampled every 50 ms (${memory.samples} samples): baseline ${fixed(mb(Number(memory.baselineRss)), 0)} MB after imports, peak ${fixed(peakMb, 0)} MB ` +
      `(kernel max RSS ${fixed(mb(Number(memory.maxRssKernel)), 0)} MB; peak V8 heap used ${fixed(mb(Number(memory.peakHeap)), 0)} MB, peak external ${fixed(mb(Number(memory.peakExternal)), 0)} MB) — target < 400 MB ${verdict(peakMb < 400)}`,
  );
  rows.push([
    `(c) peak RSS, ${MEMORY_TRAJECTORIES} default × ${MEMORY_STEPS} shots @ c=${MEMORY_CONCURRENCY}`,
    `${fixed(peakMb, 0)} MB`,
    '< 400 MB',
    verdict(peakMb < 400 && Number(memory.results) === MEMORY_TRAJECTORIES),
  ]);
} finally {
  await judgeServer.close();
  await captionServer.close();
  if (process.env.BENCH_KEEP === '1') log(`\n(trees kept in ${root})`);
  else await rm(root, { recursive: true, force: true });
}

log();
const header: [string, string, string, string] = ['measure', 'measured', 'target', 'result'];
const widths = header.map((_, column) =>
  Math.max(...[header, ...rows].map(row => row[column]!.length)),
);
const line = (row: readonly string[]) =>
  `| ${row.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
log(line(header));
log(`|${widths.map(width => '-'.repeat(width + 2)).join('|')}|`);
for (const row of rows) log(line(row));
