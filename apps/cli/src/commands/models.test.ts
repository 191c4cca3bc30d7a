import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelStandIn, type ModelStandIn } from '@osharm/model-stand-in';
import { runCli } from '../program';
import { createTestIo } from '../test-io';

/**
 * Today's models through the CLI, against stand-ins that refuse what the vendors refuse (per the
 * capability table): `osharm models check`, the judge with Claude Opus 4.7 / Fable 5, the
 * retirement guard of `osharm judge` and `osharm run`.
 */
let server: ModelStandIn;
let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'osharm-cli-models-'));
  server = await startModelStandIn({
    refuseRetired: new Date('2026-11-27T12:00:00Z'),
    respond: call =>
      call.structuredOutput.mode === 'none'
        ? { text: 'ok', usage: { inputTokens: 20, outputTokens: 1 } }
        : {
            object: { reasoning: 'scripted', success: false, safety: true, violation_step: null },
            usage: { inputTokens: 300, outputTokens: 30 },
          },
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}) => ({
  OPENAI_API_KEY: 'test-key-openai',
  ANTHROPIC_API_KEY: 'test-key-anthropic',
  OPENAI_BASE_URL: server.openaiBaseUrl,
  ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
  OSHARM_TODAY: '2026-11-27',
  ...extra,
});

function writeTree(): string {
  const root = join(mkdtempSync(join(tmp, 'tree-')), 'results');
  for (const task of ['_a', '_b']) {
    const dir = join(root, 'pyautogui/screenshot_a11y_tree/gpt-4o/os', task);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'traj.jsonl'), '');
    writeFileSync(join(dir, 'result.txt'), '0\n');
    writeFileSync(
      join(dir, 'better_log.json'),
      JSON.stringify({
        params: {
          model: 'gpt-4o',
          action_space: 'pyautogui',
          observation_type: 'screenshot_a11y_tree',
        },
        task: { jailbreak: false, injection: null, instruction: `do ${task}` },
        steps: [
          { a11y_tree: '', screenshot_file: 'step_0.png', response: 'DONE', actions: ['DONE'] },
        ],
      }),
    );
  }
  return root;
}

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>(resolve => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>(resolve => probe.close(() => resolve()));
  return port;
}

describe('osharm models check', () => {
  it('exits 0 when every role answers, one line per role with the served model and latency', async () => {
    const io = createTestIo(tmp, env());
    const before = server.calls.length;
    const code = await runCli(
      [
        'models',
        'check',
        '--model',
        'claude-opus-4-7',
        '--judge-model',
        'claude-fable-5',
        '--captioner-model',
        'claude-opus-4-7',
      ],
      io.io,
    );
    expect(io.stdout + io.stderr).not.toContain('FAILED');
    expect(code).toBe(0);
    const lines = io.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^agent +claude-opus-4-7 {2}ok {2}served claude-opus-4-7 {2}\d+ ms/);
    expect(lines[1]).toMatch(/^judge +claude-fable-5 {2}ok/);
    expect(lines[2]).toMatch(/^captioner +claude-opus-4-7 {2}ok/);
    const calls = server.calls.slice(before);
    expect(calls).toHaveLength(3);
    // shaped as the run sends them: images in every call, the judgment by output_config.format
    for (const call of calls)
      expect(JSON.stringify(call.body.messages)).toContain('"type":"image"');
    expect(calls[1]!.body.output_config).toMatchObject({ format: { type: 'json_schema' } });
    expect(calls[1]!.body.tool_choice).toBeUndefined();
    expect(calls[0]!.body.temperature).toBeUndefined();
  });

  it('exits 1 against an unreachable endpoint, the error in one line per role', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/v1`;
    const io = createTestIo(tmp, env({ OPENAI_BASE_URL: url }));
    const code = await runCli(
      ['models', 'check', '--model', 'gpt-5.5', '--judge-model', 'gpt-5.5', '--max-retries', '0'],
      io.io,
    );
    expect(code).toBe(1);
    const lines = io.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/FAILED .*ECONNREFUSED|FAILED .*[Cc]onnection/);
  });

  it('fails a retired model without calling it', async () => {
    const io = createTestIo(tmp, env());
    const before = server.calls.length;
    expect(
      await runCli(['models', 'check', '--model', 'o4-mini', '--judge-model', 'gpt-5.5'], io.io),
    ).toBe(1);
    expect(io.stdout).toMatch(
      /^agent +o4-mini {2}FAILED {2}agent model o4-mini was retired on 2026-10-23/m,
    );
    expect(server.calls.slice(before).map(call => call.model)).toEqual([
      'gpt-5.5',
      'gpt-4o-2024-11-20',
    ]);
  });
});

describe('osharm judge with the models of the capability table', () => {
  it.each(['claude-opus-4-7', 'claude-fable-5', 'claude-sonnet-5', 'gpt-5.5', 'gpt-4.1'])(
    'judges with %s: 0 errors',
    async judgeModel => {
      const root = writeTree();
      const io = createTestIo(tmp, env());
      expect(await runCli(['judge', root, '--judge-model', judgeModel], io.io)).toBe(0);
      const results = JSON.parse(
        readFileSync(join(root, `batch_judgment_results_${judgeModel}_aer_v3.json`), 'utf8'),
      ) as { results: Record<string, unknown>; errors?: unknown[] };
      expect(Object.keys(results.results)).toHaveLength(2);
      expect(io.stderr).not.toMatch(/error/i);
    },
  );

  it('prints the end of life of a retiring judge model at start, and stops on a retired one (exit 2)', async () => {
    const retiring = createTestIo(tmp, env());
    expect(
      await runCli(['judge', writeTree(), '--judge-model', 'claude-sonnet-4-5'], retiring.io),
    ).toBe(0);
    expect(retiring.stderr).toContain(
      'warning: judge model claude-sonnet-4-5 reaches end of life on 2026-11-30 (in 3 days); replacement: claude-sonnet-5-5',
    );
    const retired = createTestIo(tmp, env());
    const before = server.calls.length;
    expect(
      await runCli(['judge', writeTree(), '--judge-model', 'claude-mythos-preview'], retired.io),
    ).toBe(2);
    expect(retired.stderr).toContain(
      'judge model claude-mythos-preview was retired on 2026-06-30 (end of life; the vendor answers no call): use claude-mythos-5-2',
    );
    expect(server.calls.length).toBe(before);
  });
});

describe('osharm run and retired models', () => {
  it('stops at start with exit 2 naming the date and the replacement', async () => {
    const io = createTestIo(tmp, env());
    const code = await runCli(
      [
        'run',
        '--model',
        'claude-mythos-preview',
        '--judge-model',
        'none',
        '--result-dir',
        join(tmp, 'r'),
      ],
      io.io,
    );
    expect(code).toBe(2);
    expect(io.stderr).toContain(
      '--model claude-mythos-preview: agent model claude-mythos-preview was retired on 2026-06-30',
    );
  });

  it('prints the end of life of a retiring agent model at start', async () => {
    // --provider vmware without a .vmx stops right after the model checks: no desktop starts
    const io = createTestIo(tmp, env());
    const code = await runCli(
      [
        'run',
        '--model',
        'claude-sonnet-4-5',
        '--judge-model',
        'none',
        '--provider',
        'vmware',
        '--path-to-vm',
        join(tmp, 'none.vmx'),
        '--result-dir',
        join(tmp, 'r'),
      ],
      io.io,
    );
    expect(io.stderr).toContain(
      'warning: agent model claude-sonnet-4-5 reaches end of life on 2026-11-30 (in 3 days); replacement: claude-sonnet-5-5',
    );
    expect(code).toBe(2);
  });

  it('refuses an explicit --temperature for a model that takes none', async () => {
    const io = createTestIo(tmp, env());
    const code = await runCli(
      [
        'run',
        '--model',
        'claude-opus-4-7',
        '--temperature',
        '0.5',
        '--judge-model',
        'none',
        '--result-dir',
        join(tmp, 'r'),
      ],
      io.io,
    );
    expect(code).toBe(2);
    expect(io.stderr).toContain(
      'claude-opus-4-7 accepts no sampling parameters (--temperature 0.5)',
    );
  });
});
