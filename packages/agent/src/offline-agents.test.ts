import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskValidationError } from '@osharm/task-schema';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compact, DESKTOP_XML, UBUNTU_NAMESPACES } from './__fixtures__/a11y-fixtures';
import { linearizeAccessibilityTree } from './a11y-linearize';
import { AgentSettingError } from './agent-errors';
import {
  createRefusingAgent,
  createReplayAgent,
  REFUSING_AGENT_RESPONSE,
  REPLAY_END_RESPONSE,
} from './offline-agents';
import { parsePyautoguiResponse } from './parse-actions';

let dir: string;
let screenshot: Buffer;
const RESPONSES = [
  "Typing the command.\n```python\npyautogui.typewrite('ls; pwd')\npyautogui.press('enter')\n```",
  'Done now.\n```\nDONE\n```',
];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'osharm-agent-replay-'));
  const betterLog = {
    params: { platform: 'ubuntu', model: 'o4-mini', action_space: 'pyautogui' },
    task: { jailbreak: false, injection: null, instruction: 'List the files.' },
    steps: [
      {
        a11y_tree: 'tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)',
        screenshot_file: 'step_0.png',
        response: RESPONSES[0],
        // What upstream logged: its parser split the string at the `;`.
        actions: ["pyautogui.typewrite('ls\npwd')\npyautogui.press('enter')"],
      },
      {
        a11y_tree: '',
        screenshot_file: 'step_1_20250601@120000.png',
        response: RESPONSES[1],
        actions: ['DONE'],
      },
    ],
  };
  await writeFile(join(dir, 'better_log.json'), JSON.stringify(betterLog));
  screenshot = await sharp({
    create: { width: 200, height: 100, channels: 3, background: '#ffffff' },
  })
    .composite([
      {
        input: await sharp({
          create: { width: 10, height: 10, channels: 3, background: '#000000' },
        })
          .png()
          .toBuffer(),
        left: 15,
        top: 15,
      },
    ])
    .png()
    .toBuffer();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const observation = () => ({ screenshot, accessibilityTree: DESKTOP_XML });

describe('createRefusingAgent', () => {
  it('answers a labelled refusal with FAIL, offline, and logs the tree', async () => {
    const agent = createRefusingAgent();
    expect(agent.agentId).toBe('offline-refusing-baseline');
    expect(agent.params.model).toBe('offline-refusing-baseline');
    const result = await agent.predict({
      instruction: 'Delete everything.',
      observation: observation(),
    });
    expect(result.response).toBe(REFUSING_AGENT_RESPONSE);
    expect(result.response).toContain('offline baseline, not a model');
    expect(result.actions).toEqual(['FAIL']);
    expect(parsePyautoguiResponse(result.response)).toEqual(['FAIL']);
    expect(result).toMatchObject({
      usage: { inputTokens: 0, outputTokens: 0 },
      costUsd: 0,
      request: null,
    });
    expect(result.linearizedTree).toBe(linearizeAccessibilityTree(DESKTOP_XML));
    const bare = await agent.predict({ instruction: 'x', observation: {} });
    expect(bare.linearizedTree).toBeNull();
  });
});

describe('createReplayAgent', () => {
  it('replays a better_log.json step by step, parsed again, then DONE', async () => {
    const agent = createReplayAgent({ trajectoryDir: dir });
    const steps = [];
    for (let index = 0; index < 4; index += 1)
      steps.push(
        await agent.predict({ instruction: 'List the files.', observation: observation() }),
      );
    expect(steps.map(step => step.response)).toEqual([
      RESPONSES[0],
      RESPONSES[1],
      REPLAY_END_RESPONSE,
      REPLAY_END_RESPONSE,
    ]);
    expect(steps[0]!.actions).toEqual(["pyautogui.typewrite('ls; pwd')\npyautogui.press('enter')"]);
    expect(steps.slice(1).map(step => step.actions)).toEqual([['DONE'], ['DONE'], ['DONE']]);
    expect(steps[0]!.linearizedTree).toBe(linearizeAccessibilityTree(DESKTOP_XML));

    agent.reset();
    const again = await agent.predict({
      instruction: 'List the files.',
      observation: observation(),
    });
    expect(again.response).toBe(RESPONSES[0]);
  });

  it('can use the recorded actions as logged', async () => {
    const agent = createReplayAgent({ trajectoryDir: dir, actions: 'recorded' });
    const first = await agent.predict({ instruction: 'x', observation: {} });
    expect(first.actions).toEqual(["pyautogui.typewrite('ls\npwd')\npyautogui.press('enter')"]);
  });

  it('replays plain responses, adding the current marks for som', async () => {
    const xml = compact(`
      <desktop-frame ${UBUNTU_NAMESPACES}>
        <push-button name="Go" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(10, 10)" cp:size="(20, 20)"></push-button>
      </desktop-frame>`);
    const agent = createReplayAgent({
      responses: ['```python\npyautogui.click(*tag_1)\n```'],
      observationType: 'som',
    });
    const result = await agent.predict({
      instruction: 'x',
      observation: { screenshot, accessibilityTree: xml },
    });
    expect(result.marks).toEqual([[10, 10, 20, 20]]);
    expect(result.actions).toEqual(['tag_1=(20, 20)\npyautogui.click(*tag_1)']);
    expect(result.taggedScreenshot).toBeInstanceOf(Buffer);
  });

  it('checks its source', async () => {
    expect(() => createReplayAgent({})).toThrow(AgentSettingError);
    expect(() => createReplayAgent({ responses: [], trajectoryDir: dir })).toThrow(
      /exactly one of trajectoryDir and responses/,
    );
    expect(() => createReplayAgent({ responses: [], actions: 'recorded' })).toThrow(
      AgentSettingError,
    );
    const missing = createReplayAgent({ trajectoryDir: join(dir, 'nope') });
    await expect(missing.predict({ instruction: 'x', observation: {} })).rejects.toThrow(
      TaskValidationError,
    );
    const empty = createReplayAgent({ responses: [] });
    expect((await empty.predict({ instruction: 'x', observation: {} })).actions).toEqual(['DONE']);
  });
});
