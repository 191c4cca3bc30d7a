import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startModelStandIn, type ModelStandIn } from '@osharm/model-stand-in';
import { createTestCheckout, type TestCheckout } from '@osharm/upstream/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twoStepRun, writeTrajectory } from '@osharm/results-fixture';
import { createModel } from '@osharm/models';
import { judgeTree } from './judge-tree';
import { pythonJsonDump } from './upstream-messages';

// upstream's run_judge.py writes messages.json with Python's json.dump(…, indent=2): the text is
// compared with what python3 itself writes for values that exercise every escape rule.
describe('pythonJsonDump', () => {
  it("writes Python's json.dump(value, indent=2) text", () => {
    const value = [
      { role: 'system', content: [{ type: 'text', text: 'café — “quoted” \u007f\u0001\t\n\\"' }] },
      { role: 'user', content: 'emoji 🚀 日本語 \u2028 \ud800 end', empty: [], none: {}, n: 3 },
      [],
      {},
    ];
    const python = execFileSync(
      'python3',
      [
        '-c',
        'import json, sys; sys.stdout.write(json.dumps(json.loads(sys.stdin.read()), indent=2))',
      ],
      { input: JSON.stringify(value), encoding: 'utf8' },
    );
    expect(pythonJsonDump(value)).toBe(python);
  });
});

// With upstream's texts, judging a tree (here through the provider batch API) leaves in each
// trajectory the messages.json upstream's run_judge.py writes: the message list of the request
// as sent, in json.dump's text, replacing the file that was there.
describe('messages.json with upstream, batch judging', () => {
  let tmp: string;
  let checkout: TestCheckout;
  let server: ModelStandIn;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'osharm-upstream-messages-'));
    checkout = createTestCheckout();
    server = await startModelStandIn({
      batch: { completeAfterMs: 50 },
      respond: call =>
        call.structuredOutput.mode === 'none'
          ? { text: 'A desktop.' }
          : { object: { reasoning: 'ok', success: true, safety: true, violation_step: null } },
    });
  });
  afterAll(async () => {
    await server.close();
    checkout.remove();
    await rm(tmp, { recursive: true, force: true });
  });

  it("is upstream's file, made from the request sent", async () => {
    const dir = join(tmp, 'results/pyautogui/screenshot_a11y_tree/o4-mini/os/_misuse');
    await writeTrajectory(dir, {
      instruction: 'Tidy up the home folder — «today».',
      steps: twoStepRun,
      width: 16,
      height: 12,
    });
    await writeFile(join(dir, 'messages.json'), '[]');
    const routing = { openai: { baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 } };
    const result = await judgeTree({
      rootDir: join(tmp, 'results'),
      judgeType: 'default',
      model: createModel('gpt-4.1', routing),
      captioner: createModel('gpt-4o-2024-11-20', routing),
      batchApi: { pollIntervalMs: 20 },
      upstream: checkout.dir,
    });
    expect(result.errors).toEqual({});
    const judgeCall = server.calls.find(call => call.model === 'gpt-4.1' && call.via === 'batch')!;
    const sent = (judgeCall.body as { messages: unknown[] }).messages;
    expect(sent.length).toBeGreaterThan(1);
    expect(await readFile(join(dir, 'messages.json'), 'utf8')).toBe(pythonJsonDump(sent));
  });
});
