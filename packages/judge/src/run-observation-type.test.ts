// Issue 26 item 2: run facts flow one way. Each run is judged with the observation type it
// recorded (osharm's runs); an observationType given wins and is reported; runs osharm did not
// write keep upstream's batch default, whatever they recorded.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelStandIn, type ModelCall, type ModelStandIn } from '@osharm/model-stand-in';
import { PUBLISHED_RUNS_OBSERVATION_TYPE } from '@osharm/task-schema';
import { batchResultsSchema, judgmentProvenanceSchema } from '@osharm/task-schema/artifacts';
import { readRunRecord, runDirOf } from '@osharm/task-schema/trajectory';
import { createModel } from '@osharm/models';
import { judgeTree } from './judge-tree';
import { judgeTrajectory } from './judge-trajectory';
import type { JudgeTreeEvent } from './judge-tree-types';
import { twoStepRun, writeTrajectory } from '@osharm/results-fixture';

const verdict = { reasoning: 'fine', success: true, safety: true, violation_step: null };

let tmp: string;
let server: ModelStandIn;
/** Every judge call the stand-in received, as sent. */
const judgeCalls: ModelCall[] = [];
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'osharm-run-observation-'));
  server = await startModelStandIn({
    respond: call => {
      judgeCalls.push(call);
      return { object: verdict };
    },
  });
});
afterAll(async () => {
  await server.close();
  await rm(tmp, { recursive: true, force: true });
});

const model = () =>
  createModel('gpt-4.1', {
    openai: { baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 },
  });

/** A run in upstream's layout whose instruction names it, so its judge call can be found. */
async function run(
  root: string,
  name: string,
  observationType: string,
  options: { osharm: boolean },
): Promise<string> {
  const { dir } = runDirOf({
    resultDir: root,
    actionSpace: 'pyautogui',
    observationType,
    model: 'o4-mini',
    domain: 'os',
    taskId: name,
  });
  await writeTrajectory(dir, {
    steps: twoStepRun,
    width: 16,
    height: 12,
    observationType,
    instruction: `Rename the file of run ${name}.`,
    osharm: options.osharm,
  });
  return dir;
}

/** The judge call of each run (by its instruction), made since `before`. */
function callsByRun(before: number, names: readonly string[]): Record<string, ModelCall> {
  const calls = judgeCalls.slice(before);
  const byRun: Record<string, ModelCall> = {};
  for (const name of names) {
    const matching = calls.filter(call =>
      JSON.stringify(call.messages).includes(`Rename the file of run ${name}.`),
    );
    expect(matching, name).toHaveLength(1);
    byRun[name] = matching[0]!;
  }
  return byRun;
}

async function provenanceOf(dir: string, typeDir = 'default') {
  const text = await readFile(join(dir, 'judgment/gpt-4.1', typeDir, 'v3/judgment.json'), 'utf8');
  return judgmentProvenanceSchema.parse(
    (JSON.parse(text) as { osharm_provenance: unknown }).osharm_provenance,
  );
}

let trees = 0;
async function mixedTree() {
  trees += 1;
  const root = join(tmp, `mixed-${trees}`);
  const shot = await run(root, 'shot', 'screenshot', { osharm: true });
  const tree = await run(root, 'tree', 'a11y_tree', { osharm: true });
  return { root, shot, tree };
}

describe("the judge takes each run's observation type from its facts", () => {
  it('judges runs of two observation types in one call, each with its own', async () => {
    const { root, shot, tree } = await mixedTree();
    // The facts the judge reads: task-schema's one reader.
    expect((await readRunRecord(shot)).facts?.observationType).toBe('screenshot');
    expect((await readRunRecord(tree)).facts?.observationType).toBe('a11y_tree');
    const events: JudgeTreeEvent[] = [];
    const before = judgeCalls.length;
    const result = await judgeTree({
      rootDir: root,
      judgeType: 'default',
      model: model(),
      onProgress: event => events.push(event),
    });
    expect(Object.keys(result.errors)).toEqual([]);
    const calls = callsByRun(before, ['shot', 'tree']);
    // `default` shows a step's screenshot only when the run observed screenshots.
    expect(calls.shot!.imageCount).toBeGreaterThan(0);
    expect(calls.tree!.imageCount).toBe(0);
    expect((await provenanceOf(shot)).observation_type).toBe('screenshot');
    // a11y_tree + default: upstream's a11_tree_default dir, taken from the run's own type.
    expect((await provenanceOf(tree, 'a11_tree_default')).observation_type).toBe('a11y_tree');
    // Nothing overridden, nothing to say.
    expect(result.notes).toEqual({});
    expect(events.filter(event => event.type === 'note')).toEqual([]);
    // A mixed tree: the batch's type (config, file name) is upstream's default.
    expect(result.config.observation_type).toBe(PUBLISHED_RUNS_OBSERVATION_TYPE);
    const file = join(root, 'batch_judgment_results_gpt-4.1_default_v3.json');
    batchResultsSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  });

  it('a tree of one type names it in config and, for a11y_tree + default, writes where upstream does', async () => {
    trees += 1;
    const root = join(tmp, `single-${trees}`);
    await run(root, 'one', 'a11y_tree', { osharm: true });
    await run(root, 'two', 'a11y_tree', { osharm: true });
    const result = await judgeTree({ rootDir: root, judgeType: 'default', model: model() });
    expect(result.config.observation_type).toBe('a11y_tree');
    expect(
      existsSync(join(root, 'a11_tree_default/batch_judgment_results_gpt-4.1_default_v3.json')),
    ).toBe(true);
    expect(existsSync(join(root, 'batch_judgment_results_gpt-4.1_default_v3.json'))).toBe(false);
  });

  it('an observationType given wins over every run, and says where it overrides', async () => {
    const { root, shot, tree } = await mixedTree();
    const events: JudgeTreeEvent[] = [];
    const before = judgeCalls.length;
    const result = await judgeTree({
      rootDir: root,
      judgeType: 'default',
      observationType: 'a11y_tree',
      model: model(),
      onProgress: event => events.push(event),
    });
    const calls = callsByRun(before, ['shot', 'tree']);
    expect(calls.shot!.imageCount).toBe(0);
    expect(calls.tree!.imageCount).toBe(0);
    expect((await provenanceOf(shot, 'a11_tree_default')).observation_type).toBe('a11y_tree');
    expect(result.config.observation_type).toBe('a11y_tree');
    // Said once on the progress channel (stderr in the CLI) and per run in `notes`.
    const notes = events.flatMap(event => (event.type === 'note' ? [event.message] : []));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/observation type a11y_tree .*overrides the one 1 run\(s\) recorded/);
    expect(Object.keys(result.notes)).toEqual([shot]);
    expect(result.notes[shot]).toMatch(
      /a11y_tree as asked .*overriding the run's recorded screenshot/,
    );
    expect(result.notes[tree]).toBeUndefined();
  });

  it("keeps upstream's default for runs osharm did not write, noting what they recorded", async () => {
    trees += 1;
    const root = join(tmp, `upstream-${trees}`);
    const dir = await run(root, 'theirs', 'a11y_tree', { osharm: false });
    expect((await readRunRecord(dir)).origin).toBe('other');
    const before = judgeCalls.length;
    const result = await judgeTree({ rootDir: root, judgeType: 'default', model: model() });
    // As upstream's run_judge_batch: screenshot_a11y_tree, so the screenshots are sent.
    expect(callsByRun(before, ['theirs']).theirs!.imageCount).toBeGreaterThan(0);
    expect((await provenanceOf(dir)).observation_type).toBe(PUBLISHED_RUNS_OBSERVATION_TYPE);
    expect(result.config.observation_type).toBe(PUBLISHED_RUNS_OBSERVATION_TYPE);
    expect(result.notes[dir]).toMatch(/upstream's batch judge default .*recorded a11y_tree/);
  });

  it("judgeTrajectory alone does the same: the run's own type, or the one given (noted)", async () => {
    const { shot } = await mixedTree();
    const own = await judgeTrajectory({ dir: shot, judgeType: 'default', model: model() });
    expect(own.provenance.observation_type).toBe('screenshot');
    expect(own.notes.join('\n')).not.toMatch(/observation type/);
    const given = await judgeTrajectory({
      dir: shot,
      judgeType: 'default',
      observationType: 'a11y_tree',
      model: model(),
      write: false,
    });
    expect(given.provenance.observation_type).toBe('a11y_tree');
    expect(given.notes.join('\n')).toMatch(/overriding the run's recorded screenshot/);
  });
});
