import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startModelStandIn,
  type ModelCall,
  type ModelStandIn,
  type ScriptedReply,
} from '@osharm/model-stand-in';
import { batchResultsSchema } from '@osharm/task-schema/artifacts';
import { readRunStatus } from '@osharm/task-schema/trajectory';
import { checkLocalDesktopRequirements } from '@osharm/vm-local';
import { runCli } from '../program';
import { createTestIo } from '../test-io';

/**
 * issue 9, acceptance: `osharm run` of the six bundled misuse tasks on the real local desktop, the
 * agent's model (the loopback stand-in) failing about 30 % of its calls (429, 500, dropped
 * connections, timeouts beyond the retries), and a second run with the model server down. Every
 * run is either scored and judged, or listed as errored with its reason; no errored run is scored,
 * judged or counted; a rerun finishes only the errored ones.
 */
const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));
const canRun = checkLocalDesktopRequirements().ok;

const verdict = { reasoning: 'It refused.', success: false, safety: true, violation_step: null };

/** The agent: two WAIT steps, then FAIL (three model calls per run). */
function agentReply(call: ModelCall): ScriptedReply {
  const messages = (call.body as { messages: unknown[] }).messages.length;
  return messages < 5 ? { text: 'Looking first.\n```\nWAIT\n```' } : { text: '```\nFAIL\n```' };
}
/** The judge and its captioner: a separate, healthy endpoint. */
function judgeReply(call: ModelCall): ScriptedReply {
  return call.structuredOutput.mode === 'none'
    ? { text: '# Desktop\n- a document window' }
    : { object: verdict };
}

let faulty: ModelStandIn;
let judge: ModelStandIn;
let tmp: string;
beforeAll(async () => {
  faulty = await startModelStandIn({
    respond: agentReply,
    // 30 % of calls fail; with one retry a call fails after its retries about 9 % of the time.
    // Seed 27 (one environment: calls arrive in a fixed order) gives every fault kind and three
    // errored runs of six: a 429, a dropped connection and a 429 after the retry.
    faults: {
      rateLimit: 0.1,
      serverError: 0.1,
      drop: 0.05,
      timeout: 0.05,
      timeoutMs: 2000,
      seed: 27,
    },
  });
  judge = await startModelStandIn({ respond: judgeReply });
  tmp = await mkdtemp(join(tmpdir(), 'osharm-faults-e2e-'));
});
afterAll(async () => {
  await faulty?.close();
  await judge?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function osharm(args: string[]) {
  // The judge and captioner go to OPENAI_BASE_URL; the agent to its own --base-url.
  const io = createTestIo(repoRoot, {
    OPENAI_API_KEY: 'test-openai-key',
    OPENAI_BASE_URL: judge.openaiBaseUrl,
  });
  const code = await runCli(args, io.io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

const runArgs = (resultDir: string, agentBaseUrl: string) => [
  'run',
  '--model',
  'gpt-4.1',
  '--base-url',
  agentBaseUrl,
  '--judge-model',
  'gpt-4.1',
  '--max-steps',
  '4',
  '--max-retries',
  '1',
  '--timeout',
  '1',
  '--settle',
  '0.3',
  // One desktop: the seeded faults fall on calls in order, and the breaker counts runs in a row.
  '--num-envs',
  '1',
  '--result-dir',
  resultDir,
  '--test-all-meta-path',
  'evaluation_examples/test_misuse.json',
];

/** `label → reason` from the summary's "errored runs" block. */
function erroredInSummary(stdout: string): Map<string, string> {
  const block = stdout.split('errored runs (')[1]?.split('\n').slice(1) ?? [];
  const listed = new Map<string, string>();
  for (const line of block) {
    const match = /^ {2}(\S+): (.+)$/.exec(line);
    if (!match) break;
    listed.set(match[1]!, match[2]!);
  }
  return listed;
}

/** Every run dir under a model dir, as `domain/task` → dir. */
function runDirs(modelDir: string): Map<string, string> {
  const dirs = new Map<string, string>();
  for (const domain of readdirSync(modelDir)) {
    if (!statSync(join(modelDir, domain)).isDirectory()) continue;
    for (const task of readdirSync(join(modelDir, domain)))
      dirs.set(`${domain}/${task}`, join(modelDir, domain, task));
  }
  return dirs;
}

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>(resolve => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise(resolve => probe.close(resolve));
  return port;
}

describe.runIf(canRun)('osharm run under model faults (issue 9 acceptance)', () => {
  it('scores + judges or lists as errored; never both; a rerun finishes only the errored', async () => {
    const results = join(tmp, 'faults');
    const modelDir = join(results, 'pyautogui/a11y_tree/gpt-4.1');
    const first = await osharm(runArgs(results, faulty.openaiBaseUrl));
    expect(new Set(faulty.calls.map(call => call.fault))).toEqual(
      new Set([undefined, 'rate-limit', 'server-error', 'drop', 'timeout']),
    );

    const dirs = runDirs(modelDir);
    expect(dirs.size).toBe(6);
    const listed = erroredInSummary(first.stdout);
    const finished: string[] = [];
    for (const [label, dir] of dirs) {
      const status = await readRunStatus(dir);
      const judgment = join(dir, 'judgment/gpt-4.1/aer/v3/judgment.json');
      if (status.state === 'finished') {
        finished.push(label);
        expect(existsSync(judgment), label).toBe(true);
        expect(listed.has(label), label).toBe(false);
      } else {
        // Errored: an error line naming the model failure, no score, no judgment, listed.
        expect(status.state, label).toBe('errored');
        expect(existsSync(join(dir, 'result.txt'))).toBe(false);
        expect(existsSync(join(dir, 'judgment')), label).toBe(false);
        expect(listed.get(label), first.stdout).toBe((status as { reason: string }).reason);
        expect(listed.get(label)).toMatch(
          /agent model call failed: (RateLimitError 429|InternalServerError 500|APIConnectionError|APIConnectionTimeoutError)/,
        );
      }
    }
    // Both kinds occur with this seed, and the summary counts exactly them.
    expect(listed.size).toBe(3);
    expect(finished.length).toBe(3);
    expect(first.stdout).toContain(
      `runs this time: 6, finished: ${finished.length}, errored: ${listed.size}\n`,
    );
    expect(first.stdout).toContain(`judged: ${finished.length}; unsafe 0.0%`);
    expect(first.code).toBe(1);

    // The judge over the tree: the finished are read (already judged), the errored listed.
    const judged = await osharm(['judge', modelDir, '--quiet']);
    expect(judged.code, judged.stderr).toBe(0);
    const file = batchResultsSchema.parse(
      JSON.parse(
        readFileSync(join(modelDir, 'batch_judgment_results_gpt-4.1_aer_v3.json'), 'utf8'),
      ),
    );
    expect(
      Object.keys(file.results)
        .map(key => key.slice(modelDir.length + 1))
        .sort(),
    ).toEqual(finished.sort());
    expect(
      Object.keys(file.errored_runs ?? {})
        .map(key => key.slice(modelDir.length + 1))
        .sort(),
    ).toEqual([...listed.keys()].sort());
    expect(file.summary).toMatchObject({
      total_trajectories: finished.length,
      errored_runs: listed.size,
    });

    // Resume with a healthy model: only the errored runs run again.
    const healthy = await startModelStandIn({ respond: agentReply });
    try {
      const before = new Map(
        finished.map(label => [label, statSync(join(dirs.get(label)!, 'result.txt')).mtimeMs]),
      );
      const again = await osharm(runArgs(results, healthy.openaiBaseUrl));
      expect(again.code, again.stdout + again.stderr).toBe(0);
      expect(again.stderr).toContain(
        `6 run(s): ${finished.length} already finished, ${listed.size} to run`,
      );
      for (const [label, mtime] of before)
        expect(statSync(join(dirs.get(label)!, 'result.txt')).mtimeMs, label).toBe(mtime);
      for (const dir of dirs.values()) expect((await readRunStatus(dir)).state).toBe('finished');
      expect(again.stdout).toContain(
        `runs this time: ${listed.size}, finished: ${listed.size}, errored: 0`,
      );
    } finally {
      await healthy.close();
    }
  }, 240_000);

  it('with the model server down: errored runs, one message naming the host, the batch stops', async () => {
    const port = await closedPort();
    const results = join(tmp, 'down');
    const down = await osharm(runArgs(results, `http://127.0.0.1:${port}/v1`));
    expect(down.code).toBe(1);
    const listed = erroredInSummary(down.stdout);
    expect(listed.size).toBe(3);
    for (const reason of listed.values())
      expect(reason).toMatch(/agent model call failed: APIConnectionError \(ECONNREFUSED\)/);
    expect(down.stdout).toContain('runs this time: 3, finished: 0, errored: 3, not started: 3');
    expect(
      down.stderr.match(
        /stopping the batch: cannot reach the agent model gpt-4\.1 at 127\.0\.0\.1:\d+/g,
      ),
    ).toHaveLength(1);
    expect(down.stderr).toContain(`(from --base-url)`);
    const modelDir = join(results, 'pyautogui/a11y_tree/gpt-4.1');
    for (const dir of runDirs(modelDir).values()) {
      expect(existsSync(join(dir, 'result.txt'))).toBe(false);
      expect(existsSync(join(dir, 'judgment'))).toBe(false);
    }
  }, 120_000);
});
