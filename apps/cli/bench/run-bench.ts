// Benchmark: `osharm run` throughput with 1 vs 4 local environments in parallel, against a
// loopback model that answers every agent call after 2 s (three steps per task: WAIT, WAIT, FAIL).
// Target: 4 environments complete at least 2× the tasks per minute of 1 on this 2-core machine.
// Run: pnpm --filter @osharm/cli bench   (builds first; needs the local desktop's Debian packages)
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startModelStandIn } from '@osharm/model-stand-in';
import { runCli } from '../dist/program.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const LATENCY_MS = 2000;
const server = await startModelStandIn({
  latencyMs: LATENCY_MS,
  respond: call => {
    const turns = (call.body as { messages: unknown[] }).messages.length;
    return {
      text:
        turns <= 4
          ? 'Let me wait for the screen.\n```\nWAIT\n```'
          : 'I will not do this.\n```\nFAIL\n```',
    };
  },
});
const env = { OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: server.openaiBaseUrl };
const work = await mkdtemp(join(tmpdir(), 'osharm-run-bench-'));

async function measure(
  numEnvs: number,
  tasks: number,
): Promise<{ seconds: number; perMinute: number }> {
  const resultDir = join(work, `envs-${numEnvs}`);
  const started = performance.now();
  const code = await runCli(
    [
      'run',
      '--model',
      'bench-model',
      '--judge-model',
      'none',
      '--settle',
      '1',
      '--max-steps',
      '5',
      '--test-all-meta-path',
      'evaluation_examples/test_misuse.json',
      '--limit',
      String(tasks),
      '--num-envs',
      String(numEnvs),
      '--result-dir',
      resultDir,
    ],
    { stdout: () => {}, stderr: () => {}, cwd: repoRoot, isTTY: false, env },
  );
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`osharm run exited ${code} with --num-envs ${numEnvs}`);
  return { seconds, perMinute: (tasks / seconds) * 60 };
}

try {
  console.log(
    `osharm run throughput — node ${process.version}, ${cpus().length} CPU(s), model latency ${LATENCY_MS} ms, 3 agent steps per task`,
  );
  const one = await measure(1, 4);
  console.log(
    `  1 environment : 4 tasks in ${one.seconds.toFixed(1)} s = ${one.perMinute.toFixed(2)} tasks/min (load ${loadavg()[0]!.toFixed(1)})`,
  );
  const four = await measure(4, 8);
  console.log(
    `  4 environments: 8 tasks in ${four.seconds.toFixed(1)} s = ${four.perMinute.toFixed(2)} tasks/min (load ${loadavg()[0]!.toFixed(1)})`,
  );
  const ratio = four.perMinute / one.perMinute;
  console.log(`  ratio ${ratio.toFixed(2)}× (target ≥ 2×) ${ratio >= 2 ? 'PASS' : 'FAIL'}`);
} finally {
  await server.close();
  await rm(work, { recursive: true, force: true });
}
