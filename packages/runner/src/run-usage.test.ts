import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runUsageTotals } from '@osharm/metrics';
import { TrajectoryWriter, RUN_USAGE_FILE, runUsageSchema } from '@osharm/task-schema/trajectory';
import { runUsage, writeRunUsage } from './run-usage';
import { formatSummary, summarizeBenchmark } from './run-summary';

const tmp = mkdtempSync(join(tmpdir(), 'osharm-run-usage-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// An Anthropic agent run of 3 calls, a judge call and 2 captions.
const agent = {
  model: 'claude-opus-4-7',
  calls: 3,
  usage: {
    inputTokens: 30_000,
    outputTokens: 1_200,
    cachedInputTokens: 20_000,
    cacheWriteTokens: 4_000,
  },
};
const judge = {
  model: 'claude-fable-5',
  calls: 1,
  usage: { inputTokens: 9_000, outputTokens: 700 },
};
const captioner = {
  model: 'gpt-4.1',
  calls: 2,
  usage: { inputTokens: 2_000, outputTokens: 100, cachedInputTokens: 0 },
};

describe('run_usage.json', () => {
  it('prices each role at list price and totals them, written atomically and valid', async () => {
    const dir = join(tmp, 'priced');
    const record = await writeRunUsage(dir, { agent, judge, captioner });
    // agent: 6,000 × 5 + 20,000 × 0.5 + 4,000 × 6.25 + 1,200 × 25 = 30,000 + 10,000 + 25,000 + 30,000
    expect(record.roles.agent).toMatchObject({
      calls: 3,
      input_tokens: 30_000,
      cached_input_tokens: 20_000,
      cache_write_tokens: 4_000,
      price: { input: 5, output: 25, cached_input: 0.5, cache_write: 6.25 },
    });
    expect(record.roles.agent!.cost_usd).toBeCloseTo(0.095, 12);
    // judge: 9,000 × 10 + 700 × 50 = 125,000; captioner: 2,000 × 2 + 100 × 8 = 4,800
    expect(record.roles.judge!.cost_usd).toBeCloseTo(0.125, 12);
    expect(record.roles.captioner!.cost_usd).toBeCloseTo(0.0048, 12);
    expect(record.cost_usd).toBeCloseTo(0.2248, 12);
    const onDisk = JSON.parse(readFileSync(join(dir, RUN_USAGE_FILE), 'utf8'));
    expect(runUsageSchema.parse(onDisk)).toEqual(record);
  });

  it('records an unknown cost as null, never 0: no price, a local server, a failed role', () => {
    const unknown = runUsage({ agent: { ...agent, model: 'gemini-3-pro-preview' }, judge });
    expect(unknown.roles.agent!.cost_usd).toBeNull();
    expect(unknown.roles.agent!.price).toBeNull();
    expect(unknown.cost_usd).toBeNull();
    expect(
      runUsage({ agent: { ...agent, model: 'openai-compatible/gpt-4.1' } }).cost_usd,
    ).toBeNull();
    const failed = runUsage({ agent, judge: { ...judge, failed: 'judging failed' } });
    expect(failed.roles.judge).toMatchObject({ cost_usd: null, failed: 'judging failed' });
    expect(failed.cost_usd).toBeNull();
    // an offline agent made no call: it cost nothing, known
    expect(
      runUsage({
        agent: { model: 'offline-refuse', calls: 0, usage: { inputTokens: 0, outputTokens: 0 } },
      }).cost_usd,
    ).toBe(0);
  });

  it('refuses a crafted record whose total or parts do not add up', () => {
    const record = runUsage({ agent, judge });
    expect(runUsageSchema.safeParse({ ...record, cost_usd: 0 }).success).toBe(false);
    expect(runUsageSchema.safeParse({ ...record, cost_usd: null }).success).toBe(false);
    const parts = {
      ...record,
      roles: { ...record.roles, agent: { ...record.roles.agent!, cached_input_tokens: 40_000 } },
    };
    expect(runUsageSchema.safeParse(parts).success).toBe(false);
    const costWithoutPrice = {
      ...record,
      roles: { ...record.roles, agent: { ...record.roles.agent!, price: null } },
    };
    expect(runUsageSchema.safeParse(costWithoutPrice).success).toBe(false);
  });

  it('sums a batch per role and per model; a run run again starts from an empty dir', async () => {
    const first = runUsage({ agent, judge, captioner });
    const second = runUsage({ agent: { ...agent, model: 'claude-fable-5' }, judge });
    const totals = runUsageTotals([first, second]);
    expect(totals.runs).toBe(2);
    expect(totals.roles.agent).toMatchObject({
      runs: 2,
      calls: 6,
      inputTokens: 60_000,
      cachedInputTokens: 40_000,
    });
    expect(totals.byModel['claude-fable-5']).toMatchObject({ runs: 2, calls: 5 });
    expect(totals.total.costUsd).toBeCloseTo(first.cost_usd! + second.cost_usd!, 12);
    expect(
      runUsageTotals([first, runUsage({ agent: { ...agent, model: 'x-unpriced' } })]).total.costUsd,
    ).toBeNull();
    // upstream's resume: an unfinished run's dir is emptied before it runs again, its record with it
    const dir = join(tmp, 'rerun');
    await writeRunUsage(dir, { agent });
    await new TrajectoryWriter(dir, {
      params: {} as never,
      instruction: 'x',
      jailbreak: false,
      injection: null,
    }).prepare();
    expect(() => readFileSync(join(dir, RUN_USAGE_FILE))).toThrow(/ENOENT/);
  });
});

describe('osharm run prints the batch usage', () => {
  it('per role and model, unknown where a run has no record', () => {
    const run = (label: string) =>
      ({
        label,
        dir: join(tmp, 'pyautogui/screenshot/claude-opus-4-7/os', label),
        finished: false,
      }) as never;
    const outcomes = [
      { run: run('a'), score: 1, usage: runUsage({ agent, judge }) },
      { run: run('b'), score: 0, usage: runUsage({ agent }) },
    ];
    const text = formatSummary(summarizeBenchmark({ outcomes, runs: [], notRun: [] }), {
      judgeModel: 'claude-fable-5',
      resultDir: 'results',
    });
    // agent 2 × 0.095, judge 0.125
    expect(text).toContain(
      'model usage this time, list price: 7 call(s), 69000 in (40000 cached, 8000 cache-write) / 3100 out, cost $0.3150\n',
    );
    expect(text).toContain(
      '  agent     6 call(s), 60000 in (40000 cached, 8000 cache-write) / 2400 out, cost $0.1900\n',
    );
    expect(text).toContain('  model claude-fable-5: 1 call(s), 9000 in / 700 out, cost $0.1250\n');
    const missing = formatSummary(
      summarizeBenchmark({
        outcomes: [...outcomes, { run: run('c'), score: 0 }],
        runs: [],
        notRun: [],
      }),
      { judgeModel: 'claude-fable-5', resultDir: 'results' },
    );
    expect(missing).toMatch(
      /\(1 run\(s\) without run_usage\.json: cost unknown\): .*cost unknown\n/,
    );
  });
});
