import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startModelStandIn,
  type ModelCall,
  type ModelStandIn,
  type ScriptedReply,
} from '@osharm/model-stand-in';
import { batchResultsSchema, judgmentSchema, type Judgment } from '@osharm/task-schema/artifacts';
import { createModel } from '@osharm/models';
import { batchResultsPath, judgeTree } from './judge-tree';
import type { JudgeTreeEvent } from './judge-tree-types';
import { batchStatePath } from './judge-tree-batch';
import { twoStepRun, writeTrajectory } from '@osharm/results-fixture';

// Every fixture trajectory has a unique tag `[T0001]` in its instruction; the stand-in's script
// reads it from the request (direct or inside a batch) to decide the answer.

const TAG = /\[(T\d{4})\]/;
const tagOf = (call: ModelCall) =>
  TAG.exec(`${call.system ?? ''}\n${JSON.stringify(call.messages)}`)?.[1];

const JUDGE_USAGE = { inputTokens: 1000, outputTokens: 50 };
const CAPTION_USAGE = { inputTokens: 400, outputTokens: 25 };

function verdictFor(tag: string): Judgment {
  const n = Number(tag.slice(1));
  const safety = n % 3 !== 0;
  return {
    reasoning: `verdict for ${tag}`,
    success: n % 2 === 1,
    safety,
    violation_step: safety ? null : 1,
  };
}

interface LoggedCall {
  readonly tag: string | undefined;
  readonly judge: boolean;
  readonly via: 'direct' | 'batch';
  readonly batchId: string | undefined;
  readonly customId: string | undefined;
}

const servers: ModelStandIn[] = [];

/** A stand-in answering captions with text and judge calls (direct or batched) with verdicts. */
async function standIn(malformedTags: readonly string[] = []) {
  const log: LoggedCall[] = [];
  const server = await startModelStandIn({
    batch: { completeAfterMs: 120 },
    respond: (call): ScriptedReply => {
      const tag = tagOf(call);
      const judge = call.structuredOutput.mode !== 'none';
      log.push({ tag, judge, via: call.via, batchId: call.batchId, customId: call.customId });
      if (!judge) return { text: 'A desktop with a terminal window.', usage: CAPTION_USAGE };
      if (!tag) return { status: 400, message: 'no tag in the judge request' };
      if (malformedTags.includes(tag)) return { malformed: true, usage: JUDGE_USAGE };
      return { object: { ...verdictFor(tag) }, usage: JUDGE_USAGE };
    },
  });
  servers.push(server);
  const routing = {
    openai: { baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 },
    anthropic: { baseURL: server.anthropicBaseUrl, apiKey: 'test', maxRetries: 0 },
  };
  /** Batches the stand-in holds, listed over its HTTP API (the judge has no list call). */
  const listBatches = async (vendor: 'openai' | 'anthropic'): Promise<string[]> => {
    const response =
      vendor === 'openai'
        ? await fetch(`${server.openaiBaseUrl}/batches`, {
            headers: { authorization: 'Bearer test' },
          })
        : await fetch(`${server.anthropicBaseUrl}/v1/messages/batches`, {
            headers: { 'x-api-key': 'test', 'anthropic-version': '2023-06-01' },
          });
    expect(response.status).toBe(200);
    const page = (await response.json()) as { data: { id: string }[] };
    return page.data.map(batch => batch.id);
  };
  return { server, log, routing, listBatches };
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'osharm-judge-batch-'));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map(server => server.close()));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

let rootCount = 0;
/** A tree of `count` trajectories (tags from `first`); returns root and dir → tag. */
async function tree(count: number, first: number) {
  rootCount += 1;
  const root = join(tmp, `tree-${rootCount}`);
  const tagByDir = new Map<string, string>();
  await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const tag = `T${String(first + index).padStart(4, '0')}`;
      const dir = join(root, `pyautogui/screenshot_a11y_tree/o4-mini/os/_misuse-${tag}`);
      tagByDir.set(dir, tag);
      await writeTrajectory(dir, {
        instruction: `Tidy up the home folder of the user [${tag}].`,
        steps: twoStepRun,
        width: 16,
        height: 12,
      });
    }),
  );
  return { root, tagByDir, dirs: [...tagByDir.keys()].sort() };
}

const VENDORS = [
  { vendor: 'openai', model: 'gpt-4.1', doneStatus: 'completed' },
  { vendor: 'anthropic', model: 'claude-3-7-sonnet-20250219', doneStatus: 'ended' },
] as const;

describe.each(VENDORS)('judgeTree with batchApi: $model', ({ vendor, model, doneStatus }) => {
  it('joins every result back on custom_id, validates it, writes files, removes the state file', async () => {
    const { root, tagByDir, dirs } = await tree(6, 11);
    const malformed = tagByDir.get(dirs[4]!)!;
    const stand = await standIn([malformed]);
    const events: JudgeTreeEvent[] = [];
    const result = await judgeTree({
      rootDir: root,
      model: createModel(model, stand.routing),
      captioner: createModel('gpt-4o-2024-11-20', stand.routing),
      batchApi: { pollIntervalMs: 50 },
      onProgress: event => events.push(event),
    });

    // Every trajectory once: five judged with their own verdict, the malformed one in errors.
    const judged = dirs.filter(dir => dir !== dirs[4]);
    expect(Object.keys(result.results)).toEqual(judged);
    for (const dir of judged) expect(result.results[dir]).toEqual(verdictFor(tagByDir.get(dir)!));
    expect(Object.keys(result.errors)).toEqual([dirs[4]]);
    expect(result.errors[dirs[4]!]).toMatch(
      vendor === 'openai'
        ? /^Error processing .*: gpt-4\.1: the model's output is not valid JSON/
        : /^Error processing .*: claude-3-7-sonnet-20250219: not a valid judgment/,
    );

    // The judge calls went through one batch; results came back in a shuffled order, and the
    // custom_id of each request names the trajectory whose prompt it carries.
    const judgeCalls = stand.log.filter(call => call.judge);
    expect(judgeCalls.every(call => call.via === 'batch')).toBe(true);
    expect(new Set(judgeCalls.map(call => call.batchId)).size).toBe(1);
    expect(judgeCalls.map(call => call.customId).sort()).toEqual(
      dirs.map((_, index) => `t${String(index).padStart(6, '0')}`),
    );
    for (const call of judgeCalls)
      expect(call.tag).toBe(tagByDir.get(dirs[Number(call.customId!.slice(1))]!));
    // Captions are live calls, one per trajectory.
    expect(stand.log.filter(call => !call.judge && call.via === 'direct')).toHaveLength(6);

    // Files: judgment.json and messages.json per judged trajectory, the results file, no state.
    for (const dir of judged) {
      const file = join(dir, `judgment/${model}/aer/v3/judgment.json`);
      const written = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
      expect(judgmentSchema.parse(written)).toMatchObject(result.results[dir]!);
      expect(written.osharm_provenance).toMatchObject({ judge_model_requested: model });
      expect(existsSync(join(dir, 'messages.json'))).toBe(true);
    }
    expect(existsSync(join(dirs[4]!, 'judgment'))).toBe(false);
    expect(existsSync(batchStatePath(root, model, 'aer', 'v3'))).toBe(false);
    expect(await readdir(join(root, '.osharm-batch'))).toEqual([]);
    const written = batchResultsSchema.parse(
      JSON.parse(
        await readFile(
          batchResultsPath({
            rootDir: root,
            judgeModel: model,
            judgeType: 'aer',
            promptVersion: 'v3',
            observationType: 'screenshot_a11y_tree',
          }),
          'utf8',
        ),
      ),
    );
    expect(written.results).toEqual(result.results);
    expect(written.summary).toMatchObject({ total_trajectories: 6, errors: 1 });

    // Usage: five valid batch answers (the malformed one's tokens are not counted on OpenAI,
    // where the answer is unparsable), six captions; judge cost at half price.
    const judgeInput = vendor === 'openai' ? 5000 : 6000;
    const judgeOutput = vendor === 'openai' ? 250 : 300;
    expect(result.usage).toMatchObject({
      batch_api: true,
      judge_input_tokens: judgeInput,
      judge_output_tokens: judgeOutput,
      captioner_input_tokens: 2400,
      captioner_output_tokens: 150,
      model_calls: 12,
    });
    const judgePrice = vendor === 'openai' ? { input: 2, output: 8 } : { input: 3, output: 15 };
    const cost =
      (judgeInput * judgePrice.input + judgeOutput * judgePrice.output) / 1e6 / 2 +
      (2400 * 2.5 + 150 * 10) / 1e6;
    expect(result.usage.estimated_cost_usd).toBeCloseTo(cost, 12);

    const notes = events.filter(event => event.type === 'note');
    expect(notes).toHaveLength(1);
    expect(notes[0]!.message).toMatch(/^submitted batch \S+ \(6 request\(s\)\)$/);
    const statuses = events.filter(event => event.type === 'batch-status');
    expect(statuses.at(-1)).toMatchObject({ status: doneStatus, total: 6 });
    expect(await stand.listBatches(vendor)).toHaveLength(1);
  }, 30_000);

  it('restart: aborted right after submission, a rerun polls the SAME batch and completes', async () => {
    const { root, tagByDir, dirs } = await tree(5, 31);
    const stand = await standIn();
    const controller = new AbortController();
    let submittedNote = '';
    const options = {
      rootDir: root,
      model: createModel(model, stand.routing),
      captioner: createModel('gpt-4o-2024-11-20', stand.routing),
      batchApi: { pollIntervalMs: 50 },
    };
    await expect(
      judgeTree({
        ...options,
        abortSignal: controller.signal,
        onProgress: event => {
          if (event.type === 'note' && event.message.includes('submitted')) {
            submittedNote = event.message;
            controller.abort();
          }
        },
      }),
    ).rejects.toThrow();

    // The state file names the submitted batch and its items.
    const statePath = batchStatePath(root, model, 'aer', 'v3');
    expect(statePath).toBe(join(root, '.osharm-batch', `${model}_aer_v3.json`));
    const state = JSON.parse(await readFile(statePath, 'utf8')) as {
      provider: string;
      batches: { id: string; items: Record<string, { dir: string; steps: number }> }[];
    };
    expect(state.provider).toBe(vendor);
    expect(state.batches).toHaveLength(1);
    const batchId = state.batches[0]!.id;
    expect(submittedNote).toContain(batchId);
    expect(Object.values(state.batches[0]!.items).map(item => item.dir)).toEqual(dirs);
    expect(dirs.some(dir => existsSync(join(dir, 'judgment')))).toBe(false);

    const mark = stand.log.length;
    const events: JudgeTreeEvent[] = [];
    const result = await judgeTree({ ...options, onProgress: event => events.push(event) });
    expect(events).toContainEqual({
      type: 'note',
      message: `resuming 1 submitted batch(es) from ${statePath}`,
    });
    expect(
      events.some(event => event.type === 'note' && event.message.startsWith('submitted batch')),
    ).toBe(false);
    const polled = events.filter(event => event.type === 'batch-status');
    expect(polled.length).toBeGreaterThan(0);
    expect(polled.every(event => event.batchId === batchId)).toBe(true);

    for (const dir of dirs) expect(result.results[dir]).toEqual(verdictFor(tagByDir.get(dir)!));
    expect(result.errors).toEqual({});
    // Exactly one batch was ever created, and the rerun made no caption or direct judge call.
    expect(await stand.listBatches(vendor)).toEqual([batchId]);
    expect(
      new Set(stand.log.filter(call => call.via === 'batch').map(call => call.batchId)),
    ).toEqual(new Set([batchId]));
    expect(stand.log.slice(mark).filter(call => call.via === 'direct')).toEqual([]);
    expect(existsSync(statePath)).toBe(false);
    for (const dir of dirs)
      expect(existsSync(join(dir, `judgment/${model}/aer/v3/judgment.json`))).toBe(true);
  }, 30_000);
});

describe('judgeTree with batchApi: restart between two submissions', () => {
  it('resumes the submitted batch, submits the rest, and keeps reporting trajectories that failed to prepare', async () => {
    const { root, tagByDir, dirs } = await tree(5, 51);
    // A trajectory whose better_log.json is not valid: it cannot be prepared, in any run.
    const broken = join(root, 'pyautogui/screenshot_a11y_tree/o4-mini/os/_misuse-broken');
    await mkdir(broken, { recursive: true });
    await writeFile(join(broken, 'better_log.json'), '{"steps": "not a list"}');
    await writeFile(join(broken, 'result.txt'), '0\n');
    const stand = await standIn();
    const controller = new AbortController();
    const options = {
      rootDir: root,
      model: createModel('gpt-4.1', stand.routing),
      captioner: createModel('gpt-4o-2024-11-20', stand.routing),
      batchApi: { pollIntervalMs: 50, maxRequestsPerBatch: 2 },
    };
    await expect(
      judgeTree({
        ...options,
        abortSignal: controller.signal,
        onProgress: event => {
          if (event.type === 'note' && event.message.includes('submitted')) controller.abort();
        },
      }),
    ).rejects.toThrow();
    const statePath = batchStatePath(root, 'gpt-4.1', 'aer', 'v3');
    const state = JSON.parse(await readFile(statePath, 'utf8')) as {
      batches: { id: string; items: Record<string, { dir: string }> }[];
    };
    // One chunk of two was submitted before the crash; three trajectories were never sent.
    expect(state.batches).toHaveLength(1);
    const firstBatch = Object.values(state.batches[0]!.items).map(item => item.dir);
    expect(firstBatch).toHaveLength(2);
    expect(await stand.listBatches('openai')).toHaveLength(1);

    const result = await judgeTree(options);
    expect(Object.keys(result.results)).toEqual(dirs);
    for (const dir of dirs) expect(result.results[dir]).toEqual(verdictFor(tagByDir.get(dir)!));
    expect(Object.keys(result.errors)).toEqual([broken]);
    expect(result.errors[broken]).toMatch(/^Error processing /);
    expect(result.summary).toMatchObject({ total_trajectories: 6, errors: 1 });
    // The first batch was polled again, not resubmitted: three batches in all (2 + 2 + 1), and
    // each trajectory's judge request went into exactly one of them.
    expect(await stand.listBatches('openai')).toHaveLength(3);
    const batchCalls = stand.log.filter(call => call.via === 'batch');
    expect(batchCalls.map(call => call.tag).sort()).toEqual(dirs.map(dir => tagByDir.get(dir)));
    expect(
      batchCalls
        .filter(call => call.batchId === state.batches[0]!.id)
        .map(call => call.tag)
        .sort(),
    ).toEqual(firstBatch.map(dir => tagByDir.get(dir)).sort());
    expect(existsSync(statePath)).toBe(false);
  }, 30_000);
});
