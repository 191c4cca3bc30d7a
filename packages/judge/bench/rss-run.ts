// Judges a tree in a fresh process and reports its peak memory, for the judge benchmark.
//
//   node --experimental-strip-types bench/rss-run.ts <rootDir> <openaiBaseUrl> [concurrency] [default|aer]
//
// judge-bench.ts runs this file's text with `node --input-type=module -e` instead, so that the
// measured process does not also hold Node's TypeScript stripper: keep it free of type syntax.
// Samples process.memoryUsage() every 50 ms while judgeTree runs and prints one JSON line: peak and
// baseline RSS, the kernel's max RSS (getrusage), wall time, CPU time and counts.
import { judgeTree } from '@osharm/judge';
import { createModel } from '@osharm/models';

const args = process.argv.slice(process.argv[1]?.endsWith('rss-run.ts') ? 2 : 1);
const [rootDir, openaiBaseUrl, concurrencyText = '8'] = args;
// `default` (screenshots in the prompt) or `aer` (text only).
const judgeType = args[3] === 'aer' ? 'aer' : 'default';
if (!rootDir || !openaiBaseUrl) {
  process.stderr.write('usage: rss-run.ts <rootDir> <openaiBaseUrl> [concurrency] [default|aer]\n');
  process.exit(2);
}
const routing = { openai: { baseURL: openaiBaseUrl, apiKey: 'bench', maxRetries: 0 } };
const baseline = process.memoryUsage();
let peakRss = baseline.rss;
let peakHeap = baseline.heapUsed;
let peakExternal = baseline.external;
let samples = 0;
const sample = () => {
  const usage = process.memoryUsage();
  peakRss = Math.max(peakRss, usage.rss);
  peakHeap = Math.max(peakHeap, usage.heapUsed);
  peakExternal = Math.max(peakExternal, usage.external);
  samples += 1;
};
const timer = setInterval(sample, 50);

const cpuStart = process.cpuUsage();
const started = performance.now();
const result = await judgeTree({
  rootDir,
  judgeType,
  model: createModel('gpt-4.1', routing),
  captioner: createModel('gpt-4o-2024-11-20', routing),
  concurrency: Number(concurrencyText),
  force: true,
});
const wallSeconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuStart);
clearInterval(timer);
sample();

process.stdout.write(
  `${JSON.stringify({
    baselineRss: baseline.rss,
    peakRss,
    peakHeap,
    peakExternal,
    // ru_maxrss: the kernel's high-water mark of this process (KiB), start-up included.
    maxRssKernel: process.resourceUsage().maxRSS * 1024,
    samples,
    wallSeconds,
    cpuMs: (cpu.user + cpu.system) / 1000,
    results: Object.keys(result.results).length,
    errors: Object.keys(result.errors).length,
    firstError: Object.values(result.errors)[0],
    modelCalls: result.usage.model_calls,
  })}\n`,
);
