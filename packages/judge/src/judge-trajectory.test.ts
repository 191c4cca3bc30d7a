import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startModelStandIn,
  type ModelCall,
  type ModelStandIn,
  type ScriptedReply,
} from '@osharm/model-stand-in';
import { type JudgeType, type ObservationType } from '@osharm/task-schema';
import { judgmentSchema } from '@osharm/task-schema/artifacts';
import { createCaptioner } from './captioner';
import { createModel } from '@osharm/models';
import { JudgeOutputError, JudgeSettingError } from './judge-errors';
import { judgeTrajectory } from './judge-trajectory';
import { twoStepRun, writeTrajectory } from '@osharm/results-fixture';

const verdict = {
  reasoning: 'The agent renamed the file as asked.',
  success: true,
  safety: true,
  violation_step: null,
};

let server: ModelStandIn;
let script: (call: ModelCall) => ScriptedReply = () => ({ object: verdict });
let tmp: string;

beforeAll(async () => {
  server = await startModelStandIn({ respond: call => script(call) });
  tmp = await mkdtemp(join(tmpdir(), 'osharm-judge-'));
});
afterAll(async () => {
  await server.close();
  await rm(tmp, { recursive: true, force: true });
});

const routing = () => ({
  openai: { baseURL: server.openaiBaseUrl, apiKey: 'test-key-openai', maxRetries: 0 },
  anthropic: { baseURL: server.anthropicBaseUrl, apiKey: 'test-key-anthropic', maxRetries: 0 },
});
const model = (name: string) => createModel(name, routing());
const captioner = () => createCaptioner({ model: model('gpt-4o-2024-11-20') });
/** Answers caption calls with text and judge calls with the verdict. */
const defaultScript = (call: ModelCall): ScriptedReply =>
  call.structuredOutput.mode === 'none'
    ? { text: `# Screen\n- window ${call.index}` }
    : { object: verdict };

let count = 0;
async function fixture(options: Parameters<typeof writeTrajectory>[1] = { steps: twoStepRun }) {
  count += 1;
  const dir = join(tmp, `run-${count}`);
  await writeTrajectory(dir, options);
  return dir;
}
const callsSince = (start: number) => server.calls.slice(start);

describe('judgeTrajectory', () => {
  it('aer: two plain-text messages with the history and a caption of the final screen; files written', async () => {
    script = defaultScript;
    const dir = await fixture();
    const start = server.calls.length;
    const result = await judgeTrajectory({ dir, model: model('gpt-4.1'), captioner: captioner() });
    expect(result.judgment).toEqual(verdict);
    const calls = callsSince(start);
    expect(calls.map(call => call.body.model)).toEqual(['gpt-4o-2024-11-20', 'gpt-4.1']);
    const judgeBody = calls[1]!.body as {
      messages: { role: string; content: unknown }[];
      response_format: unknown;
      max_tokens: number;
      temperature: number;
    };
    expect(judgeBody.messages.map(message => message.role)).toEqual(['system', 'user']);
    expect(typeof judgeBody.messages[0]!.content).toBe('string');
    const user = judgeBody.messages[1]!.content as string;
    expect(user).toContain('# User instruction\nRename the file notes.txt to notes-old.txt.');
    expect(user).toContain('-----\nStep 0:\nI will open a terminal');
    expect(user).toContain('-----\nStep 1:\nThe file is renamed.');
    expect(user).toContain('# Final state of the screen\n```md\n# Screen');
    expect(judgeBody.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'judge_agent_actions', strict: true },
    });
    expect(judgeBody.max_tokens).toBe(2048);
    expect(judgeBody.temperature).toBe(0);
    // captioner call: the image as a data URL, detail high, max 1024 tokens
    const captionBody = calls[0]!.body as {
      messages: { content: { type: string; image_url?: { url: string; detail: string } }[] }[];
      max_tokens: number;
    };
    expect(captionBody.max_tokens).toBe(1024);
    expect(captionBody.messages[0]!.content[1]!.image_url!.url).toMatch(
      /^data:image\/png;base64,iVBOR/,
    );
    expect(captionBody.messages[0]!.content[1]!.image_url!.detail).toBe('high');
    // files: judgment where upstream puts it, messages.json, no key anywhere
    const judgmentFile = join(dir, 'judgment/gpt-4.1/aer/v3/judgment.json');
    expect(result.judgmentFile).toBe(judgmentFile);
    // upstream's four keys first, in upstream's order, then what made the verdict
    const written = JSON.parse(await readFile(judgmentFile, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(written)).toEqual([...Object.keys(verdict), 'osharm_provenance']);
    expect(written).toMatchObject(verdict);
    expect(written.osharm_provenance).toEqual({
      tool: 'osharm',
      tool_version: expect.any(String),
      prompt_family: 'osharm',
      prompt_version: 'v3',
      judge_type: 'aer',
      observation_type: 'screenshot_a11y_tree',
      captioner: 'gpt-4o-2024-11-20',
      judge_model_requested: 'gpt-4.1',
      // what the stand-in's response body named
      judge_model_served: 'gpt-4.1',
      judged_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      // gpt-4.1 and gpt-4o-2024-11-20 have an end of life in openai 7.57.0's data
      judge_model_lifecycle: expect.objectContaining({ end_of_life: '2027-01-14' }),
      captioner_lifecycle: expect.objectContaining({ end_of_life: '2027-01-14' }),
      // models built without an endpoint (createModel with routing): origin unknown
      judge_endpoint: null,
      captioner_endpoint: null,
      // aer reads the final screenshot, which is there
      images: { expected: 1, missing: 0 },
    });
    expect(result.provenance).toEqual(written.osharm_provenance);
    const messages = JSON.parse(await readFile(join(dir, 'messages.json'), 'utf8')) as unknown[];
    expect(messages).toHaveLength(2);
    for (const file of await listFiles(dir)) {
      const text = await readFile(file, 'latin1');
      expect(text, file).not.toContain('test-key-openai');
    }
    expect(calls[1]!.headers.authorization).toBe('<redacted>');
  });

  it('a rerun makes zero captioner calls (captions cached by image content)', async () => {
    script = defaultScript;
    const dir = await fixture();
    await judgeTrajectory({ dir, model: model('gpt-4.1'), captioner: captioner() });
    const start = server.calls.length;
    const again = await judgeTrajectory({ dir, model: model('gpt-4.1'), captioner: captioner() });
    expect(callsSince(start).map(call => call.body.model)).toEqual(['gpt-4.1']);
    expect(again.usage.cachedCaptions).toBe(1);
    expect(again.usage.captioner).toEqual({ inputTokens: 0, outputTokens: 0 });
  });

  it("all_step_aer captions each step's own screenshot and the final one", async () => {
    script = call =>
      call.structuredOutput.mode === 'none'
        ? { text: `caption-${call.index}` }
        : { object: verdict };
    const dir = await fixture();
    const start = server.calls.length;
    const result = await judgeTrajectory({
      dir,
      judgeType: 'all_step_aer',
      model: model('gpt-4.1'),
      captioner: captioner(),
    });
    const calls = callsSince(start);
    const captionCalls = calls.filter(call => call.body.model === 'gpt-4o-2024-11-20');
    expect(captionCalls).toHaveLength(3); // step_0, step_1_…, final step_2_… are three distinct images
    const user = (calls.at(-1)!.body as { messages: { content: string }[] }).messages[1]!.content;
    const captions = [...user.matchAll(/```md\n(caption-\d+)\n```/g)].map(match => match[1]);
    expect(new Set(captions).size).toBe(3);
    expect(result.usage.calls).toBe(4);
  });

  it.each([
    ['screenshot_a11y_tree', 3, true],
    ['screenshot', 3, false],
    ['som', 3, false],
    ['a11y_tree', 2, true],
  ] as [ObservationType, number, boolean][])(
    'default judge with %s observations: one user message per step',
    async (observationType, partsPerStep, withTree) => {
      script = defaultScript;
      const dir = await fixture();
      const start = server.calls.length;
      const result = await judgeTrajectory({
        dir,
        judgeType: 'default',
        observationType,
        model: model('gpt-4.1'),
      });
      const calls = callsSince(start);
      expect(calls).toHaveLength(1);
      const messages = (
        calls[0]!.body as {
          messages: { role: string; content: { type: string; text?: string }[] | string }[];
        }
      ).messages;
      expect(messages[0]!.role).toBe('system');
      expect(messages[0]!.content as string).toContain(
        'The instruction the user gave the agent: Rename the file',
      );
      expect(messages.slice(1).map(message => message.role)).toEqual(['user', 'user']);
      const parts = messages[1]!.content as { type: string; text?: string }[];
      expect(parts).toHaveLength(partsPerStep);
      expect(parts[0]!.text!.includes('tag\tname\ttext')).toBe(withTree);
      expect(parts.at(-1)!.text).toContain("Step 0: the agent's action:");
      const expectedDir = observationType === 'a11y_tree' ? 'a11_tree_default' : 'default';
      expect(result.judgmentFile).toBe(
        join(dir, `judgment/gpt-4.1/${expectedDir}/v3/judgment.json`),
      );
    },
  );

  it('captioned_default adds a caption after each image; a missing image becomes a note, not a crash', async () => {
    script = defaultScript;
    const dir = await fixture({
      steps: [
        twoStepRun[0]!,
        { response: 'no code this time', actions: [] },
        { response: 'done', actions: ['DONE'] },
      ],
    });
    const start = server.calls.length;
    await judgeTrajectory({
      dir,
      judgeType: 'captioned_default',
      model: model('gpt-4.1'),
      captioner: captioner(),
    });
    const judge = callsSince(start).at(-1)!;
    const messages = (judge.body as { messages: { content: { type: string; text?: string }[] }[] })
      .messages;
    expect(messages).toHaveLength(4); // system + 3 steps (upstream would drop the stale-named step)
    const step2 = messages[3]!.content;
    expect(step2.map(part => part.type)).toEqual(['text', 'image_url', 'text', 'text']);
    expect(step2[2]!.text).toMatch(/^Description of the screenshot before step 2:\n# Screen/);
  });

  it('claude models go to Anthropic: system field, base64 image blocks, forced tool', async () => {
    script = call =>
      call.structuredOutput.mode === 'none' ? { text: 'caption' } : { object: verdict };
    const dir = await fixture();
    const start = server.calls.length;
    const result = await judgeTrajectory({
      dir,
      judgeType: 'default',
      model: model('claude-3-7-sonnet-20250219'),
    });
    expect(result.judgment).toEqual(verdict);
    const call = callsSince(start)[0]!;
    expect(call.vendor).toBe('anthropic');
    const body = call.body as {
      system: string;
      messages: {
        role: string;
        content: { type: string; source?: { type: string; media_type: string; data: string } }[];
      }[];
      tool_choice: unknown;
      tools: { name: string; input_schema: unknown }[];
      max_tokens: number;
    };
    expect(body.system).toContain('The instruction the user gave the agent');
    expect(body.messages).toHaveLength(1); // consecutive user turns merged
    const image = body.messages[0]!.content.find(block => block.type === 'image')!;
    expect(image.source).toMatchObject({ type: 'base64', media_type: 'image/png' });
    expect(Buffer.from(image.source!.data, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'judge_agent_actions' });
    expect(body.max_tokens).toBe(2048);
  });

  it.each(['tool', 'function'] as const)(
    'OpenAI structured output as a forced %s works too',
    async mode => {
      script = defaultScript;
      const dir = await fixture();
      const judge = createModel('gpt-4.1', {
        openai: { ...routing().openai, structuredOutput: mode },
      });
      const start = server.calls.length;
      const result = await judgeTrajectory({ dir, judgeType: 'a11y_tree', model: judge });
      expect(result.judgment).toEqual(verdict);
      const body = callsSince(start)[0]!.body as Record<string, unknown>;
      expect(body[mode === 'tool' ? 'tool_choice' : 'function_call']).toBeDefined();
    },
  );

  it('o-series judges get max_completion_tokens and no temperature', async () => {
    script = defaultScript;
    const dir = await fixture();
    const start = server.calls.length;
    await judgeTrajectory({ dir, judgeType: 'a11y_tree', model: model('o4-mini') });
    const body = callsSince(start)[0]!.body as Record<string, unknown>;
    expect(body.max_completion_tokens).toBe(2048);
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('max_tokens');
  });

  it('retries malformed answers and invalid judgments, then gives up with JudgeOutputError', async () => {
    const dir = await fixture();
    let judgeCalls = 0;
    script = call => {
      if (call.structuredOutput.mode === 'none') return { text: 'caption' };
      judgeCalls += 1;
      return judgeCalls === 1
        ? { malformed: true }
        : judgeCalls === 2
          ? { object: { ...verdict, violation_step: 9 } } // past the last step
          : { object: verdict };
    };
    const result = await judgeTrajectory({ dir, judgeType: 'a11y_tree', model: model('gpt-4.1') });
    expect(judgeCalls).toBe(3);
    expect(result.usage.calls).toBe(3);
    expect(judgmentSchema.parse(result.judgment)).toEqual(verdict);

    script = call =>
      call.structuredOutput.mode === 'none'
        ? { text: 'c' }
        : { object: { reasoning: 'x', success: 'yes' } };
    const error = await judgeTrajectory({
      dir,
      judgeType: 'a11y_tree',
      model: model('gpt-4.1'),
      maxOutputRetries: 1,
    }).catch((caught: unknown) => caught);
    expect(JudgeOutputError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/not a valid judgment \(success: .*; safety: .*\)/);
  });

  it('reports a missing API key clearly, before any call', async () => {
    const dir = await fixture();
    const judge = createModel('gpt-4.1', { openai: { env: {} } });
    const error = await judgeTrajectory({ dir, judgeType: 'a11y_tree', model: judge }).catch(
      (caught: unknown) => caught,
    );
    expect(JudgeSettingError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('set OPENAI_API_KEY');
  });

  it('refuses a model name no chat adapter serves (Gemini: native computer use only) as a setting error', async () => {
    const dir = await fixture();
    const error = await judgeTrajectory({
      dir,
      judgeType: 'a11y_tree',
      model: 'gemini-2.5-pro',
    }).catch((caught: unknown) => caught);
    expect(JudgeSettingError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /Gemini models run only as native computer-use agents/,
    );
  });

  it('honours an abort signal', async () => {
    script = () => ({ hang: true });
    const dir = await fixture();
    const controller = new AbortController();
    const pending = judgeTrajectory({
      dir,
      judgeType: 'a11y_tree',
      model: model('gpt-4.1'),
      abortSignal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toThrow(/abort/i);
  });

  it.each(['default', 'captioned_default', 'a11y_tree', 'aer', 'all_step_aer'] as JudgeType[])(
    '%s × v1/v2/v3 each send their own prompt',
    async judgeType => {
      script = defaultScript;
      const dir = await fixture();
      const systems = new Set<string>();
      for (const promptVersion of ['v1', 'v2', 'v3'] as const) {
        const start = server.calls.length;
        await judgeTrajectory({
          dir,
          judgeType,
          promptVersion,
          model: model('gpt-4.1'),
          captioner: captioner(),
        });
        const judge = callsSince(start).at(-1)!;
        systems.add((judge.body as { messages: { content: string }[] }).messages[0]!.content);
        expect(
          existsSync(join(dir, `judgment/gpt-4.1/${judgeType}/${promptVersion}/judgment.json`)),
        ).toBe(true);
      }
      expect(systems.size).toBe(3);
    },
  );
});

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
  }
  return out;
}

describe('re-judging upstream trajectories', () => {
  const real = new URL('../../../../shared/real-trajectories', import.meta.url).pathname;
  it.runIf(existsSync(real))(
    'judges the real upstream runs (copied; no screenshots) with aer and the no-screenshot caption',
    async () => {
      const { cp } = await import('node:fs/promises');
      const { judgeTree } = await import('./judge-tree');
      const root = join(
        tmp,
        'upstream-results',
        'pyautogui',
        'screenshot_a11y_tree',
        'o4-mini',
        'chrome',
      );
      for (const name of ['stop_task_notification', 'swisstransfer_website']) {
        await cp(
          join(real, name),
          join(root, `2ad9387a-65d8-4e33-ad5b-7580065a27ca__inject__x__${name}`),
          {
            recursive: true,
          },
        );
      }
      script = call =>
        call.structuredOutput.mode === 'none'
          ? { text: 'should not be called' }
          : { object: verdict };
      const start = server.calls.length;
      // The copies have no result.txt: with osharm's rule, unfinished runs, listed and not judged.
      const listed = await judgeTree({
        rootDir: join(tmp, 'upstream-results'),
        model: model('gpt-4.1'),
        captioner: captioner(),
        write: false,
        runRule: 'osharm',
      });
      expect(listed.results).toEqual({});
      expect(Object.values(listed.errored_runs)).toEqual([
        expect.stringMatching(/unfinished/),
        expect.stringMatching(/unfinished/),
      ]);
      expect(server.calls.length).toBe(start);
      // By default a tree osharm did not write is judged as upstream's batch judge does, noted.
      const results = await judgeTree({
        rootDir: join(tmp, 'upstream-results'),
        model: model('gpt-4.1'),
        captioner: captioner(),
      });
      expect(Object.keys(results.results)).toHaveLength(2);
      expect(results.errors).toEqual({});
      expect(results.errored_runs).toEqual({});
      expect(Object.values(results.notes)).toEqual([
        expect.stringMatching(/no result\.txt: judged as upstream's batch judge does/),
        expect.stringMatching(/no result\.txt: judged as upstream's batch judge does/),
      ]);
      // The dir names carry no valid injection suffix: the slices come from better_log.json's task.injection.
      expect(Object.keys(results.breakdown.vector ?? {}).sort()).toEqual([
        'desktop_notification',
        'website',
      ]);
      expect(Object.keys(results.breakdown.goal ?? {}).sort()).toEqual([
        'stop_task',
        'swisstransfer_send_files',
      ]);
      const calls = callsSince(start);
      expect(calls.every(call => call.body.model === 'gpt-4.1')).toBe(true); // no image, no caption call
      const user = calls
        .map(call => (call.body as { messages: { content: string }[] }).messages[1]!.content)
        .join('\n');
      expect(user).toContain('No screenshot is available');
      expect(user).toContain('safety overlay'); // the agent's own words about the injected notification
    },
  );
});
