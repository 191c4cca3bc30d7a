import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startModelStandIn,
  type FaultOptions,
  type ModelCall,
  type ModelFault,
  type ModelStandIn,
  type ScriptedReply,
} from '@osharm/model-stand-in';
import { batchResultsSchema, judgmentSchema, type Judgment } from '@osharm/task-schema/artifacts';
import { createModel } from '@osharm/models';
import { batchResultsPath, judgeTree, readExistingJudgment } from './judge-tree';
import type { JudgeTreeEvent } from './judge-tree-types';
import { twoStepRun, writeTrajectory } from '@osharm/results-fixture';

// Every fixture trajectory has a unique tag `[T0001]` in its instruction; the stand-in's script
// reads it from the request to decide the answer, and logs every call it sees.

type Verdict = Judgment | 'malformed';

interface LoggedCall {
  readonly tag: string | undefined;
  /** A judge call (structured output asked for); otherwise a caption call. */
  readonly judge: boolean;
  readonly fault: ModelFault | undefined;
  readonly model: string;
  readonly imageCount: number;
}

const TAG = /\[(T\d{4})\]/;
const tagOf = (call: ModelCall) =>
  TAG.exec(`${call.system ?? ''}\n${JSON.stringify(call.messages)}`)?.[1];
const isJudgeCall = (call: ModelCall) => call.structuredOutput.mode !== 'none';

const JUDGE_USAGE = { inputTokens: 1000, outputTokens: 50 };
const CAPTION_USAGE = { inputTokens: 400, outputTokens: 25 };

/** The verdict a tag gets unless a test scripts another: varied success / safety. */
function defaultVerdict(tag: string): Judgment {
  const n = Number(tag.slice(1));
  const safety = n % 3 !== 0;
  return {
    reasoning: `verdict for ${tag}`,
    success: n % 2 === 1,
    safety,
    violation_step: safety ? null : 1,
  };
}

interface Script {
  verdicts?: Record<string, Verdict>;
  /** Held inside respond() for judge calls (to measure calls in flight). */
  judgeHoldMs?: number;
}

/** A stand-in whose respond() answers captions with text and judge calls with scripted verdicts. */
async function standIn(options: { latencyMs?: number; faults?: FaultOptions } = {}) {
  const log: LoggedCall[] = [];
  let script: Script = {};
  let inFlight = 0;
  let maxInFlight = 0;
  const server = await startModelStandIn({
    latencyMs: options.latencyMs,
    faults: options.faults,
    respond: async call => {
      const tag = tagOf(call);
      const judge = isJudgeCall(call);
      log.push({ tag, judge, fault: call.fault, model: call.model, imageCount: call.imageCount });
      if (!judge) return { text: `A desktop with a terminal window.`, usage: CAPTION_USAGE };
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        if (script.judgeHoldMs) await sleep(script.judgeHoldMs);
      } finally {
        inFlight -= 1;
      }
      if (!tag) return { status: 400, message: 'no tag in the judge request' };
      const verdict = script.verdicts?.[tag] ?? defaultVerdict(tag);
      if (verdict === 'malformed') return { malformed: true, usage: JUDGE_USAGE };
      return { object: { ...verdict }, usage: JUDGE_USAGE } satisfies ScriptedReply;
    },
  });
  servers.push(server);
  return {
    server,
    log,
    setScript: (next: Script) => {
      script = next;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    resetMaxInFlight: () => {
      maxInFlight = 0;
    },
    judgeCalls: (from = 0) => log.slice(from).filter(entry => entry.judge),
    routing: (settings: { maxRetries?: number; timeout?: number } = {}) => ({
      openai: {
        baseURL: server.openaiBaseUrl,
        apiKey: 'test',
        maxRetries: settings.maxRetries ?? 0,
        timeout: settings.timeout ?? 30_000,
      },
      anthropic: {
        baseURL: server.anthropicBaseUrl,
        apiKey: 'test',
        maxRetries: settings.maxRetries ?? 0,
        timeout: settings.timeout ?? 30_000,
      },
    }),
  };
}
type StandIn = Awaited<ReturnType<typeof standIn>>;

const servers: ModelStandIn[] = [];
let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'osharm-judge-tree-'));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map(server => server.close()));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

let rootCount = 0;
async function newRoot(): Promise<string> {
  rootCount += 1;
  const root = join(tmp, `tree-${rootCount}`);
  await mkdir(root, { recursive: true });
  return root;
}

const tagName = (n: number) => `T${String(n).padStart(4, '0')}`;
const RUN_DIR = 'pyautogui/screenshot_a11y_tree';

/** Writes trajectories (tiny PNGs) at `root/rel`, each with its tag in the instruction. */
async function writeTree(
  root: string,
  entries: readonly { rel: string; tag: string }[],
): Promise<Map<string, string>> {
  const tagByDir = new Map<string, string>();
  // A few at a time: sharp is fast on 16×12 images, but 200 trees at once would only queue.
  for (let start = 0; start < entries.length; start += 25) {
    await Promise.all(
      entries.slice(start, start + 25).map(async entry => {
        const dir = join(root, entry.rel);
        tagByDir.set(dir, entry.tag);
        await writeTrajectory(dir, {
          instruction: `Tidy up the home folder of the user [${entry.tag}].`,
          steps: twoStepRun,
          width: 16,
          height: 12,
        });
      }),
    );
  }
  return tagByDir;
}

/** `count` misuse trajectories under one domain, tags T0001… */
const flatEntries = (count: number, first = 1) =>
  Array.from({ length: count }, (_, index) => ({
    rel: `${RUN_DIR}/o4-mini/os/_misuse-${String(first + index).padStart(3, '0')}`,
    tag: tagName(first + index),
  }));

async function findJudgmentFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (current: string) => {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.name === 'judgment.json') found.push(path);
    }
  };
  await walk(dir);
  return found.sort();
}

const settings = {
  judgeModel: 'gpt-4.1',
  judgeType: 'aer',
  promptVersion: 'v3',
  observationType: 'screenshot_a11y_tree',
} as const;

describe('judgeTree: discovery, results file, judgments', () => {
  it('judges every nested dir with better_log.json, keyed by path, and writes a valid results file', async () => {
    const stand = await standIn();
    const root = await newRoot();
    const base = `${RUN_DIR}/o4-mini`;
    const entries = [
      { rel: `${base}/os/_misuse-01`, tag: 'T0001' },
      { rel: `${base}/os/_misuse-02`, tag: 'T0002' },
      { rel: `${base}/chrome/___misbehavior-01`, tag: 'T0003' },
      { rel: `${RUN_DIR}/o4-mini_jailbreak/os/_misuse-01`, tag: 'T0004' },
      { rel: `${base}/thunderbird/__injected-01__inject__website__stop_task`, tag: 'T0005' },
      { rel: `${base}/os/0a1b2c3d-1111-4222-8333-444455556666`, tag: 'T0006' },
      { rel: `${base}/os/_misuse-03`, tag: 'T0007' },
    ];
    await writeTree(root, entries);
    // Not trajectories: a dir without better_log.json, and a better_log.json in skipped dirs.
    await mkdir(join(root, 'notes/deeper'), { recursive: true });
    await writeFile(join(root, 'notes/deeper/readme.txt'), 'not a trajectory\n');
    await mkdir(join(root, `${base}/os/_misuse-01/captions/x`), { recursive: true });
    await writeFile(join(root, `${base}/os/_misuse-01/captions/x/better_log.json`), '{}');

    const verdicts: Record<string, Verdict> = {
      T0001: { reasoning: 'r1', success: true, safety: true, violation_step: null },
      T0002: { reasoning: 'r2', success: false, safety: false, violation_step: 1 },
      T0003: { reasoning: 'r3', success: true, safety: false, violation_step: 0 },
      T0004: { reasoning: 'r4', success: true, safety: true, violation_step: null },
      T0005: { reasoning: 'r5', success: false, safety: false, violation_step: 1 },
      T0006: { reasoning: 'r6', success: true, safety: true, violation_step: null },
      T0007: 'malformed',
    };
    stand.setScript({ verdicts });
    const events: JudgeTreeEvent[] = [];
    const result = await judgeTree({
      rootDir: root,
      model: createModel('gpt-4.1', stand.routing()),
      captioner: createModel('gpt-4o-2024-11-20', stand.routing()),
      concurrency: 3,
      onProgress: event => events.push(event),
    });

    const dirs = entries.map(entry => join(root, entry.rel));
    const judged = dirs.filter((_, index) => index !== 6);
    const failed = dirs[6]!;
    expect(Object.keys(result.results)).toEqual([...judged].sort());
    expect(Object.keys(result.errors)).toEqual([failed]);
    expect(result.errors[failed]).toMatch(
      new RegExp(`^Error processing ${failed}: OsharmJudgeOutputError: gpt-4.1: .*not valid JSON`),
    );
    entries.slice(0, 6).forEach((entry, index) => {
      expect(result.results[dirs[index]!]).toEqual(verdicts[entry.tag]);
    });
    // The failing one was asked three times (one try + two output retries), the others once.
    const judgeTags = stand.judgeCalls().map(call => call.tag);
    expect(judgeTags.filter(tag => tag === 'T0007')).toHaveLength(3);
    for (const tag of ['T0001', 'T0002', 'T0003', 'T0004', 'T0005', 'T0006'])
      expect(judgeTags.filter(value => value === tag)).toHaveLength(1);
    expect(stand.log.filter(call => !call.judge)).toHaveLength(7);
    expect(events[0]).toEqual({ type: 'start', total: 7, skipped: 0, pending: 7, errored: 0 });
    expect(events.filter(event => event.type === 'trajectory-end')).toHaveLength(7);

    // The results file: where upstream writes it, valid, and what was returned.
    const file = join(root, 'batch_judgment_results_gpt-4.1_aer_v3.json');
    expect(batchResultsPath({ rootDir: root, ...settings })).toBe(file);
    const written = JSON.parse(await readFile(file, 'utf8')) as unknown;
    expect(batchResultsSchema.safeParse(written).success).toBe(true);
    expect(written).toEqual(JSON.parse(JSON.stringify(result)));
    expect(result.config).toEqual({
      root_dir: root,
      observation_type: 'screenshot_a11y_tree',
      sys_prompt_version: 'v3',
      judge_model: 'gpt-4.1',
      judge_type: 'aer',
    });

    // summary, by hand: 6 judged (safe: 1, 4, 6; success: 1, 3, 4, 6), 1 error.
    expect(result.summary).toEqual({
      total_trajectories: 7,
      successful_evaluations: 6,
      errors: 1,
      safety_rate: 3 / 6,
      success_rate: 4 / 6,
    });
    // timing: one entry per processed trajectory (errors included), consistent aggregates.
    const times = Object.values(result.timing.processing_times);
    expect(Object.keys(result.timing.processing_times).sort()).toEqual([...dirs].sort());
    expect(result.timing.average_time_per_trajectory).toBeCloseTo(
      times.reduce((sum, time) => sum + time, 0) / 7,
      10,
    );
    expect(result.timing.fastest_trajectory).toBe(Math.min(...times));
    expect(result.timing.slowest_trajectory).toBe(Math.max(...times));
    expect(result.timing.total_duration_seconds).toBeGreaterThanOrEqual(
      result.timing.slowest_trajectory,
    );

    // breakdown, by hand: misuse = 1, 2, 4 (safe 1 and 4); misbehavior = 3 (unsafe);
    // injection = 5 (website / stop_task, unsafe); osworld = 6 (safe).
    const category = result.breakdown.category!;
    expect(Object.keys(category)).toEqual(['injection', 'misbehavior', 'misuse', 'osworld']);
    expect(category.misuse!.safe).toMatchObject({ count: 2, total: 3, rate: 2 / 3 });
    expect(category.misuse!.unsafe).toMatchObject({ count: 1, total: 3 });
    expect(category.misuse!.success).toMatchObject({ count: 2, total: 3 });
    expect(category.misbehavior!.safe).toMatchObject({ count: 0, total: 1, rate: 0 });
    expect(category.osworld!.safe).toMatchObject({ count: 1, total: 1, rate: 1 });
    expect(result.breakdown.vector).toEqual({ website: category.injection });
    expect(result.breakdown.goal).toEqual({ stop_task: category.injection });
    expect(result.breakdown.domain!.os!.safe).toMatchObject({ count: 3, total: 4 });
    expect(result.breakdown.model!['o4-mini']!.safe).toMatchObject({ count: 3, total: 6 });
    expect(result.breakdown.jailbreak!.true!.safe).toMatchObject({ count: 1, total: 1 });
    expect(result.breakdown.jailbreak!.false!.safe).toMatchObject({ count: 2, total: 5 });

    // usage, by hand: tokens and calls of the 6 judged trajectories (one caption + one judge call
    // each); the failed trajectory's calls are not in the totals.
    expect(result.usage).toEqual({
      judge_model: 'gpt-4.1',
      captioner_model: 'gpt-4o-2024-11-20',
      judge_input_tokens: 6000,
      judge_output_tokens: 300,
      captioner_input_tokens: 2400,
      captioner_output_tokens: 150,
      model_calls: 12,
      cached_captions: 0,
      skipped_already_judged: 0,
      batch_api: false,
      estimated_cost_usd: expect.any(Number),
    });
    // gpt-4.1 $2 / $8, gpt-4o-2024-11-20 $2.5 / $10 per million tokens.
    const cost = (6000 * 2 + 300 * 8 + 2400 * 2.5 + 150 * 10) / 1e6;
    expect(result.usage.estimated_cost_usd).toBeCloseTo(cost, 12);

    // judgment.json per trajectory, at judgment/{model}/{type}/{version}/judgment.json.
    for (const dir of judged) {
      const path = join(dir, 'judgment/gpt-4.1/aer/v3/judgment.json');
      expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject(result.results[dir]!);
      expect(existsSync(join(dir, 'messages.json'))).toBe(true);
      expect(await readExistingJudgment(dir, settings)).toEqual(result.results[dir]);
    }
    expect(existsSync(join(failed, 'judgment'))).toBe(false);
    // Captions are cached next to each trajectory.
    expect(await readdir(join(dirs[0]!, 'captions/gpt-4o-2024-11-20'))).toHaveLength(1);
  }, 30_000);

  it('a11y_tree + default: files under a11_tree_default, no captions, no images', async () => {
    const stand = await standIn();
    const root = await newRoot();
    const entries = [
      { rel: 'pyautogui/a11y_tree/o4-mini/os/_misuse-01', tag: 'T0011' },
      { rel: 'pyautogui/a11y_tree/o4-mini/os/_misuse-02', tag: 'T0012' },
    ];
    await writeTree(root, entries);
    const result = await judgeTree({
      rootDir: root,
      judgeType: 'default',
      observationType: 'a11y_tree',
      model: createModel('gpt-4.1', stand.routing()),
      concurrency: 2,
    });
    expect(Object.keys(result.results)).toHaveLength(2);
    expect(result.usage.captioner_model).toBeNull();
    expect(stand.log.map(call => [call.judge, call.imageCount])).toEqual([
      [true, 0],
      [true, 0],
    ]);
    const file = join(root, 'a11_tree_default/batch_judgment_results_gpt-4.1_default_v3.json');
    expect(
      batchResultsPath({
        rootDir: root,
        judgeModel: 'gpt-4.1',
        judgeType: 'default',
        promptVersion: 'v3',
        observationType: 'a11y_tree',
      }),
    ).toBe(file);
    expect(batchResultsSchema.safeParse(JSON.parse(await readFile(file, 'utf8'))).success).toBe(
      true,
    );
    expect(existsSync(join(root, 'batch_judgment_results_gpt-4.1_default_v3.json'))).toBe(false);
    for (const entry of entries) {
      const path = join(root, entry.rel, 'judgment/gpt-4.1/a11_tree_default/v3/judgment.json');
      expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject(defaultVerdict(entry.tag));
    }
  }, 30_000);

  it('judges through Anthropic (claude-*) with screenshots for the default judge', async () => {
    const stand = await standIn();
    const root = await newRoot();
    const entries = flatEntries(3, 21);
    await writeTree(root, entries);
    const models: string[] = [];
    const result = await judgeTree({
      rootDir: root,
      judgeType: 'default',
      model: createModel('claude-3-7-sonnet-20250219', stand.routing()),
      concurrency: 3,
    });
    models.push(...stand.log.map(call => call.model));
    expect(new Set(models)).toEqual(new Set(['claude-3-7-sonnet-20250219']));
    // One screenshot per step (two steps), no caption call.
    expect(stand.log.map(call => [call.judge, call.imageCount])).toEqual(
      entries.map(() => [true, 2]),
    );
    expect(Object.values(result.results)).toEqual(entries.map(entry => defaultVerdict(entry.tag)));
    expect(result.usage.judge_input_tokens).toBe(3000);
    expect(result.usage.estimated_cost_usd).toBeCloseTo((3000 * 3 + 150 * 15) / 1e6, 12);
    for (const entry of entries) {
      expect(
        existsSync(
          join(root, entry.rel, 'judgment/claude-3-7-sonnet-20250219/default/v3/judgment.json'),
        ),
      ).toBe(true);
    }
    expect(
      existsSync(join(root, 'batch_judgment_results_claude-3-7-sonnet-20250219_default_v3.json')),
    ).toBe(true);
  }, 30_000);
});

describe('judgeTree: errored and unfinished runs (issue 9)', () => {
  it('never judges a run that errored or has no result; lists each with its reason', async () => {
    const stand = await standIn();
    const root = await newRoot();
    const entries = flatEntries(3, 71);
    await writeTree(root, entries);
    const [finished, errored, unfinished] = entries.map(entry => join(root, entry.rel));
    // A run that errored at its first model call: traj.jsonl only, no better_log.json.
    const early = join(root, `${RUN_DIR}/o4-mini/os/_misuse-early`);
    await mkdir(early, { recursive: true });
    await writeFile(
      join(early, 'traj.jsonl'),
      '{"Error": "os/_misuse-early - agent model call failed: RateLimitError 429: slow down"}\n',
    );
    // The errored run: what osharm run writes when the agent's model call failed after retries.
    await writeTrajectory(errored!, {
      instruction: `Tidy up [${entries[1]!.tag}].`,
      steps: twoStepRun.slice(0, 1),
      errorLine: 'Time limit exceeded in os/_fixture',
      score: null,
      osharm: true,
    });
    await writeTrajectory(unfinished!, {
      instruction: `Tidy up [${entries[2]!.tag}].`,
      steps: twoStepRun,
      score: null,
      osharm: true,
    });
    const events: JudgeTreeEvent[] = [];
    const result = await judgeTree({
      rootDir: root,
      model: createModel('gpt-4.1', stand.routing()),
      captioner: createModel('gpt-4o-2024-11-20', stand.routing()),
      onProgress: event => events.push(event),
    });
    expect(Object.keys(result.results)).toEqual([finished]);
    expect(stand.judgeCalls().map(call => call.tag)).toEqual([entries[0]!.tag]);
    expect(result.errored_runs).toEqual({
      [early]: 'os/_misuse-early - agent model call failed: RateLimitError 429: slow down',
      [errored!]: 'Time limit exceeded in os/_fixture',
      [unfinished!]: expect.stringMatching(/no result\.txt.*unfinished/),
    });
    expect(result.errors).toEqual({});
    expect(result.summary).toMatchObject({
      total_trajectories: 1,
      successful_evaluations: 1,
      errored_runs: 3,
    });
    expect(events[0]).toMatchObject({ type: 'start', total: 4, pending: 1, errored: 3 });
    // No judgment was written for them, and the results file parses with the shared schema.
    expect(await findJudgmentFiles(errored!)).toEqual([]);
    expect(await findJudgmentFiles(unfinished!)).toEqual([]);
    const file = batchResultsSchema.parse(
      JSON.parse(await readFile(join(root, 'batch_judgment_results_gpt-4.1_aer_v3.json'), 'utf8')),
    );
    expect(Object.keys(file.errored_runs ?? {})).toHaveLength(3);

    // includeUnfinished judges the unfinished one; the errored one never.
    const again = await judgeTree({
      rootDir: root,
      model: createModel('gpt-4.1', stand.routing()),
      captioner: createModel('gpt-4o-2024-11-20', stand.routing()),
      includeUnfinished: true,
    });
    expect(Object.keys(again.results).sort()).toEqual([finished, unfinished].sort());
    expect(Object.keys(again.errored_runs).sort()).toEqual([early, errored!].sort());
  });
});

describe('judgeTree: a desktop the agent destroyed (issue 24)', () => {
  it('judges its trajectory up to there and counts it, never lists it as errored', async () => {
    const stand = await standIn();
    const root = await newRoot();
    const entries = flatEntries(2, 73);
    await writeTree(root, entries);
    const [finished, destroyed] = entries.map(entry => join(root, entry.rel));
    await writeTrajectory(destroyed!, {
      instruction: `Tidy up [${entries[1]!.tag}].`,
      steps: twoStepRun,
      score: null,
    });
    await appendFile(
      join(destroyed!, 'traj.jsonl'),
      '{"Error": "os/_fixture - guest request failed: ECONNREFUSED", "environment_destroyed_by_agent": {"step": 2}}\n',
    );
    const result = await judgeTree({
      rootDir: root,
      model: createModel('gpt-4.1', stand.routing()),
      captioner: createModel('gpt-4o-2024-11-20', stand.routing()),
    });
    expect(Object.keys(result.results).sort()).toEqual([finished, destroyed].sort());
    expect(result.errored_runs).toEqual({});
    expect(await findJudgmentFiles(destroyed!)).not.toEqual([]);
  });
});

describe('judgeTree: bounded concurrency', () => {
  it('never has more than `concurrency` judge calls in flight (counted in respond)', async () => {
    const stand = await standIn({ latencyMs: 10 });
    const root = await newRoot();
    await writeTree(root, flatEntries(14));
    for (const concurrency of [3, 1, 5]) {
      stand.resetMaxInFlight();
      stand.setScript({ judgeHoldMs: 80 });
      const result = await judgeTree({
        rootDir: root,
        model: createModel('gpt-4.1', stand.routing()),
        captioner: createModel('gpt-4o-2024-11-20', stand.routing()),
        concurrency,
        force: true,
      });
      expect(Object.keys(result.results)).toHaveLength(14);
      // Bounded, and the bound is reached (the pool is used).
      expect(stand.maxInFlight).toBe(concurrency);
    }
  }, 30_000);
});

describe('judgeTree: resume', () => {
  it('a rerun makes no judge call; force re-judges all; a corrupt judgment.json is kept, and re-judged beside it on request', async () => {
    const stand = await standIn();
    const root = await newRoot();
    const entries = flatEntries(6, 31);
    await writeTree(root, entries);
    const run = (
      options: { force?: boolean; recaption?: boolean; rejudgeForeign?: boolean } = {},
    ) =>
      judgeTree({
        rootDir: root,
        model: createModel('gpt-4.1', stand.routing()),
        captioner: createModel('gpt-4o-2024-11-20', stand.routing()),
        concurrency: 4,
        ...options,
      });
    const first = await run();
    expect(first.errors).toEqual({});
    expect(stand.judgeCalls()).toHaveLength(6);
    expect(Object.keys(first.results)).toHaveLength(6);

    let mark = stand.log.length;
    const events: JudgeTreeEvent[] = [];
    const second = await judgeTree({
      rootDir: root,
      model: createModel('gpt-4.1', stand.routing()),
      captioner: createModel('gpt-4o-2024-11-20', stand.routing()),
      onProgress: event => events.push(event),
    });
    expect(stand.log.length).toBe(mark); // no judge call, and no caption call either
    expect(second.results).toEqual(first.results);
    expect(second.errors).toEqual({});
    expect(second.summary).toEqual(first.summary);
    expect(second.breakdown).toEqual(first.breakdown);
    expect(second.usage).toMatchObject({ model_calls: 0, skipped_already_judged: 6 });
    // Times measured by the first run are kept when the file is rewritten over skipped judgments.
    expect(Object.keys(second.timing.processing_times).sort()).toEqual(
      Object.keys(first.timing.processing_times).sort(),
    );
    expect(second.timing.processing_times).toEqual(first.timing.processing_times);
    expect(events).toEqual([{ type: 'start', total: 6, skipped: 6, pending: 0, errored: 0 }]);

    mark = stand.log.length;
    const forced = await run({ force: true });
    expect(
      stand
        .judgeCalls(mark)
        .map(call => call.tag)
        .sort(),
    ).toEqual(entries.map(entry => entry.tag));
    // --force re-judges with the cached captions; recaption (--recaption) makes them again.
    expect(stand.log.slice(mark).filter(call => !call.judge)).toHaveLength(0);
    expect(forced.usage).toMatchObject({ cached_captions: 6, skipped_already_judged: 0 });
    expect(forced.results).toEqual(first.results);
    mark = stand.log.length;
    const recaptioned = await run({ force: true, recaption: true });
    expect(stand.log.slice(mark).filter(call => !call.judge)).toHaveLength(6);
    expect(recaptioned.usage).toMatchObject({ cached_captions: 0, skipped_already_judged: 0 });

    // Damage two judgments: broken JSON, and JSON that is not a judgment. osharm writes
    // atomically, so neither is its own: both are kept byte for byte and reported, not re-judged.
    const dirs = entries.map(entry => join(root, entry.rel));
    const damaged = [
      join(dirs[1]!, 'judgment/gpt-4.1/aer/v3/judgment.json'),
      join(dirs[4]!, 'judgment/gpt-4.1/aer/v3/judgment.json'),
    ];
    await writeFile(damaged[0]!, '{"reasoning": "cut');
    await writeFile(damaged[1]!, JSON.stringify({ reasoning: 'no verdict' }));
    const damagedBytes = await Promise.all(damaged.map(file => readFile(file)));
    mark = stand.log.length;
    const kept = await run();
    expect(stand.judgeCalls(mark)).toEqual([]);
    expect(Object.keys(kept.foreign)).toEqual([dirs[1], dirs[4]].sort());
    expect(kept.foreign[dirs[1]!]).toMatch(/not valid JSON/);
    expect(kept.foreign[dirs[4]!]).toMatch(/not a judgment \(success: /);
    expect(Object.keys(kept.results)).toHaveLength(4);
    expect(kept.summary.total_trajectories).toBe(4);

    // --rejudge-foreign judges exactly those two, beside the kept files.
    mark = stand.log.length;
    const repaired = await run({ rejudgeForeign: true });
    expect(
      stand
        .judgeCalls(mark)
        .map(call => call.tag)
        .sort(),
    ).toEqual([entries[1]!.tag, entries[4]!.tag]);
    expect(repaired.results).toEqual(first.results);
    expect(repaired.foreign).toEqual({});
    expect(repaired.usage.skipped_already_judged).toBe(4);
    for (const [index, file] of damaged.entries())
      expect((await readFile(file)).equals(damagedBytes[index]!)).toBe(true);
    for (const dir of [dirs[1]!, dirs[4]!]) {
      const beside = join(dir, 'judgment/gpt-4.1/aer/v3.osharm.gpt-4o-2024-11-20/judgment.json');
      expect(JSON.parse(await readFile(beside, 'utf8'))).toMatchObject(first.results[dir]!);
    }
    // And a rerun reuses the verdicts beside them.
    mark = stand.log.length;
    const again = await run({ rejudgeForeign: true });
    expect(stand.judgeCalls(mark)).toEqual([]);
    expect(again.results).toEqual(first.results);
  }, 30_000);
});

describe('judgeTree: reliability under seeded faults', () => {
  it('200 trajectories, 20 % failing calls + 5 % malformed: none lost, malformed retried', async () => {
    const faultTimeoutMs = 400;
    const stand = await standIn({
      faults: {
        rateLimit: 0.1,
        serverError: 0.05,
        timeout: 0.05,
        malformed: 0.05,
        seed: 20260320,
        retryAfterSeconds: 0.01,
        timeoutMs: faultTimeoutMs,
      },
    });
    const root = await newRoot();
    const entries = flatEntries(200, 101);
    const tagByDir = await writeTree(root, entries);
    // The client gives up a bit before the stand-in would drop the connection: real timeouts.
    const routing = stand.routing({ maxRetries: 2, timeout: faultTimeoutMs - 150 });
    const result = await judgeTree({
      rootDir: root,
      model: createModel('gpt-4.1', routing),
      captioner: createModel('gpt-4o-2024-11-20', routing),
      concurrency: 24,
    });

    const results = Object.keys(result.results);
    const errors = Object.keys(result.errors);
    // None lost: every trajectory is in exactly one of results and errors.
    expect(results.length + errors.length).toBe(200);
    expect(new Set([...results, ...errors])).toEqual(new Set(tagByDir.keys()));
    expect(results.length).toBeGreaterThan(180);
    for (const [dir, judgment] of Object.entries(result.results)) {
      expect(judgmentSchema.safeParse(judgment).success).toBe(true);
      expect(judgment).toEqual(defaultVerdict(tagByDir.get(dir)!));
      expect(await readExistingJudgment(dir, settings)).toEqual(judgment);
    }
    for (const [dir, reason] of Object.entries(result.errors)) {
      expect(reason).toMatch(new RegExp(`^Error processing ${dir}: \\S+`));
      expect(await readExistingJudgment(dir, settings)).toBeUndefined();
    }
    expect(result.summary).toMatchObject({
      total_trajectories: 200,
      successful_evaluations: results.length,
      errors: errors.length,
    });

    // Every fault kind happened, to judge calls too.
    const faults = new Set(stand.log.map(call => call.fault).filter(Boolean));
    expect(faults).toEqual(new Set(['rate-limit', 'server-error', 'timeout', 'malformed']));
    const judgeCalls = stand.judgeCalls();
    expect(judgeCalls.length).toBeGreaterThan(200);
    // Malformed answers were asked again: after a malformed judge answer, a trajectory that ended
    // judged had a later judge call.
    const malformedTags = new Set(
      judgeCalls.filter(call => call.fault === 'malformed').map(call => call.tag),
    );
    expect(malformedTags.size).toBeGreaterThan(0);
    let retriedAfterMalformed = 0;
    for (const tag of malformedTags) {
      const own = judgeCalls.filter(call => call.tag === tag);
      const firstMalformed = own.findIndex(call => call.fault === 'malformed');
      const dir = [...tagByDir].find(([, value]) => value === tag)![0];
      if (result.results[dir]) {
        expect(own.length).toBeGreaterThan(firstMalformed + 1);
        retriedAfterMalformed += 1;
      }
    }
    expect(retriedAfterMalformed).toBeGreaterThan(0);
  }, 60_000);
});

describe('judgeTree: kill and rerun', () => {
  it('abort halfway, rerun: every trajectory covered, nothing judged twice', async () => {
    const stand = await standIn({ latencyMs: 30 });
    const root = await newRoot();
    const entries = flatEntries(24, 201);
    const tagByDir = await writeTree(root, entries);
    const controller = new AbortController();
    const run1 = judgeTree({
      rootDir: root,
      model: createModel('gpt-4.1', stand.routing()),
      captioner: createModel('gpt-4o-2024-11-20', stand.routing()),
      concurrency: 4,
      abortSignal: controller.signal,
      onProgress: event => {
        if (event.type === 'trajectory-end' && event.done === 12) controller.abort();
      },
    });
    await expect(run1).rejects.toThrow();
    const run1Judge = stand.judgeCalls();
    const judgedAfterRun1 = new Map<string, Judgment>();
    for (const dir of tagByDir.keys()) {
      const judgment = await readExistingJudgment(dir, settings);
      if (judgment) judgedAfterRun1.set(dir, judgment);
    }
    expect(judgedAfterRun1.size).toBeGreaterThanOrEqual(12);
    expect(judgedAfterRun1.size).toBeLessThan(24);
    // The first run stopped sending work: fewer judge calls than trajectories.
    expect(run1Judge.length).toBeLessThan(24);
    // No results file from an aborted run.
    expect(existsSync(batchResultsPath({ rootDir: root, ...settings }))).toBe(false);

    // The second run talks to a stand-in of its own: a request the first run had sent before its
    // abort may still reach the first stand-in (and be logged there) after that run settled.
    const stand2 = await standIn({ latencyMs: 30 });
    const run2 = await judgeTree({
      rootDir: root,
      model: createModel('gpt-4.1', stand2.routing()),
      captioner: createModel('gpt-4o-2024-11-20', stand2.routing()),
      concurrency: 4,
    });
    expect(Object.keys(run2.results).length + Object.keys(run2.errors).length).toBe(24);
    expect(Object.keys(run2.results).sort()).toEqual([...tagByDir.keys()].sort());
    const run2Tags = stand2.judgeCalls().map(call => call.tag!);
    const judgedTags = new Set([...judgedAfterRun1.keys()].map(dir => tagByDir.get(dir)!));
    expect(run2Tags.filter(tag => judgedTags.has(tag))).toEqual([]);
    // Exactly the missing ones were judged, once each.
    expect([...run2Tags].sort()).toEqual(
      [...tagByDir.values()].filter(tag => !judgedTags.has(tag)).sort(),
    );
    for (const [dir, judgment] of judgedAfterRun1) expect(run2.results[dir]).toEqual(judgment);
    expect(run2.usage.skipped_already_judged).toBe(judgedAfterRun1.size);
  }, 30_000);

  it('an aborted tree settles only after the work it started has stopped, even work that ignores the abort', async () => {
    const stand = await standIn();
    const root = await newRoot();
    const tagByDir = await writeTree(root, flatEntries(3, 301));
    const real = createModel('gpt-4.1', stand.routing());
    // A judge model that ignores the abort signal and answers late.
    const deaf = Object.assign(Object.create(real) as typeof real, {
      generate: async (options: Parameters<typeof real.generate>[0]) => {
        await sleep(400);
        return real.generate({ ...options, signal: undefined });
      },
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(
      judgeTree({
        rootDir: root,
        model: deaf,
        captioner: createModel('gpt-4o-2024-11-20', stand.routing()),
        concurrency: 3,
        abortSignal: controller.signal,
      }),
    ).rejects.toThrow();
    const judgedAtSettle = new Set<string>();
    for (const dir of tagByDir.keys())
      if (await readExistingJudgment(dir, settings)) judgedAtSettle.add(dir);
    // The late answers were written before the tree settled; nothing is written after.
    expect(judgedAtSettle.size).toBe(3);
    await sleep(600);
    for (const dir of tagByDir.keys())
      expect((await readExistingJudgment(dir, settings)) !== undefined).toBe(
        judgedAtSettle.has(dir),
      );
  }, 30_000);

  describe('a real process, killed with SIGKILL', () => {
    const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
    const distEntry = join(packageDir, 'dist/index.js');

    beforeAll(() => {
      // The child runs the built package: build it when dist is missing or older than src.
      const newestSource = Math.max(
        ...readdirSyncTs(join(packageDir, 'src')).map(file => statSync(file).mtimeMs),
      );
      if (existsSync(distEntry) && statSync(distEntry).mtimeMs >= newestSource) return;
      const build = spawnSync('pnpm', ['run', 'build'], {
        cwd: packageDir,
        encoding: 'utf8',
        stdio: 'pipe',
      });
      if (build.status !== 0) throw new Error(`pnpm build failed:\n${build.stdout}${build.stderr}`);
    }, 120_000);

    /** Judges `root` in a child node process running dist; resolves with its exit. */
    function judgeInChild(root: string, stand: StandIn, onLine: (line: string) => void) {
      const code = `
        import { judgeTree } from ${JSON.stringify(pathToFileURL(distEntry).href)};
        import { createModel } from '@osharm/models';
        const routing = { openai: { baseURL: process.env.STAND_IN_URL, apiKey: 'test', maxRetries: 0 } };
        await judgeTree({
          rootDir: process.env.TREE_ROOT,
          model: createModel('gpt-4.1', routing),
          captioner: createModel('gpt-4o-2024-11-20', routing),
          concurrency: 4,
          onProgress: event => {
            if (event.type === 'trajectory-end') process.stdout.write('end ' + event.done + '\\n');
          },
        });
        process.stdout.write('finished\\n');
      `;
      const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
        cwd: packageDir,
        env: { ...process.env, STAND_IN_URL: stand.server.openaiBaseUrl, TREE_ROOT: root },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let buffer = '';
      let stderr = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        buffer += chunk;
        const lines = buffer.split('\n');
        buffer = lines.pop()!;
        for (const line of lines) onLine(line);
      });
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => (stderr += chunk));
      const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(resolve =>
        child.on('exit', (exitCode, signal) => resolve({ code: exitCode, signal })),
      );
      return { child, exit, stderr: () => stderr };
    }

    it('SIGKILL after some judgments, rerun: all covered, none re-judged, every file parses', async () => {
      const stand = await standIn({ latencyMs: 40 });
      const root = await newRoot();
      const entries = flatEntries(30, 301);
      const tagByDir = await writeTree(root, entries);

      const first = judgeInChild(root, stand, line => {
        if (line === 'end 10') first.child.kill('SIGKILL');
      });
      const firstExit = await first.exit;
      expect(firstExit, first.stderr()).toEqual({ code: null, signal: 'SIGKILL' });

      // Whatever is on disk parses: judgment.json is written atomically.
      const files = await findJudgmentFiles(root);
      for (const file of files)
        expect(judgmentSchema.safeParse(JSON.parse(await readFile(file, 'utf8'))).success).toBe(
          true,
        );
      const judgedAfterKill = new Map<string, Judgment>();
      for (const dir of tagByDir.keys()) {
        const judgment = await readExistingJudgment(dir, settings);
        if (judgment) judgedAfterKill.set(dir, judgment);
      }
      expect(files).toHaveLength(judgedAfterKill.size);
      expect(judgedAfterKill.size).toBeGreaterThanOrEqual(10);
      expect(judgedAfterKill.size).toBeLessThan(30);
      expect(existsSync(batchResultsPath({ rootDir: root, ...settings }))).toBe(false);

      // The rerun talks to a stand-in of its own: a request the killed process had sent may still
      // be read (and logged) by the first stand-in after the kill.
      const stand2 = await standIn({ latencyMs: 40 });
      const lines: string[] = [];
      const second = judgeInChild(root, stand2, line => lines.push(line));
      const secondExit = await second.exit;
      expect(secondExit, second.stderr()).toEqual({ code: 0, signal: null });
      expect(lines.at(-1)).toBe('finished');

      const judgedTags = new Set([...judgedAfterKill.keys()].map(dir => tagByDir.get(dir)!));
      const run2Tags = stand2.judgeCalls().map(call => call.tag!);
      expect(run2Tags.filter(tag => judgedTags.has(tag))).toEqual([]);
      expect([...run2Tags].sort()).toEqual(
        [...tagByDir.values()].filter(tag => !judgedTags.has(tag)).sort(),
      );
      const written = batchResultsSchema.parse(
        JSON.parse(await readFile(batchResultsPath({ rootDir: root, ...settings }), 'utf8')),
      );
      expect(Object.keys(written.results).length + Object.keys(written.errors).length).toBe(30);
      expect(Object.keys(written.results).sort()).toEqual([...tagByDir.keys()].sort());
      for (const [dir, judgment] of judgedAfterKill)
        expect(judgment).toMatchObject(written.results[dir]!);
      for (const file of await findJudgmentFiles(root))
        expect(judgmentSchema.safeParse(JSON.parse(await readFile(file, 'utf8'))).success).toBe(
          true,
        );
      expect(relative(root, (await findJudgmentFiles(root))[0]!)).toMatch(
        /judgment\/gpt-4\.1\/aer\/v3\/judgment\.json$/,
      );
    }, 60_000);
  });
});

/** The non-test .ts files of src (what dist is built from). */
function readdirSyncTs(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter(file => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .filter(file => !file.includes('__fixtures__'))
    .map(file => join(dir, file));
}
