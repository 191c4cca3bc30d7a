// Where the judge bench's CPU per `aer` trajectory goes: each part of a timed pass run alone over
// the bench's 150 trajectories, in one warm process, against instant stand-ins in child processes.
//
//   pnpm --filter @osharm/judge run build && node --experimental-strip-types bench/judge-parts.ts [rounds]
//
// Prints, per part, the median and the lowest CPU per trajectory (process.cpuUsage, user + system)
// over `rounds` rounds (default 7) and the system share. A reference for judge-bench.ts's (b): no
// target, no PASS / FAIL. The parts are those a forced re-judging runs per trajectory
// (judge-tree.ts): the run status and the resume plan, the trajectory read with its cached caption,
// the judge call, the validation and provenance, and the writes (judgment.json, messages.json).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { benchDir } from './bench-dir.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  callJudgeModel,
  createCaptioner,
  judgeTree,
  planResume,
  prepareJudgeInput,
  provenanceFor,
  validateJudgment,
  writeJudgment,
  type JudgeAnswer,
  type PreparedJudgeInput,
} from '@osharm/judge';
import { JUDGMENT_OUTPUT } from '@osharm/judge/internal';
import { createModel } from '@osharm/models';
import { discoverTrajectories, readRunStatus } from '@osharm/task-schema/trajectory';
import { writeAerTree } from './bench-trees.ts';

const here = dirname(fileURLToPath(import.meta.url));
const TRAJECTORIES = 150;
const CONCURRENCY = 16;
const ROUNDS = Number(process.argv[2] ?? '7');

async function startStandIn(): Promise<{ url: string; close: () => void }> {
  const child = spawn(
    process.execPath,
    ['--experimental-strip-types', join(here, 'bench-stand-in.ts'), '0'],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const first = await new Promise<string>(resolve =>
    createInterface({ input: child.stdout }).once('line', resolve),
  );
  return {
    url: (JSON.parse(first) as { openaiBaseUrl: string }).openaiBaseUrl,
    close: () => child.stdin.end(),
  };
}

const routing = (baseURL: string) => ({ openai: { baseURL, apiKey: 'bench', maxRetries: 0 } });
const root = await mkdtemp(join(benchDir(), 'osharm-judge-parts-'));
const judgeServer = await startStandIn();
const captionServer = await startStandIn();
const rows: string[] = [];
try {
  const aerRoot = join(root, 'aer');
  const dirs = await writeAerTree(aerRoot, TRAJECTORIES);
  const model = createModel('gpt-4.1', routing(judgeServer.url));
  const captionModel = createModel('gpt-4o-2024-11-20', routing(captionServer.url));
  // The bench's untimed pass: captions made and cached, judgments written, the process warm.
  await judgeTree({ rootDir: aerRoot, model, captioner: captionModel, concurrency: CONCURRENCY });
  const captioner = createCaptioner({ model: captionModel });
  const request = {
    judgeModel: model.modelId,
    judgeType: 'aer',
    promptVersion: 'v3',
    observationType: 'screenshot_a11y_tree',
    captioner: captionModel.modelId,
  } as const;
  const prepared: PreparedJudgeInput[] = [];
  const answers: JudgeAnswer[] = [];

  /** Runs `work` for every trajectory, `width` at a time, `ROUNDS` times; prints one row. */
  const part = async (name: string, work: (dir: string, index: number) => unknown, width = 1) => {
    const totals: number[] = [];
    const systems: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const start = process.cpuUsage();
      for (let index = 0; index < TRAJECTORIES; index += width)
        await Promise.all(
          dirs.slice(index, index + width).map((dir, offset) => work(dir, index + offset)),
        );
      const used = process.cpuUsage(start);
      totals.push((used.user + used.system) / 1000 / TRAJECTORIES);
      systems.push(used.system / 1000 / TRAJECTORIES);
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
    rows.push(
      `${median(totals).toFixed(3).padStart(7)} ms (lowest ${Math.min(...totals).toFixed(3)}, system ${median(systems).toFixed(3)})  ${name}`,
    );
  };

  await part('tree discovery (one per pass, / 150)', async (_dir, index) => {
    if (index === 0) await discoverTrajectories(aerRoot, { runDirs: true });
  });
  await part('run status (result.txt) + better_log.json present', async dir => {
    await readRunStatus(dir);
    existsSync(join(dir, 'better_log.json'));
  });
  await part('resume plan (reads the judgment.json there)', async dir => {
    await planResume(dir, request, { force: true });
  });
  await part('judge input: trajectory read, cached caption, prompt', async (dir, index) => {
    prepared[index] = await prepareJudgeInput({
      dir,
      judgeType: 'aer',
      captioner,
      observationType: request.observationType,
    });
  });
  await part(
    `judge call (SDK + node:http, instant stand-in, ${CONCURRENCY} at a time)`,
    async (_dir, index) => {
      answers[index] = await callJudgeModel(model, {
        prompt: prepared[index]!.prompt,
        output: JUDGMENT_OUTPUT,
      });
    },
    CONCURRENCY,
  );
  const verdict = (index: number) => ({
    judgment: validateJudgment(answers[index]!.object, 2, model.modelId),
    provenance: provenanceFor(request, model.modelId, {
      judgeEndpoint: model.endpoint,
      captionerEndpoint: captionModel.endpoint,
      images: prepared[index]!.images,
    }),
  });
  await part('validation + provenance', (_dir, index) => verdict(index));
  await part('writes: guard, messages.json, judgment.json', async (dir, index) => {
    await writeJudgment({ dir, ...request, ...verdict(index), prompt: prepared[index]!.prompt });
  });
  await part('judgeTree with every judgment reused (per pass, / 150)', async (_dir, index) => {
    if (index === 0)
      await judgeTree({ rootDir: aerRoot, model, captioner: captionModel, concurrency: 16 });
  });
} finally {
  judgeServer.close();
  captionServer.close();
  await rm(root, { recursive: true, force: true });
}
process.stdout.write(
  `CPU per aer trajectory, median of ${ROUNDS} rounds over ${TRAJECTORIES} trajectories (node ${process.version}):\n${rows.join('\n')}\n`,
);
