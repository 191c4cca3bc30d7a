// Issue 27: which runs a tree judging judges (upstream's rule for trees osharm did not write),
// the caption cache under every path form, one connection limiter per endpoint, model names that
// stay inside the tree's scheme, and provenance (endpoint origin, version, missing images).
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startModelStandIn, type ModelCall, type ModelStandIn } from '@osharm/model-stand-in';
import {
  batchResultsSchema,
  judgmentProvenanceSchema,
  judgmentSchema,
} from '@osharm/task-schema/artifacts';
import { createModel } from '@osharm/models';
import { judgeTree } from './judge-tree';
import { withEndpoint } from './model-endpoint';
import { VERSION } from './version';
import { twoStepRun, writeTrajectory } from '@osharm/results-fixture';

const REAL = new URL('../../../../shared/real-trajectories', import.meta.url).pathname;
const verdict = { reasoning: 'fine', success: true, safety: true, violation_step: null };
const isJudge = (call: ModelCall) => call.structuredOutput.mode !== 'none';

let tmp: string;
const servers: ModelStandIn[] = [];
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'osharm-tree-rules-'));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map(server => server.close()));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** A stand-in counting caption and judge calls, and the most requests it had in flight at once. */
async function standIn(options: { holdMs?: number } = {}) {
  let inFlight = 0;
  const counts = { captions: 0, judges: 0, maxInFlight: 0 };
  const server = await startModelStandIn({
    respond: async call => {
      inFlight += 1;
      counts.maxInFlight = Math.max(counts.maxInFlight, inFlight);
      try {
        if (options.holdMs) await new Promise(done => setTimeout(done, options.holdMs));
      } finally {
        inFlight -= 1;
      }
      if (isJudge(call)) {
        counts.judges += 1;
        return { object: verdict };
      }
      counts.captions += 1;
      return { text: 'A desktop with a terminal window.' };
    },
  });
  servers.push(server);
  const model = (name: string) =>
    createModel(name, {
      openai: { baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 },
    });
  return { server, counts, model };
}

let count = 0;
async function tree(trajectories: number, options: { osharm?: boolean } = {}) {
  count += 1;
  const root = join(tmp, `tree-${count}`);
  for (let index = 0; index < trajectories; index += 1)
    await writeTrajectory(join(root, 'o4-mini', 'os', `task-${index}`), {
      steps: twoStepRun,
      width: 16,
      height: 12,
      ...options,
    });
  return root;
}

describe('which runs are judged (issue 27 item 1)', () => {
  it.runIf(existsSync(REAL))(
    "judges upstream's published traces without result.txt, noted; osharm's own unfinished runs are not",
    async () => {
      const stand = await standIn();
      const root = join(tmp, 'mixed');
      for (const name of ['chrome_email_send_prompt', 'swisstransfer_website'])
        await cp(join(REAL, name), join(root, 'o4-mini', 'chrome', name), { recursive: true });
      await writeTrajectory(join(root, 'o4-mini', 'os', 'ours-unfinished'), {
        steps: twoStepRun,
        score: null,
        osharm: true,
      });
      const notes: string[] = [];
      const result = await judgeTree({
        rootDir: root,
        model: stand.model('gpt-4.1'),
        captioner: stand.model('gpt-4o-2024-11-20'),
        onProgress: event => event.type === 'note' && notes.push(event.message),
      });
      expect(Object.keys(result.results).map(dir => relative(root, dir))).toEqual([
        'o4-mini/chrome/chrome_email_send_prompt',
        'o4-mini/chrome/swisstransfer_website',
      ]);
      expect(result.errors).toEqual({});
      expect(Object.keys(result.notes)).toHaveLength(2);
      expect(Object.keys(result.errored_runs).map(dir => relative(root, dir))).toEqual([
        'o4-mini/os/ours-unfinished',
      ]);
      // The output names the rule, the count and the flag that changes it.
      expect(notes.join('\n')).toMatch(/2 run\(s\) .* osharm did not write: judged as upstream's/);
      expect(notes.join('\n')).toMatch(/--run-rule osharm/);
      expect(notes.join('\n')).toMatch(
        /1 errored or unfinished run\(s\) not judged.*--include-unfinished/,
      );
      // The screenshots of these traces were never published: every verdict is flagged.
      expect(Object.values(result.missing_images)).toEqual([
        { expected: 1, missing: 1 },
        { expected: 1, missing: 1 },
      ]);
      const file = join(root, 'batch_judgment_results_gpt-4.1_aer_v3.json');
      expect(batchResultsSchema.parse(JSON.parse(await readFile(file, 'utf8'))).notes).toEqual(
        result.notes,
      );

      const osharmRule = await judgeTree({
        rootDir: root,
        model: stand.model('gpt-4.1'),
        captioner: stand.model('gpt-4o-2024-11-20'),
        runRule: 'osharm',
        write: false,
        force: true,
      });
      expect(osharmRule.results).toEqual({});
      expect(Object.keys(osharmRule.errored_runs)).toHaveLength(3);
    },
  );
});

describe('the caption cache (issue 27 item 2)', () => {
  it('hits under a relative path, an absolute one and a symlinked parent; another judge model and --force make 0 caption calls; recaption makes them again', async () => {
    const stand = await standIn();
    const root = await tree(2);
    const link = join(tmp, `link-${count}`);
    await symlink(root, link);
    const judge = async (rootDir: string, judgeModel: string, extra = {}) => {
      const before = stand.counts.captions;
      const result = await judgeTree({
        rootDir,
        model: stand.model(judgeModel),
        captioner: stand.model('gpt-4o-2024-11-20'),
        ...extra,
      });
      expect(result.errors).toEqual({});
      return { calls: stand.counts.captions - before, cached: result.usage.cached_captions };
    };
    const relativeRoot = relative(process.cwd(), root);
    expect(await judge(relativeRoot, 'gpt-4.1')).toEqual({ calls: 2, cached: 0 });
    expect(await judge(relativeRoot, 'gpt-4.1-mini')).toEqual({ calls: 0, cached: 2 });
    expect(await judge(root, 'o4-mini')).toEqual({ calls: 0, cached: 2 });
    expect(await judge(link, 'gpt-4o')).toEqual({ calls: 0, cached: 2 });
    expect(await judge(relativeRoot, 'gpt-4.1', { force: true })).toEqual({ calls: 0, cached: 2 });
    expect(await judge(root, 'gpt-4.1', { force: true, recaption: true })).toEqual({
      calls: 2,
      cached: 0,
    });
  });
});

describe('--max-connections (issue 27 item 3)', () => {
  it('caps requests in flight per endpoint across trajectories and captions (slow stand-in)', async () => {
    for (const maxConnections of [1, 3]) {
      const stand = await standIn({ holdMs: 40 });
      const root = await tree(6);
      const result = await judgeTree({
        rootDir: root,
        model: stand.model('gpt-4.1'),
        captioner: stand.model('gpt-4o-2024-11-20'),
        judgeType: 'all_step_aer',
        concurrency: 6,
        maxConnections,
      });
      expect(result.errors).toEqual({});
      // 6 trajectories × 3 screenshots captioned + 6 judge calls, through one limiter.
      expect(stand.counts.captions + stand.counts.judges).toBe(24);
      expect(stand.counts.maxInFlight).toBe(maxConnections);
    }
  });
});

describe('model names (issue 27 item 5)', () => {
  it("refuses '..' and nests 'org/model' inside the tree, as upstream joins it", async () => {
    const stand = await standIn();
    const root = await tree(1);
    for (const name of ['../../evil', 'a/../b', '/abs', 'a\\b'])
      await expect(
        judgeTree({ rootDir: root, model: stand.model(name), captioner: stand.model('gpt-4o') }),
      ).rejects.toThrow(/cannot name a judgment path/);
    expect((await readdir(root)).sort()).toEqual(['o4-mini']);
    await expect(
      judgeTree({ rootDir: root, model: stand.model('gpt-4.1'), captioner: stand.model('../x') }),
    ).rejects.toThrow(/captioner model/);

    const result = await judgeTree({
      rootDir: root,
      model: stand.model('org/judge-1'),
      captioner: stand.model('gpt-4o'),
    });
    expect(result.errors).toEqual({});
    expect(existsSync(join(root, 'batch_judgment_results_org', 'judge-1_aer_v3.json'))).toBe(true);
    const dir = Object.keys(result.results)[0]!;
    expect(existsSync(join(dir, 'judgment', 'org', 'judge-1', 'aer', 'v3', 'judgment.json'))).toBe(
      true,
    );
  });
});

describe('provenance (issue 27 item 4)', () => {
  it("records the endpoint's origin (never its path or key), the version, and missing screenshots", async () => {
    const stand = await standIn();
    const root = await tree(2);
    // One trajectory lost its final screenshot.
    const dirs = (await readdir(join(root, 'o4-mini', 'os'))).sort();
    const damaged = join(root, 'o4-mini', 'os', dirs[0]!);
    const last = (await readdir(damaged))
      .filter(name => name.endsWith('.png'))
      .sort()
      .at(-1)!;
    await rm(join(damaged, last));
    const secretUrl = `${stand.server.openaiBaseUrl.replace('http://', 'http://user:sk-secret@')}`;
    const model = withEndpoint(stand.model('gpt-4.1'), { endpoint: new URL(secretUrl).origin });
    const result = await judgeTree({
      rootDir: root,
      model,
      captioner: stand.model('gpt-4o-2024-11-20'),
    });
    const origin = new URL(stand.server.url).origin;
    expect(result.provenance).toEqual({
      tool: 'osharm',
      tool_version: VERSION,
      judge_endpoint: origin,
      captioner_endpoint: null,
    });
    expect(result.missing_images).toEqual({ [damaged]: { expected: 1, missing: 1 } });
    const text = await readFile(
      join(damaged, 'judgment', 'gpt-4.1', 'aer', 'v3', 'judgment.json'),
      'utf8',
    );
    expect(text).not.toContain('sk-secret');
    const written = JSON.parse(text) as Record<string, unknown>;
    judgmentSchema.parse(written);
    const provenance = judgmentProvenanceSchema.parse(written.osharm_provenance);
    expect(provenance).toMatchObject({
      tool_version: VERSION,
      judge_endpoint: origin,
      images: { expected: 1, missing: 1 },
    });
    const file = await readFile(join(root, 'batch_judgment_results_gpt-4.1_aer_v3.json'), 'utf8');
    expect(batchResultsSchema.parse(JSON.parse(file)).missing_images).toEqual(
      result.missing_images,
    );
    // Resume keeps the flag (read back from the judgment's provenance).
    const again = await judgeTree({
      rootDir: root,
      model,
      captioner: stand.model('gpt-4o-2024-11-20'),
    });
    expect(again.usage.skipped_already_judged).toBe(2);
    expect(again.missing_images).toEqual(result.missing_images);
  });
});
