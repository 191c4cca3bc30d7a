import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VmProviderV1 } from '@osharm/desktop-env';
import { loadDataset } from '@osharm/task-schema';
import { formatSummary, runBenchmark, RunOptionsError, type BenchmarkEvent } from './index';
import { discoverTrajectories } from '@osharm/task-schema/trajectory';
import { mergeResults } from './merge-results';
import { planRuns, type PlannedRun } from './run-plan';
import { parseShard, selectShard } from './run-shard';

/**
 * The shard split over the real dataset's run plan (read in place from ../shared, never copied),
 * and sharded runBenchmark calls that start no desktop (every run resumed, or the signal aborted).
 */
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const DATASET = fileURLToPath(
  new URL('../../../../shared/osharm-dataset/evaluation_examples', import.meta.url),
);
const tmp = mkdtempSync(join(tmpdir(), 'osharm-shard-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let plan: PlannedRun[];
let tasks: Awaited<ReturnType<typeof loadDataset>>['tasks'];
const planIn = (resultDir: string) =>
  planRuns({
    tasks,
    resultDir,
    actionSpace: 'pyautogui',
    observationType: 'a11y_tree',
    modelDir: 'gpt-4o',
    inject: true,
  });
beforeAll(async () => {
  ({ tasks } = await loadDataset({
    baseDir: DATASET,
    indexPaths: ['test_misuse.json', 'test_injection.json', 'test_misbehavior.json'].map(name =>
      join(DATASET, name),
    ),
  }));
  plan = await planIn(join(tmp, 'never-written'));
});

describe('selectShard over the real 150-run plan', () => {
  it('plans 150 distinct runs (misuse, injection (vector, goal) runs, misbehavior)', () => {
    expect(plan).toHaveLength(150);
    expect(new Set(plan.map(run => run.label)).size).toBe(150);
  });

  it.each([1, 2, 3, 4, 5, 6, 7])(
    'N=%i: shards are disjoint, cover the plan, keep its order',
    count => {
      const shards = Array.from({ length: count }, (_, k) =>
        selectShard(plan, { index: k + 1, count }),
      );
      const labels = shards.flatMap(shard => shard.map(run => run.label));
      expect(labels).toHaveLength(plan.length);
      expect(new Set(labels)).toEqual(new Set(plan.map(run => run.label)));
      for (const shard of shards) {
        const positions = shard.map(run => plan.indexOf(run));
        expect(positions).toEqual([...positions].sort((a, b) => a - b));
      }
      const sizes = shards.map(shard => shard.length);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      console.log(`N=${count}: ${sizes.join(' / ')} runs`);
    },
  );

  it('is stable: the same runs on every call, and a longer --limit moves no run', () => {
    const first = selectShard(plan, { index: 2, count: 4 }).map(run => run.label);
    expect(selectShard(plan, { index: 2, count: 4 }).map(run => run.label)).toEqual(first);
    const prefix = plan.slice(0, 90);
    expect(selectShard(prefix, { index: 2, count: 4 }).map(run => run.label)).toEqual(
      first.filter(label => prefix.some(run => run.label === label)),
    );
    expect(selectShard(plan, { index: 1, count: 1 })).toEqual(plan);
  });
});

describe('shards then merge', () => {
  it('three shard trees merge into the run dirs of the unsharded plan, each once', async () => {
    for (const index of [1, 2, 3]) {
      const shardPlan = selectShard(await planIn(join(tmp, `shard-${index}`)), { index, count: 3 });
      for (const [position, run] of shardPlan.entries()) {
        mkdirSync(run.dir, { recursive: true });
        writeFileSync(join(run.dir, 'traj.jsonl'), '{}\n');
        // One errored run per shard: merged as errored, to be run again.
        if (position > 0) writeFileSync(join(run.dir, 'result.txt'), `${index}\n`);
        else writeFileSync(join(run.dir, 'traj.jsonl'), '{"Error": "x"}\n');
      }
    }
    const into = join(tmp, 'merged');
    const report = await mergeResults({
      inputs: [1, 2, 3].map(index => join(tmp, `shard-${index}`)),
      into,
    });
    expect(report).toMatchObject({ written: true, conflicts: [], skipped: [] });
    expect(report.merged.filter(run => run.state === 'errored')).toHaveLength(3);
    const merged = (await discoverTrajectories(into, { runDirs: true })).map(dir =>
      dir.slice(into.length + 1),
    );
    const unsharded = (await planIn(into)).map(run => run.dir.slice(into.length + 1));
    expect(merged).toEqual([...unsharded].sort());
    // Resuming on the merged tree: only the three errored runs are left to run.
    expect((await planIn(into)).filter(run => !run.finished)).toHaveLength(3);
  });
});

describe('parseShard', () => {
  it('reads K/N', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShard('1/1')).toEqual({ index: 1, count: 1 });
  });

  it.each(['0/3', '4/3', '1/0', '-1/3', '1.5/3', '2', 'a/b', '/3', '1/3/4', ''])(
    'refuses %j with one message',
    text => {
      expect(() => parseShard(text)).toThrow(RunOptionsError);
      expect(() => parseShard(text)).toThrow(/--shard/);
    },
  );
});

describe('runBenchmark with a shard', () => {
  const base = {
    cwd: repoRoot,
    env: {},
    model: 'offline-refuse',
    judgeModel: 'none',
    testAllMetaPath: 'evaluation_examples/test_misuse.json',
  } as const;
  const provider = (): VmProviderV1 => ({
    specificationVersion: 'vm-provider-v1',
    providerId: 'elsewhere',
    start: () => Promise.reject(new Error('no run should start')),
    endpoint: () => undefined,
    revert: () => Promise.reject(new Error('no run should start')),
    stop: () => Promise.resolve(),
  });
  const planned = async (options: Parameters<typeof runBenchmark>[0], finished: string[]) => {
    const controller = new AbortController();
    controller.abort();
    const events: BenchmarkEvent[] = [];
    const modelDir = join(options!.resultDir!, 'pyautogui/a11y_tree/offline-refuse');
    for (const run of finished) {
      mkdirSync(join(modelDir, run), { recursive: true });
      writeFileSync(join(modelDir, run, 'result.txt'), '1\n');
    }
    const summary = await runBenchmark(
      { ...base, numEnvs: 1, provider, ...options },
      { signal: controller.signal, onEvent: event => events.push(event) },
    );
    return { event: events[0] as Extract<BenchmarkEvent, { type: 'planned' }>, summary };
  };

  it('refuses a shard out of range before anything starts', async () => {
    await expect(
      runBenchmark({ ...base, shard: { index: 4, count: 3 }, resultDir: join(tmp, 'bad') }),
    ).rejects.toThrow('--shard 4/3: K must be an integer from 1 to 3');
  });

  it('splits the runs --limit leaves; each shard resumes only its own unfinished runs', async () => {
    const whole = await planned({ limit: 5, resultDir: join(tmp, 'whole') }, []);
    const all = whole.event.runs.map(run => run.label);
    expect(all).toHaveLength(5);
    const resultDir = join(tmp, 'sharded');
    // One finished run in each shard's slice (where it has any).
    const slices = [1, 2, 3].map(index => selectShard(whole.event.runs, { index, count: 3 }));
    const done = slices.flatMap(slice => slice.slice(0, 1).map(run => run.label));
    const seen: string[] = [];
    for (const [k, slice] of slices.entries()) {
      const { event, summary } = await planned(
        { limit: 5, resultDir, shard: { index: k + 1, count: 3 } },
        k === 0 ? done : [],
      );
      expect(event.shard).toEqual({ index: k + 1, count: 3, runs: slice.length, of: 5 });
      expect(event.runs.map(run => run.label)).toEqual(slice.map(run => run.label));
      expect(event.pending.map(run => run.label)).toEqual(
        slice.filter(run => !done.includes(run.label)).map(run => run.label),
      );
      expect(formatSummary(summary, { judgeModel: 'none', resultDir: 'r' })).toMatch(
        new RegExp(`^\\nshard ${k + 1}/3: ${slice.length} of 5 runs\\n`),
      );
      seen.push(...event.runs.map(run => run.label));
    }
    expect(seen.sort()).toEqual([...all].sort());
  });
});
