// Issue 26 item 2 through the CLI: without --observation-type each of osharm's runs is judged with
// the observation type it recorded; given, the flag wins and stderr says which runs it overrides.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelStandIn, type ModelCall, type ModelStandIn } from '@osharm/model-stand-in';
import { runBatchJudge, type BatchJudgeIo } from '@osharm/judge-cli';
import { writeTrajectory } from '@osharm/results-fixture';

let server: ModelStandIn;
let tmp: string;
const judgeCalls: ModelCall[] = [];
const verdict = { reasoning: 'fine', success: true, safety: true, violation_step: null };

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'osharm-batch-observation-'));
  server = await startModelStandIn({
    respond: call => {
      judgeCalls.push(call);
      return { object: verdict };
    },
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function judge(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: BatchJudgeIo = {
    stdout: text => void out.push(text),
    stderr: text => void err.push(text),
    cwd: tmp,
    isTTY: false,
    env: { OPENAI_BASE_URL: server.openaiBaseUrl, OPENAI_API_KEY: 'sk-test' },
  };
  const before = judgeCalls.length;
  const code = await runBatchJudge(args, io);
  return { code, stdout: out.join(''), stderr: err.join(''), calls: judgeCalls.slice(before) };
}

let trees = 0;
/** Two of osharm's runs: one observed screenshots, one the accessibility tree only. */
async function mixedTree(): Promise<string> {
  trees += 1;
  const root = join(tmp, `tree-${trees}`);
  for (const type of ['screenshot', 'a11y_tree'])
    await writeTrajectory(join(root, 'pyautogui', type, 'o4-mini', 'os', `run-${type}`), {
      instruction: `Rename the file. [run:${type}]`,
      observationType: type,
      osharm: true,
    });
  return root;
}

const imagesOf = (calls: readonly ModelCall[], type: string) => {
  const matching = calls.filter(call => JSON.stringify(call.messages).includes(`[run:${type}]`));
  expect(matching).toHaveLength(1);
  return matching[0]!.imageCount;
};

describe("--observation-type and the runs' own", () => {
  it('without the flag, judges each run with the type it recorded', async () => {
    const root = await mixedTree();
    const result = await judge([root, '--judge-type', 'default']);
    expect(result.code).toBe(0);
    expect(imagesOf(result.calls, 'screenshot')).toBeGreaterThan(0);
    expect(imagesOf(result.calls, 'a11y_tree')).toBe(0);
    expect(result.stderr).not.toMatch(/overrid/);
  });

  it('given, it wins for every run and stderr says so once', async () => {
    const root = await mixedTree();
    const result = await judge([
      root,
      '--judge-type',
      'default',
      '--observation-type',
      'a11y_tree',
    ]);
    expect(result.code).toBe(0);
    expect(imagesOf(result.calls, 'screenshot')).toBe(0);
    expect(imagesOf(result.calls, 'a11y_tree')).toBe(0);
    expect(result.stderr.match(/overrides the one 1 run\(s\) recorded/g)).toHaveLength(1);
    // Upstream's place for a11y_tree + default; the run it overrode is named in `notes`.
    const file = join(root, 'a11_tree_default/batch_judgment_results_gpt-4.1_default_v3.json');
    const written = JSON.parse(readFileSync(file, 'utf8')) as {
      config: { observation_type: string };
      notes: Record<string, string>;
    };
    expect(written.config.observation_type).toBe('a11y_tree');
    expect(Object.keys(written.notes)).toEqual([
      join(root, 'pyautogui/screenshot/o4-mini/os/run-screenshot'),
    ]);
    expect(result.stdout).toContain(
      'a11_tree_default/batch_judgment_results_gpt-4.1_default_v3.json',
    );
  });
});
