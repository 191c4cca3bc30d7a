import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelStandIn, type ModelStandIn } from '@osharm/model-stand-in';
import { runBatchJudge, type BatchJudgeIo } from '@osharm/judge-cli';
import { createTestCheckout, findSharedDir, type TestCheckout } from '@osharm/upstream/test';

// `osharm-batch-judge --upstream` / OSHARM_UPSTREAM on a real upstream trajectory (copied from
// shared/real-trajectories), judged through the loopback stand-in.

const verdict = { reasoning: 'ok', success: false, safety: true, violation_step: null };
let server: ModelStandIn;
let tmp: string;
let checkout: TestCheckout;
const checkouts: TestCheckout[] = [];

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'osharm-batch-judge-upstream-'));
  server = await startModelStandIn({
    respond: call =>
      call.structuredOutput.mode === 'none' ? { text: '# Screen' } : { object: verdict },
  });
  checkout = createTestCheckout();
});
afterAll(async () => {
  await server.close();
  checkout.remove();
  for (const made of checkouts) made.remove();
  rmSync(tmp, { recursive: true, force: true });
});

function tree(): string {
  const root = mkdtempSync(join(tmp, 'results-'));
  const source = join(findSharedDir(), 'real-trajectories', 'stop_task_notification');
  cpSync(source, join(root, 'os', 'task-1'), { recursive: true });
  return root;
}

/** Every file under `dir`, relative. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter(entry => entry.isFile())
    .map(entry => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

async function judge(args: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: BatchJudgeIo = {
    stdout: text => void out.push(text),
    stderr: text => void err.push(text),
    cwd: tmp,
    isTTY: false,
    env: { OPENAI_BASE_URL: server.openaiBaseUrl, OPENAI_API_KEY: 'sk-test', ...env },
  };
  const before = server.calls.length;
  const code = await runBatchJudge(args, io);
  return { code, stdout: out.join(''), stderr: err.join(''), calls: server.calls.length - before };
}

describe('osharm-batch-judge --upstream', () => {
  it("judges with upstream's prompts and records prompt_family upstream with each source's sha256", async () => {
    const root = tree();
    const result = await judge(
      [root, '--include-unfinished', '--judge-type', 'a11y_tree', '--sys-prompt-version', 'v2'],
      { OSHARM_UPSTREAM: checkout.dir },
    );
    expect(result.stderr).not.toMatch(/error/);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Prompts: upstream's own (prompt_family "upstream")`);
    const file = join(root, 'os/task-1/judgment/gpt-4.1/a11y_tree/v2/judgment.json');
    const written = JSON.parse(readFileSync(file, 'utf8')) as {
      osharm_provenance: {
        prompt_family: string;
        upstream_sources: { file: string; symbol: string; sha256: string }[];
      };
    };
    expect(written.osharm_provenance.prompt_family).toBe('upstream');
    const prompts = join(checkout.dir, 'judge/methods/prompts.py');
    const sha = createHash('sha256').update(readFileSync(prompts)).digest('hex');
    expect(written.osharm_provenance.upstream_sources).toContainEqual({
      file: 'judge/methods/prompts.py',
      symbol: 'SYS_PROMPT_V2',
      sha256: sha,
    });
    // The same settings again: the verdict is reused (same family, same checkout).
    const again = await judge([
      root,
      '--include-unfinished',
      '--judge-type',
      'a11y_tree',
      '--sys-prompt-version',
      'v2',
      '--upstream',
      checkout.dir,
    ]);
    expect(again.code).toBe(0);
    expect(again.calls).toBe(0);
    // Without --upstream the upstream-family verdict is another provenance: kept, not reused.
    const osharm = await judge([
      root,
      '--include-unfinished',
      '--judge-type',
      'a11y_tree',
      '--sys-prompt-version',
      'v2',
    ]);
    expect(osharm.calls).toBe(0);
    expect(osharm.stderr + osharm.stdout).toMatch(/another provenance/);
  });

  const bad: [string, () => string, RegExp][] = [
    [
      'a directory that is not a checkout',
      () => tmp,
      /^error: --upstream: \/.+: not an upstream OS-Harm checkout: missing run\.py, lib_run_single\.py, .+\n$/,
    ],
    [
      'a checkout missing a symbol',
      () => {
        const made = createTestCheckout({
          replace: {
            'judge/methods/prompts.py': 'SYS_PROMPT_V1 = "one"\nSYS_PROMPT_V3 = "three"\n',
          },
        });
        checkouts.push(made);
        return made.dir;
      },
      /^error: --upstream: \/.+\/judge\/methods\/prompts\.py: SYS_PROMPT_V2: not found\n$/,
    ],
    [
      'a file that is not UTF-8',
      () => {
        const made = createTestCheckout({
          replace: { 'judge/methods/aer.py': Buffer.from([0x23, 0x20, 0xc3, 0x28, 0x0a]) },
        });
        checkouts.push(made);
        return made.dir;
      },
      /^error: --upstream: \/.+\/judge\/methods\/aer\.py: not valid UTF-8\n$/,
    ],
  ];
  it.each(bad)('%s: one line, exit 2, nothing written, no model call', async (_, dir, line) => {
    const root = tree();
    const before = files(root);
    const result = await judge([root, '--include-unfinished', '--upstream', dir()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(line);
    expect(result.stdout).toBe('');
    expect(result.calls).toBe(0);
    expect(files(root)).toEqual(before);
  });
});
