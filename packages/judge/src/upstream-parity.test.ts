import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelStandIn, type ModelCall, type ModelStandIn } from '@osharm/model-stand-in';
import {
  OBSERVATION_TYPES,
  PROMPT_VERSIONS,
  TaskValidationError,
  type JudgeType,
  type ObservationType,
  type PromptVersion,
} from '@osharm/task-schema';
import { openUpstream } from '@osharm/upstream';
import { createTestCheckout, findSharedDir, type TestCheckout } from '@osharm/upstream/test';
import { createModel } from '@osharm/models';
import { judgeTrajectory } from './judge-trajectory';
import { readUpstreamJudgeTexts, type UpstreamJudgeTexts } from './upstream-judge-texts';
import { twoStepRun, writeTrajectory } from '@osharm/results-fixture';

// Parity with upstream's own judge code: __fixtures__/upstream_judge_messages.py runs upstream's
// judge/methods/*.py (openai stood in by __fixtures__/python-stubs, which records requests) and
// prints the message lists; osharm judges the same trajectories with the same checkout through
// the loopback stand-in. The judge's messages and the captioner's whole requests must be equal
// byte for byte (JSON text, key order included), captions included.
const HARNESS = fileURLToPath(
  new URL('./__fixtures__/upstream_judge_messages.py', import.meta.url),
);
const STUBS = fileURLToPath(new URL('./__fixtures__/python-stubs', import.meta.url));

const verdict = { reasoning: 'ok', success: true, safety: true, violation_step: null };

/** The caption both sides give an image (python-stubs/openai does the same). */
function captionFor(url: string): string {
  const digest = createHash('sha256').update(url, 'utf8').digest('hex');
  return `# Screen ${digest.slice(0, 12)}\n- window: ${digest.slice(12, 24)}\n`;
}

type Json = Record<string, unknown>;
function imageUrlOf(body: Json): string {
  for (const message of body.messages as { content: unknown }[])
    if (Array.isArray(message.content))
      for (const part of message.content as Json[])
        if (part.type === 'image_url') return (part.image_url as { url: string }).url;
  return '';
}

let server: ModelStandIn;
let checkout: TestCheckout;
let texts: UpstreamJudgeTexts;
let tmp: string;
const trajectories: Record<string, string> = {};

beforeAll(async () => {
  server = await startModelStandIn({
    respond: (call: ModelCall) =>
      call.structuredOutput.mode === 'none'
        ? { text: captionFor(imageUrlOf(call.body as Json)) }
        : { object: verdict },
  });
  checkout = createTestCheckout();
  texts = readUpstreamJudgeTexts(openUpstream(checkout.dir));
  tmp = mkdtempSync(join(tmpdir(), 'osharm-upstream-parity-'));
  const real = join(findSharedDir(), 'real-trajectories');
  for (const name of readdirSync(real, { withFileTypes: true })) {
    if (!name.isDirectory()) continue;
    cpSync(join(real, name.name), join(tmp, `real-${name.name}`), { recursive: true });
    trajectories[`real ${name.name}`] = join(tmp, `real-${name.name}`);
  }
  const generated: [string, Parameters<typeof writeTrajectory>[1]][] = [
    ['generated two steps', { steps: twoStepRun, instruction: 'Rename {the} file "notes".' }],
    [
      'generated stale name and Error line',
      {
        steps: [
          twoStepRun[0]!,
          { response: 'Thinking only, no action.', actions: [] },
          { response: 'Done.\n```DONE```', actions: ['DONE'] },
        ],
        errorLine: 'Time limit exceeded in os/_fixture',
        score: null,
      },
    ],
  ];
  for (const [label, options] of generated) {
    const dir = join(tmp, label.replaceAll(' ', '-'));
    await writeTrajectory(dir, options);
    trajectories[label] = dir;
  }
}, 120_000);

afterAll(async () => {
  await server.close();
  checkout.remove();
  rmSync(tmp, { recursive: true, force: true });
});

interface Job {
  traj_dir: string;
  judge_type: JudgeType;
  sys_prompt_version: PromptVersion;
  observation_type: ObservationType;
}
type UpstreamOutcome =
  | { messages: Json[]; captioner_requests: Json[]; messages_json: string; error?: undefined }
  | { error: string };

function jobsFor(dir: string): Job[] {
  const jobs: Job[] = [];
  for (const version of PROMPT_VERSIONS) {
    for (const judgeType of ['default', 'captioned_default'] as const)
      for (const observation of OBSERVATION_TYPES)
        jobs.push({
          traj_dir: dir,
          judge_type: judgeType,
          sys_prompt_version: version,
          observation_type: observation,
        });
    for (const judgeType of ['a11y_tree', 'aer', 'all_step_aer'] as const)
      jobs.push({
        traj_dir: dir,
        judge_type: judgeType,
        sys_prompt_version: version,
        observation_type: 'screenshot_a11y_tree',
      });
  }
  return jobs;
}

function runUpstream(jobs: readonly Job[]): UpstreamOutcome[] {
  const file = join(tmp, `jobs-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(jobs));
  return JSON.parse(
    execFileSync('python3', [HARNESS, checkout.dir, file], {
      encoding: 'utf8',
      maxBuffer: 256 << 20,
      env: { ...process.env, PYTHONPATH: STUBS },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  ) as UpstreamOutcome[];
}

const judgeModel = () =>
  createModel('gpt-4.1', {
    openai: { baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 },
  });
const captionModel = () =>
  createModel('gpt-4o-2024-11-20', {
    openai: { baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 },
  });

describe("osharm --upstream sends what upstream's judge code builds", () => {
  it.each([
    'real chrome_email_send_prompt',
    'real stop_task_notification',
    'real swisstransfer_website',
    'real thunderbird_swisstransfer',
    'generated two steps',
    'generated stale name and Error line',
  ])(
    '%s: 5 judge types × v1–v3 (per-step judges × 4 observation types), captions included',
    async label => {
      const source = trajectories[label]!;
      const jobs = jobsFor(source);
      const upstream = runUpstream(jobs);
      let compared = 0;
      let images = 0;
      let captionRequests = 0;
      for (const [index, job] of jobs.entries()) {
        const what = `${label} ${job.judge_type} ${job.sys_prompt_version} ${job.observation_type}`;
        // A fresh copy: captions are cached in the trajectory dir, as upstream's are.
        const dir = join(tmp, `osharm-${label.replaceAll(' ', '-')}-${index}`);
        cpSync(source, dir, { recursive: true });
        const start = server.calls.length;
        const outcome = upstream[index]!;
        const judged = judgeTrajectory({
          dir,
          judgeType: job.judge_type,
          promptVersion: job.sys_prompt_version,
          observationType: job.observation_type,
          model: judgeModel(),
          captioner: captionModel(),
          upstream: texts,
        });
        if (outcome.error !== undefined) {
          // Upstream's code raises on this run: osharm refuses it too, naming the file.
          await expect(judged, what).rejects.toSatisfy(error =>
            TaskValidationError.isInstance(error),
          );
          continue;
        }
        const result = await judged;
        expect(result.provenance.prompt_family, what).toBe('upstream');
        const calls = server.calls.slice(start);
        const judgeCall = calls.find(call => call.model === 'gpt-4.1')!;
        const sent = (judgeCall.body as { messages: Json[] }).messages;
        expect(JSON.stringify(sent), what).toBe(JSON.stringify(outcome.messages));
        // The trajectory's messages.json is the file upstream's run_judge.py writes, byte for byte.
        expect(readFileSync(join(dir, 'messages.json'), 'utf8'), `${what}: messages.json`).toBe(
          outcome.messages_json,
        );
        const captionCalls = calls.filter(call => call.model !== 'gpt-4.1');
        const byUrl = (bodies: Json[]) => bodies.map(body => JSON.stringify(body)).sort();
        expect(
          byUrl(captionCalls.map(call => call.body as Json)),
          `${what}: captioner requests`,
        ).toEqual(byUrl(outcome.captioner_requests));
        compared += 1;
        images += JSON.stringify(sent).split('"image_url"').length - 1;
        captionRequests += captionCalls.length;
        rmSync(dir, { recursive: true, force: true });
      }
      // The comparison ran (upstream did not fail on everything) and, for generated runs, covered
      // screenshots and captions.
      expect(compared).toBeGreaterThan(20);
      if (label.startsWith('generated')) {
        expect(images).toBeGreaterThan(0);
        expect(captionRequests).toBeGreaterThan(0);
      }
    },
    600_000,
  );
});
