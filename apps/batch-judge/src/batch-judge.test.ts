import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelStandIn, type ModelStandIn, type ScriptedReply } from '@osharm/model-stand-in';
import { batchResultsSchema } from '@osharm/task-schema/artifacts';
import { CASES, TREE, caseOf, writeResultsTree, type CaseName } from './__fixtures__/results-tree';
import { createServer } from 'node:net';
import type { BatchJudgeIo } from '@osharm/judge-cli';
import { runBatchJudge } from '@osharm/judge-cli';

const SECRET = 'sk-test-secret-0123456789';

let server: ModelStandIn;
let tmp: string;
/** What the stand-in does with every call: answer as scripted, or refuse the key. */
let mode: 'script' | 'auth' = 'script';

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'osharm-batch-judge-'));
  server = await startModelStandIn({
    batch: { completeAfterMs: 100 },
    respond: (call): ScriptedReply => {
      if (mode === 'auth') return { status: 401, message: `Incorrect API key provided: ${SECRET}` };
      if (call.structuredOutput.mode === 'none') {
        return {
          text: '# Desktop\n- a terminal window',
          usage: { inputTokens: 1000, outputTokens: 20 },
        };
      }
      const name = caseOf(call.messages, call.system);
      if (!name) return { status: 400, message: 'no [case:…] tag in the judge input' };
      return { object: { ...CASES[name] }, usage: { inputTokens: 500, outputTokens: 50 } };
    },
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}) => ({
  OPENAI_BASE_URL: server.openaiBaseUrl,
  OPENAI_API_KEY: SECRET,
  ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
  ANTHROPIC_API_KEY: SECRET,
  ...extra,
});

function testIo(overrides: Partial<BatchJudgeIo> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: BatchJudgeIo = {
    stdout: text => void out.push(text),
    stderr: text => void err.push(text),
    cwd: tmp,
    isTTY: false,
    env: env(),
    ...overrides,
  };
  return {
    io,
    get stdout() {
      return out.join('');
    },
    get stderr() {
      return err.join('');
    },
  };
}

async function judge(args: string[], overrides: Partial<BatchJudgeIo> = {}) {
  const io = testIo(overrides);
  const before = server.calls.length;
  const code = await runBatchJudge(args, io.io);
  const calls = server.calls.slice(before);
  return { code, stdout: io.stdout, stderr: io.stderr, calls };
}

/** A fresh results tree in its own temp dir; returns the absolute root. */
async function freshTree(options: { screenshots?: boolean } = {}): Promise<string> {
  const root = join(mkdtempSync(join(tmp, 'run-')), 'results');
  await writeResultsTree(root, options);
  return root;
}

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>(resolve => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise(resolve => probe.close(resolve));
  return port;
}

const readJson = (path: string) =>
  JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
const resultsFile = (root: string, name = 'batch_judgment_results_gpt-4.1_aer_v3.json') =>
  join(root, name);
function parseResults(path: string) {
  const raw = readJson(path);
  const parsed = batchResultsSchema.parse(raw);
  return { raw, parsed };
}

describe('osharm-batch-judge: default flags', () => {
  it('judges every trajectory with aer / gpt-4.1 / v3 and writes upstream files plus breakdown and usage', async () => {
    const root = await freshTree();
    const result = await judge([root]);
    expect(result.stderr).not.toContain('error');
    expect(result.code).toBe(0);

    // one caption (final screenshot) and one judge call per trajectory, on the OpenAI endpoint
    expect(result.calls).toHaveLength(10);
    expect(result.calls.every(call => call.vendor === 'openai' && call.via === 'direct')).toBe(
      true,
    );
    expect(result.calls.filter(call => call.model === 'gpt-4o-2024-11-20')).toHaveLength(5);
    expect(result.calls.filter(call => call.model === 'gpt-4.1')).toHaveLength(5);
    expect(JSON.stringify(result.calls.map(call => call.headers))).not.toContain(SECRET);

    for (const [name, path] of Object.entries(TREE)) {
      const file = join(root, path, 'judgment/gpt-4.1/aer/v3/judgment.json');
      // upstream's keys, plus what made the verdict (which upstream's readers ignore)
      const { osharm_provenance: provenance, ...verdict } = readJson(file) as Record<
        string,
        unknown
      >;
      expect(verdict, name).toEqual(CASES[name as CaseName]);
      expect(provenance, name).toMatchObject({ tool: 'osharm', judge_model_requested: 'gpt-4.1' });
    }

    const { raw, parsed } = parseResults(resultsFile(root));
    expect(Object.keys(raw)).toEqual([
      'config',
      'results',
      'errors',
      'timing',
      'summary',
      'breakdown',
      'usage',
      'errored_runs',
      'foreign',
      'missing_images',
      'provenance',
      'notes',
    ]);
    expect(parsed.config).toEqual({
      root_dir: root,
      observation_type: 'screenshot_a11y_tree',
      sys_prompt_version: 'v3',
      judge_model: 'gpt-4.1',
      judge_type: 'aer',
    });
    expect(Object.keys(parsed.results)).toEqual(
      Object.values(TREE)
        .map(path => join(root, path))
        .sort(),
    );
    expect(parsed.results[join(root, TREE['injection-z'])]).toEqual(CASES['injection-z']);
    expect(parsed.errors).toEqual({});
    expect(parsed.summary).toEqual({
      total_trajectories: 5,
      successful_evaluations: 5,
      errors: 0,
      safety_rate: 0.4,
      success_rate: 0.6,
    });
    expect(Object.keys(parsed.timing.processing_times)).toHaveLength(5);
    expect(parsed.timing.slowest_trajectory).toBeGreaterThanOrEqual(
      parsed.timing.fastest_trajectory,
    );

    const breakdown = parsed.breakdown!;
    expect(breakdown.category!.misuse!.unsafe).toMatchObject({ count: 2, total: 3 });
    expect(breakdown.category!.misbehavior!.unsafe).toMatchObject({ count: 0, total: 1 });
    expect(breakdown.category!.injection!.unsafe).toMatchObject({ count: 1, total: 1 });
    expect(breakdown.vector!.desktop_notification!.unsafe).toMatchObject({ count: 1, total: 1 });
    expect(breakdown.goal!.stop_task!.success).toMatchObject({ count: 1, total: 1 });
    expect(breakdown.domain!.os!.unsafe).toMatchObject({ count: 2, total: 3 });
    expect(breakdown.model!['o4-mini']!.unsafe).toMatchObject({ count: 3, total: 5 });
    expect(breakdown.jailbreak).toBeDefined();

    expect(parsed.usage).toMatchObject({
      judge_model: 'gpt-4.1',
      captioner_model: 'gpt-4o-2024-11-20',
      judge_input_tokens: 2500,
      judge_output_tokens: 250,
      captioner_input_tokens: 5000,
      captioner_output_tokens: 100,
      model_calls: 10,
      cached_captions: 0,
      skipped_already_judged: 0,
      batch_api: false,
    });
    // gpt-4.1 at $2/$8 and gpt-4o at $2.5/$10 per million tokens
    expect(parsed.usage!.estimated_cost_usd).toBeCloseTo(
      (2500 * 2 + 250 * 8 + 5000 * 2.5 + 100 * 10) / 1e6,
      9,
    );

    // stdout: upstream's summary, then the breakdown, tokens, cost and the file
    const lines = result.stdout.split('\n');
    expect(lines.slice(0, 6)).toEqual([
      '='.repeat(60),
      'BATCH JUDGING SUMMARY',
      '='.repeat(60),
      'Total trajectories: 5',
      'Successfully processed: 5',
      'Errors: 0',
    ]);
    expect(result.stdout).toContain('  Safety Rate: 2/5 (40.0%)\n  Success Rate: 3/5 (60.0%)\n');
    expect(result.stdout).toMatch(/^dimension +slice +n +unsafe % \[CI\] +success %$/m);
    expect(result.stdout).toMatch(/^category +misuse +3 +66\.7% \[/m);
    expect(result.stdout).toContain(
      'Tokens: judge gpt-4.1 2,500 in / 250 out; captioner gpt-4o-2024-11-20 5,000 in / 100 out',
    );
    expect(result.stdout).toContain('Estimated cost: $0.0205 (list price)');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(
      `Batch results saved to: ${relative(tmp, resultsFile(root))}`,
    );

    // stderr (not a terminal): one line per finished trajectory
    expect(result.stderr).toContain(
      `Found 5 trajectory(ies) under ${relative(tmp, root)}: 5 to judge`,
    );
    const progress = result.stderr.split('\n').filter(line => /^\[\d\/5\]/.test(line));
    expect(progress).toHaveLength(5);
    expect(progress).toContain(
      `[${progress.findIndex(line => line.includes('/_w')) + 1}/5] ok safe=true success=false ${relative(tmp, join(root, TREE['misuse-w']))}`,
    );
  });

  it('--json prints the results file content; --quiet prints no progress', async () => {
    const root = await freshTree({ screenshots: false });
    const result = await judge([root, '--json', '--quiet']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual(readJson(resultsFile(root)));
  });

  it('draws a progress bar with ETA when stderr is a terminal', async () => {
    const root = await freshTree({ screenshots: false });
    const result = await judge([root], { stderrIsTTY: true, columns: 120 });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('judging [');
    expect(result.stderr).toContain('ETA');
    expect(result.stderr).toContain('5/5');
    expect(result.stderr).not.toMatch(/^\[\d\/5\] ok/m);
  });
});

describe('flags', () => {
  it('accepts upstream snake_case flags and --traj_dir', async () => {
    const root = await freshTree();
    // (a judge model that is not retired: o4-mini, upstream's, reached its end of life on 2026-10-23)
    const result = await judge([
      `--traj_dir=${root}`,
      '--judge_type',
      'all_step_aer',
      '--sys_prompt_version',
      'v2',
      '--judge_model',
      'gpt-5.4-mini',
      '--observation_type',
      'screenshot',
      '--captioner_model',
      'gpt-4.1-mini',
      '--max_image_side',
      '32',
      '--image_format',
      'jpeg',
      '--quiet',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const { parsed } = parseResults(
      resultsFile(root, 'batch_judgment_results_gpt-5.4-mini_all_step_aer_v2.json'),
    );
    expect(parsed.config).toMatchObject({
      observation_type: 'screenshot',
      sys_prompt_version: 'v2',
      judge_model: 'gpt-5.4-mini',
      judge_type: 'all_step_aer',
    });
    expect(parsed.summary.successful_evaluations).toBe(5);
    for (const path of Object.values(TREE)) {
      expect(
        existsSync(join(root, path, 'judgment/gpt-5.4-mini/all_step_aer/v2/judgment.json')),
      ).toBe(true);
    }
    // all_step_aer captions every step's screenshot (2 + final) with the chosen captioner, as jpeg
    const captions = result.calls.filter(call => call.model === 'gpt-4.1-mini');
    expect(captions.length).toBe(15);
    expect(JSON.stringify(captions[0]!.body)).toContain('data:image/jpeg;base64,');
    expect(result.calls.filter(call => call.model === 'gpt-5.4-mini')).toHaveLength(5);
  });

  it('a11y_tree + default writes under a11_tree_default/ as upstream, with no images or captions', async () => {
    const root = await freshTree();
    const result = await judge([
      root,
      '--observation-type',
      'a11y_tree',
      '--judge-type',
      'default',
      '--quiet',
    ]);
    expect(result.code).toBe(0);
    expect(result.calls).toHaveLength(5);
    expect(result.calls.every(call => !JSON.stringify(call.body).includes('image_url'))).toBe(true);
    for (const path of Object.values(TREE)) {
      expect(
        existsSync(join(root, path, 'judgment/gpt-4.1/a11_tree_default/v3/judgment.json')),
      ).toBe(true);
    }
    const file = join(root, 'a11_tree_default/batch_judgment_results_gpt-4.1_default_v3.json');
    const { parsed } = parseResults(file);
    expect(parsed.summary.successful_evaluations).toBe(5);
    expect(existsSync(resultsFile(root, 'batch_judgment_results_gpt-4.1_default_v3.json'))).toBe(
      false,
    );
    expect(result.stdout).toContain(`Batch results saved to: ${relative(tmp, file)}`);
  });

  it('routes a claude-* judge to the Anthropic endpoint (the captioner stays on OpenAI)', async () => {
    const root = await freshTree();
    const model = 'claude-3-7-sonnet-20250219';
    const result = await judge([root, '--judge-model', model, '--quiet']);
    expect(result.code).toBe(0);
    const judges = result.calls.filter(call => call.model === model);
    expect(judges).toHaveLength(5);
    expect(
      judges.every(call => call.vendor === 'anthropic' && call.endpoint === '/v1/messages'),
    ).toBe(true);
    expect(result.calls.filter(call => call.vendor === 'openai')).toHaveLength(5);
    const { parsed } = parseResults(
      resultsFile(root, `batch_judgment_results_${model}_aer_v3.json`),
    );
    expect(parsed.summary).toMatchObject({ safety_rate: 0.4, success_rate: 0.6 });
    expect(
      readJson(join(root, TREE['misuse-x'], `judgment/${model}/aer/v3/judgment.json`)),
    ).toMatchObject(CASES['misuse-x']);
  });
});

describe('resume, errors, batch API', () => {
  it('skips judged trajectories on a second run (no model call) and re-judges with --force', async () => {
    const root = await freshTree();
    expect((await judge([root, '--quiet'])).code).toBe(0);

    const again = await judge([root]);
    expect(again.code).toBe(0);
    expect(again.calls).toHaveLength(0);
    expect(again.stderr).toContain('0 to judge, 5 already judged (skipped; --force re-judges)');
    const second = parseResults(resultsFile(root)).parsed;
    expect(second.summary.successful_evaluations).toBe(5);
    expect(second.usage).toMatchObject({ model_calls: 0, skipped_already_judged: 5 });

    const forced = await judge([root, '--force', '--quiet']);
    expect(forced.code).toBe(0);
    // --force re-judges with the cached captions; --recaption makes them again too
    expect(forced.calls).toHaveLength(5);
    expect(forced.calls.filter(call => call.model === 'gpt-4.1')).toHaveLength(5);
    const recaptioned = await judge([root, '--force', '--recaption', '--quiet']);
    expect(recaptioned.code).toBe(0);
    expect(recaptioned.calls).toHaveLength(10);
    expect(parseResults(resultsFile(root)).parsed.usage).toMatchObject({
      model_calls: 10,
      cached_captions: 0,
      skipped_already_judged: 0,
    });
  });

  it('records a trajectory with a broken better_log.json in errors, judges the others, exits 1', async () => {
    const root = await freshTree();
    const broken = join(root, TREE['misuse-w']);
    writeFileSync(join(broken, 'better_log.json'), '{"task": {"instruction": ');
    const result = await judge([root]);
    expect(result.code).toBe(1);
    const { parsed } = parseResults(resultsFile(root));
    expect(Object.keys(parsed.errors)).toEqual([broken]);
    expect(parsed.errors[broken]).toMatch(new RegExp(`^Error processing ${broken}: .+`));
    expect(Object.keys(parsed.results)).toHaveLength(4);
    expect(parsed.summary).toMatchObject({
      total_trajectories: 5,
      successful_evaluations: 4,
      errors: 1,
    });
    const shown = relative(tmp, broken);
    expect(result.stderr).toMatch(new RegExp(`^\\[\\d/5\\] error ${shown}: \\S`, 'm'));
    expect(result.stdout).toContain('Errors: 1');
    expect(result.stdout).toContain(`Errors (1):\n  ${shown}: `);
  });

  it('--batch-api judges through the OpenAI batch endpoints and removes its state file', async () => {
    const root = await freshTree();
    const result = await judge([root, '--batch-api', '--poll-interval', '0.05']);
    expect(result.code).toBe(0);
    const batched = result.calls.filter(call => call.via === 'batch');
    expect(batched).toHaveLength(5);
    expect(batched.every(call => call.model === 'gpt-4.1' && call.vendor === 'openai')).toBe(true);
    // captions are made live (and cached) before the judge requests are submitted
    expect(result.calls.filter(call => call.via === 'direct')).toHaveLength(5);
    expect(result.stderr).toMatch(/submitted batch \S+ \(5 request\(s\)\)/);
    expect(result.stderr).toMatch(/^batch \S+: completed \(5\/5 done, 0 failed\)$/m);
    const { parsed } = parseResults(resultsFile(root));
    expect(parsed.summary).toMatchObject({ successful_evaluations: 5, safety_rate: 0.4 });
    expect(parsed.usage).toMatchObject({ batch_api: true });
    expect(result.stdout).toContain('batch API at half price');
    expect(readdirSync(join(root, '.osharm-batch'))).toEqual([]);
    expect(
      readJson(join(root, TREE['misuse-x'], 'judgment/gpt-4.1/aer/v3/judgment.json')),
    ).toMatchObject(CASES['misuse-x']);
  });

  it('stops on an authentication error with one line, exit 1, and never prints the key', async () => {
    const root = await freshTree();
    mode = 'auth';
    try {
      const result = await judge([root, '--concurrency', '1']);
      expect(result.code).toBe(1);
      expect(result.calls).toHaveLength(1);
      const errorLines = result.stderr.split('\n').filter(line => line.startsWith('error:'));
      expect(errorLines).toHaveLength(1);
      expect(errorLines[0]).toMatch(
        /^error: AuthenticationError: 401 .*Incorrect API key.* \(stopped\)$/,
      );
      expect(result.stderr + result.stdout).not.toContain(SECRET);
      expect(result.stderr).toContain('[REDACTED]');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    } finally {
      mode = 'script';
    }
  });

  it('--batch-api against an unreachable server fails with one line, exit 1', async () => {
    const root = await freshTree({ screenshots: false });
    const result = await judge([root, '--batch-api', '--quiet'], {
      env: { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1', OPENAI_API_KEY: SECRET },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: APIConnectionError: Connection error.\n');
  });

  it('refuses to start without an API key: one line, exit 2 (a setup error, as osharm run)', async () => {
    const root = await freshTree({ screenshots: false });
    const result = await judge([root, '--quiet', '--concurrency', '1'], { env: {} });
    expect(result.code).toBe(2);
    expect(result.calls).toHaveLength(0);
    expect(result.stderr).toMatch(
      /^error: --judge-model gpt-4.1 needs a model API: set OPENAI_API_KEY, or a base URL/,
    );
  });

  it('refuses a Gemini judge model: one line, exit 2, no call (Gemini serves only native computer use)', async () => {
    const root = await freshTree({ screenshots: false });
    const result = await judge([root, '--quiet', '--judge_model', 'gemini-2.5-pro'], {
      env: { GEMINI_API_KEY: 'x', OPENAI_API_KEY: 'x' },
    });
    expect(result.code).toBe(2);
    expect(result.calls).toHaveLength(0);
    expect(result.stderr).toMatch(
      /^error: --judge-model gemini-2\.5-pro: Gemini models run only as native computer-use agents/,
    );
  });

  it('an unreachable endpoint: stops after 3 connection failures with one message naming the host', async () => {
    const root = await freshTree({ screenshots: false });
    const port = await closedPort();
    const result = await judge([root, '--max-connections', '1', '--max-retries', '0'], {
      env: { OPENAI_API_KEY: SECRET, OSHARM_JUDGE_BASE_URL: `http://127.0.0.1:${port}/v1` },
    });
    expect(result.code).toBe(1);
    // Three trajectories tried (one line each), then one message instead of five errors.
    expect(result.stderr.match(/^\[\d\/5\] error /gm)).toHaveLength(3);
    const final = result.stderr.split('\n').filter(line => line.startsWith('error:'));
    expect(final).toEqual([
      expect.stringContaining(`cannot reach the judge model gpt-4.1 at 127.0.0.1:${port}`),
    ]);
    expect(final[0]).toMatch(/from OSHARM_JUDGE_BASE_URL.*ECONNREFUSED.*0 retries.*\(stopped\)$/);
    expect(final[0]).toContain('--judge-base-url / OSHARM_JUDGE_BASE_URL');
  });
});

describe('errored and unfinished runs (issue 9)', () => {
  it('are listed with their reason, never judged or counted; --include-unfinished judges the unfinished', async () => {
    const root = await freshTree({ screenshots: false });
    const { writeTrajectory } = await import('@osharm/results-fixture');
    const erroredDir = join(root, TREE['misuse-w']);
    await writeTrajectory(erroredDir, {
      instruction: 'Task for misuse-w. [case:misuse-w]',
      screenshots: false,
      errorLine: 'chrome/_w - agent model call failed: RateLimitError 429: slow down',
    });
    rmSync(join(erroredDir, 'result.txt'));
    const unfinishedDir = join(root, TREE['misbehavior-y']);
    rmSync(join(unfinishedDir, 'result.txt'));
    // Not osharm's runs (no observation record): judged as upstream's batch judge does …
    const upstreamRule = await judge([root, '--judge-type', 'default', '--quiet', '--json']);
    expect(upstreamRule.code, upstreamRule.stderr).toBe(0);
    expect(upstreamRule.calls.map(call => caseOf(call.body)).sort()).toEqual([
      'injection-z',
      'jailbreak-x',
      'misbehavior-y',
      'misuse-w',
      'misuse-x',
    ]);
    const upstreamFile = JSON.parse(upstreamRule.stdout) as { notes: Record<string, string> };
    expect(Object.keys(upstreamFile.notes).sort()).toEqual([erroredDir, unfinishedDir].sort());
    rmSync(join(erroredDir, 'judgment'), { recursive: true });
    rmSync(join(unfinishedDir, 'judgment'), { recursive: true });
    // … and with osharm's rule, listed, not judged.
    const result = await judge([
      root,
      '--judge-type',
      'default',
      '--quiet',
      '--run-rule',
      'osharm',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const judged = result.calls.map(call => caseOf(call.body)).sort();
    expect(judged).toEqual([]);
    expect(result.stdout).toContain(
      'Errored or unfinished osharm runs, not judged and not counted (2;',
    );
    expect(result.stdout).toContain(
      `${relative(tmp, erroredDir)}: chrome/_w - agent model call failed: RateLimitError 429: slow down`,
    );
    expect(result.stdout).toMatch(/Total trajectories: 3\n/);
    const { parsed } = parseResults(
      resultsFile(root, 'batch_judgment_results_gpt-4.1_default_v3.json'),
    );
    expect(Object.keys(parsed.results)).toHaveLength(3);
    expect(parsed.errored_runs).toEqual({
      [erroredDir]: 'chrome/_w - agent model call failed: RateLimitError 429: slow down',
      [unfinishedDir]: expect.stringContaining('unfinished'),
    });
    expect(existsSync(join(erroredDir, 'judgment'))).toBe(false);

    const again = await judge([
      root,
      '--judge-type',
      'default',
      '--quiet',
      '--include-unfinished',
      '--run-rule',
      'osharm',
    ]);
    expect(again.calls.map(call => caseOf(call.body))).toEqual(['misbehavior-y']);
  });
});

describe('usage errors', () => {
  it.each([
    [['--judge-type', 'bogus'], "option '--judge-type <type>' argument 'bogus' is invalid"],
    [['--judge_type', 'bogus'], "option '--judge-type <type>' argument 'bogus' is invalid"],
    [['--concurrency', '0'], "option '--concurrency <n>' argument '0' is invalid"],
    [['--concurrency', '1.5'], "option '--concurrency <n>' argument '1.5' is invalid"],
    [['--sys-prompt-version', 'v4'], "option '--sys-prompt-version <version>' argument 'v4'"],
    [['--observation-type', 'video'], "option '--observation-type <type>' argument 'video'"],
    [['--image-format', 'gif'], "option '--image-format <format>' argument 'gif'"],
    [['--max-image-side', '-3'], "option '--max-image-side <px>' argument '-3' is invalid"],
    [['--poll-interval', '0', '--batch-api'], "option '--poll-interval <seconds>' argument '0'"],
    [['--poll-interval', '5'], '--poll-interval: only used with --batch-api'],
    [['--judge-model', ''], '--judge-model "": must not be empty'],
    [['--judge-model', '../../evil'], `--judge-model "../../evil": each '/'-separated part`],
    [['--captioner-model', 'a/../b'], `--captioner-model "a/../b": each '/'-separated part`],
    [['--no-such-flag'], "unknown option '--no-such-flag'"],
  ])('%j exits 2 naming the flag', async (args, message) => {
    const root = await freshTree({ screenshots: false });
    const result = await judge([root, ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toContain(message);
    expect(result.calls).toHaveLength(0);
  });

  it('exits 2 when traj_dir is missing, not a directory, or given twice', async () => {
    const none = await judge([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error: missing traj_dir/);
    const missing = await judge([join(tmp, 'no-such-dir')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: traj_dir: ".*no-such-dir" is not a directory\n/);
    const file = join(tmp, 'a-file.txt');
    writeFileSync(file, 'x');
    expect((await judge([file])).code).toBe(2);
    const twice = await judge([tmp, '--traj-dir', join(tmp, 'other')]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('traj_dir given twice');
  });

  it('exits 1 with a clear message when no trajectory is found', async () => {
    const empty = mkdtempSync(join(tmp, 'empty-'));
    const result = await judge([empty]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^error: no trajectories under .*: no directory there holds a better_log\.json/,
    );
    expect(readdirSync(empty)).toEqual([]);
  });

  it('prints help with every flag and its default, exit 0', async () => {
    const result = await judge(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: osharm-batch-judge \[options\] \[traj_dir\]/);
    for (const flag of [
      '--traj-dir <dir>',
      '--observation-type <type>',
      '--sys-prompt-version <version>',
      '--judge-model <model>',
      '--judge-type <type>',
      '--quiet',
      '--max-connections <n>',
      '--force',
      '--include-unfinished',
      '--max-retries <n>',
      '--timeout <seconds>',
      '--judge-base-url <url>',
      '--captioner-base-url <url>',
      '--batch-api',
      '--poll-interval <seconds>',
      '--captioner-model <model>',
      '--max-image-side <px>',
      '--image-format <format>',
      '--json',
    ]) {
      expect(result.stdout).toContain(flag);
    }
    expect(result.stdout).toContain('default: "aer"');
    expect(result.stdout).toContain('default: "gpt-4o-2024-11-20"');
  });
});

describe('the built bin', () => {
  const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

  it('judges a relative traj_dir with upstream-style keys, as a real process', async () => {
    expect(existsSync(bin), 'build first: pnpm build').toBe(true);
    const cwd = mkdtempSync(join(tmp, 'spawn-'));
    await writeResultsTree(join(cwd, 'results'));
    const before = server.calls.length;
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [
        bin,
        '--judge_type',
        'aer',
        '--judge_model',
        'gpt-4.1',
        '--sys_prompt_version',
        'v3',
        'results/',
      ],
      { cwd, env: { PATH: process.env.PATH ?? '', ...env() }, encoding: 'utf8' },
    );
    expect(server.calls.length - before).toBe(10);
    const { parsed } = parseResults(
      join(cwd, 'results/batch_judgment_results_gpt-4.1_aer_v3.json'),
    );
    expect(parsed.config.root_dir).toBe('results/');
    expect(Object.keys(parsed.results)).toContain(`results/${TREE['misuse-x']}`);
    expect(stderr).toMatch(
      /^\[\d\/5\] ok safe=false success=false results\/pyautogui\/.*\/os\/_x$/m,
    );
    expect(stdout).toContain('BATCH JUDGING SUMMARY');
    expect(stdout).toContain(
      'Batch results saved to: results/batch_judgment_results_gpt-4.1_aer_v3.json',
    );

    const usage = await promisify(execFile)(
      process.execPath,
      [bin, 'results/', '--concurrency', 'x'],
      {
        cwd,
        env: { PATH: process.env.PATH ?? '' },
        encoding: 'utf8',
      },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("option '--concurrency <n>' argument 'x' is invalid");
  });

  it('./osharm-batch-judge at the repo root works as the README writes it, reading .env in the working dir', async () => {
    const wrapper = fileURLToPath(new URL('../../../osharm-batch-judge', import.meta.url));
    expect(existsSync(wrapper)).toBe(true);
    const cwd = mkdtempSync(join(tmp, 'wrapper-'));
    await writeResultsTree(join(cwd, 'results'));
    // The key and the base URL come only from .env; the process env has neither.
    writeFileSync(
      join(cwd, '.env'),
      `OPENAI_API_KEY=${SECRET}\nOPENAI_BASE_URL=${server.openaiBaseUrl}\n`,
    );
    const before = server.calls.length;
    const { stdout, stderr } = await promisify(execFile)(wrapper, ['results/'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      encoding: 'utf8',
    });
    expect(server.calls.length - before).toBe(10);
    expect(stdout).toContain('BATCH JUDGING SUMMARY');
    expect(stdout + stderr).not.toContain(SECRET);
  });
});

describe('connectionFailure', () => {
  it('recognises refused / DNS / reset failures under the SDK error, and nothing with an HTTP status', async () => {
    const { connectionFailure } = await import('@osharm/judge-cli');
    class APIConnectionError extends Error {}
    const dns = Object.assign(new APIConnectionError('Connection error.'), {
      cause: Object.assign(new TypeError('fetch failed'), {
        cause: Object.assign(new Error('getaddrinfo ENOTFOUND judge.internal'), {
          code: 'ENOTFOUND',
        }),
      }),
    });
    expect(connectionFailure(dns)).toEqual({
      name: 'APIConnectionError',
      code: 'ENOTFOUND',
      message: 'Connection error.',
    });
    class APIConnectionTimeoutError extends Error {}
    expect(connectionFailure(new APIConnectionTimeoutError('Request timed out.'))).toBeUndefined();
    expect(
      connectionFailure(Object.assign(new Error('Rate limit'), { status: 429 })),
    ).toBeUndefined();
    expect(connectionFailure(new Error('ENOENT: no such file'))).toBeUndefined();
  });
});
