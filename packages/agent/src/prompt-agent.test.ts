import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { compact, DESKTOP_XML, UBUNTU_NAMESPACES } from './__fixtures__/a11y-fixtures';
import { linearizeAccessibilityTree } from './a11y-linearize';
import { AgentObservationError, AgentSettingError } from './agent-errors';
import type { ModelContentPart, ModelImagePart, ModelMessage } from '@osharm/models';
import { agentSystemPrompt, NO_ACTION_PLACEHOLDER, taskLeadIn } from './agent-prompts';
import { createPromptAgent } from './prompt-agent';
import { MockAgentModel } from './test';

let screenshot: Buffer;
let screenshotBase64: string;
beforeAll(async () => {
  // A 640×400 desktop: dark top bar and a window with a blue button (not one colour under marks).
  const svg =
    '<svg width="640" height="400" xmlns="http://www.w3.org/2000/svg">' +
    '<rect width="640" height="400" fill="#dddddd"/><rect width="640" height="32" fill="#202020"/>' +
    '<rect x="30" y="8" width="40" height="16" fill="#3060e0"/></svg>';
  screenshot = await sharp(Buffer.from(svg)).png().toBuffer();
  screenshotBase64 = screenshot.toString('base64');
});

const INSTRUCTION = 'Open the settings and turn on dark mode.';
// Text-only turns reach the model as strings (osharm's wire), turns with an image as parts.
const textOf = (message: ModelMessage) =>
  typeof message.content === 'string'
    ? message.content
    : message.content
        .filter(part => part.type === 'text')
        .map(part => (part as { text: string }).text)
        .join('');
const imagesOf = (content: string | readonly ModelContentPart[]) =>
  typeof content === 'string'
    ? []
    : content.filter((part): part is ModelImagePart => part.type === 'image');

describe('createPromptAgent: message construction', () => {
  it('sends the last 3 steps as history over 5 predicts, with placeholders', async () => {
    const model = new MockAgentModel({
      generate: [
        'Step 1.\n```python\npyautogui.click(50, 16)\n```',
        '', // an empty answer (a failed call upstream): placeholder in the history
        'Just thinking, no code.',
        '   \n', // whitespace only: also a placeholder
        '```\nDONE\n```',
      ],
    });
    const agent = createPromptAgent({ model });
    const results = [];
    for (let step = 0; step < 5; step += 1)
      results.push(
        await agent.predict({
          instruction: INSTRUCTION,
          observation: { screenshot, accessibilityTree: DESKTOP_XML },
        }),
      );

    expect(results.map(result => result.actions)).toEqual([
      ['pyautogui.click(50, 16)'],
      [],
      [],
      [],
      ['DONE'],
    ]);
    const calls = model.generateCalls;
    expect(calls.map(call => call.messages.length)).toEqual([1, 3, 5, 7, 7]);

    const last = calls[4]!;
    const system = agentSystemPrompt({
      observationType: 'screenshot_a11y_tree',
      actionSpace: 'pyautogui',
    });
    expect(last.system).toBe(`${system}\n${taskLeadIn(INSTRUCTION)}`);
    expect(last.system).toContain("'password'");
    expect(last.messages.map(message => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    // Steps 2, 3 and 4 (step 1 fell out of the window of 3).
    expect(textOf(last.messages[1]!)).toBe(NO_ACTION_PLACEHOLDER);
    expect(textOf(last.messages[3]!)).toBe('Just thinking, no code.');
    expect(textOf(last.messages[5]!)).toBe(NO_ACTION_PLACEHOLDER);
    expect(textOf(calls[1]!.messages[1]!)).toBe('Step 1.\n```python\npyautogui.click(50, 16)\n```');

    const table = linearizeAccessibilityTree(DESKTOP_XML);
    for (const message of last.messages.filter(message => message.role === 'user')) {
      expect(textOf(message)).toContain(table);
      expect((message.content[0] as ModelContentPart).type).toBe('text');
      expect(imagesOf(message.content)).toEqual([
        { type: 'image', data: screenshotBase64, mediaType: 'image/png', detail: 'high' },
      ]);
    }
    expect(last.maxOutputTokens).toBe(1500);
    expect(last.temperature).toBe(1);
    expect(last.topP).toBe(0.9);
    expect(last.stop).toBeUndefined();
  });

  it('returns the untrimmed table for the log and trims the prompt copy', async () => {
    const model = new MockAgentModel();
    const agent = createPromptAgent({ model, a11yTreeMaxTokens: 40, observationType: 'a11y_tree' });
    const result = await agent.predict({
      instruction: INSTRUCTION,
      observation: { accessibilityTree: DESKTOP_XML },
    });
    const full = linearizeAccessibilityTree(DESKTOP_XML);
    expect(result.linearizedTree).toBe(full);
    const sent = textOf(model.generateCalls[0]!.messages[0]!);
    expect(sent).toContain('[...]\n');
    expect(sent).not.toContain(full);
    // a11y_tree: text only, no screenshot needed or sent.
    expect(imagesOf(model.generateCalls[0]!.messages[0]!.content)).toEqual([]);
    expect(result.request?.messages[0]?.content).toHaveLength(1);
  });

  it('logs the request without image bytes', async () => {
    const agent = createPromptAgent({ model: new MockAgentModel(), stopToken: '<|end|>' });
    const { request, usage, costUsd, finishReason } = await agent.predict({
      instruction: INSTRUCTION,
      observation: { screenshot, accessibilityTree: DESKTOP_XML },
    });
    expect(request?.messages[0]?.content[1]).toEqual({
      type: 'image',
      mediaType: 'image/png',
      detail: 'high',
      bytes: screenshot.length,
    });
    expect(JSON.stringify(request)).not.toContain(screenshotBase64.slice(0, 100));
    expect(request).toMatchObject({
      model: 'mock-agent-model',
      provider: 'mock',
      maxTokens: 1500,
      temperature: 1,
      topP: 0.9,
      stop: ['<|end|>'],
    });
    expect(usage.inputTokens).toBe(100);
    expect(costUsd).toBeNull(); // unknown model: no price
    expect(finishReason).toBe('stop');
  });

  it('carries only the tagged image in som history turns and prefixes code with the tags', async () => {
    const xml = compact(`
      <desktop-frame ${UBUNTU_NAMESPACES}>
        <push-button name="Apply" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(20, 4)" cp:size="(60, 24)"></push-button>
      </desktop-frame>`);
    const model = new MockAgentModel({
      generate: ['```python\npyautogui.click(*tag_1)\n```', '```\nWAIT\n```', '```\nDONE\n```'],
    });
    const agent = createPromptAgent({ model, observationType: 'som' });
    const first = await agent.predict({
      instruction: INSTRUCTION,
      observation: { screenshot, accessibilityTree: xml },
    });
    expect(first.marks).toEqual([[20, 4, 60, 24]]);
    expect(first.actions).toEqual(['tag_1=(50, 16)\npyautogui.click(*tag_1)']);
    expect(first.taggedScreenshot).toBeInstanceOf(Buffer);
    const tagged = first.taggedScreenshot!.toString('base64');
    expect(tagged).not.toBe(screenshotBase64);

    const second = await agent.predict({
      instruction: INSTRUCTION,
      observation: { screenshot, accessibilityTree: xml },
    });
    expect(second.actions).toEqual(['WAIT']); // special codes get no prelude
    const [history, , current] = model.generateCalls[1]!.messages;
    expect(textOf(history!)).not.toContain('index\ttag\tname\ttext');
    expect(imagesOf(history!.content).map(image => image.data)).toEqual([tagged]);
    expect(textOf(current!)).toContain('index\ttag\tname\ttext\n1\tpush-button\tApply\t""');
    expect(imagesOf(current!.content).map(image => image.data)).toEqual([tagged]);
    // The log copy is the standard 7-column table.
    expect(second.linearizedTree?.split('\n')[0]).toBe(
      'tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)',
    );
  });

  it('uses a placeholder after an unparsable computer_13 response', async () => {
    const model = new MockAgentModel({
      generate: ['click somewhere', '```json\n{"action_type": "CLICK", "x": 5, "y": 6}\n```'],
    });
    const agent = createPromptAgent({
      model,
      actionSpace: 'computer_13',
      observationType: 'screenshot',
    });
    const observation = { screenshot };
    const first = await agent.predict({ instruction: INSTRUCTION, observation });
    expect(first.actions).toBeNull();
    const second = await agent.predict({ instruction: INSTRUCTION, observation });
    expect(second.actions).toEqual([{ action_type: 'CLICK', x: 5, y: 6 }]);
    expect(textOf(model.generateCalls[1]!.messages[1]!)).toBe(NO_ACTION_PLACEHOLDER);
    expect(model.generateCalls[1]!.system).toContain('action_type');
    // screenshot: the linearized tree is null without an XML.
    expect(second.linearizedTree).toBeNull();
  });

  it('sends no history with maxTrajectoryLength 0 and forgets it on reset', async () => {
    const model = new MockAgentModel({ generate: '```\nWAIT\n```' });
    const observation = { screenshot, accessibilityTree: DESKTOP_XML };
    const none = createPromptAgent({ model, maxTrajectoryLength: 0 });
    await none.predict({ instruction: INSTRUCTION, observation });
    await none.predict({ instruction: INSTRUCTION, observation });
    expect(model.generateCalls.map(call => call.messages.length)).toEqual([1, 1]);

    const agent = createPromptAgent({ model });
    await agent.predict({ instruction: INSTRUCTION, observation });
    agent.reset();
    await agent.predict({ instruction: INSTRUCTION, observation });
    expect(model.generateCalls.at(-1)!.messages).toHaveLength(1);
  });

  it("reports the run params with upstream key names, and osharm's prompt family beside them", () => {
    const agent = createPromptAgent({ model: new MockAgentModel({ modelId: 'o4-mini' }) });
    expect(agent.params).toEqual({
      platform: 'ubuntu',
      model: 'o4-mini',
      max_tokens: 1500,
      top_p: 0.9,
      temperature: 1,
      action_space: 'pyautogui',
      observation_type: 'screenshot_a11y_tree',
      max_trajectory_length: 3,
      a11y_tree_max_tokens: 10000,
      osharm_prompts: { prompt_family: 'osharm' },
    });
    expect(agent.agentId).toBe('o4-mini');
  });
});

describe('createPromptAgent: errors', () => {
  it('rejects som with computer_13 and bad counts', () => {
    const model = new MockAgentModel();
    expect(() =>
      createPromptAgent({ model, observationType: 'som', actionSpace: 'computer_13' }),
    ).toThrow(AgentSettingError);
    expect(() => createPromptAgent({ model, maxTrajectoryLength: -1 })).toThrow(
      /maxTrajectoryLength must be an integer ≥ 0/,
    );
  });

  it('needs the observation parts of its type', async () => {
    const agent = createPromptAgent({ model: new MockAgentModel() });
    await expect(
      agent.predict({ instruction: INSTRUCTION, observation: { screenshot } }),
    ).rejects.toThrow(AgentObservationError);
    await expect(
      agent.predict({ instruction: INSTRUCTION, observation: { accessibilityTree: DESKTOP_XML } }),
    ).rejects.toThrow(/needs a screenshot/);
  });

  it('turns a failed call into an empty response, as upstream', async () => {
    const model = new MockAgentModel({
      generate: () => {
        throw Object.assign(new Error('upstream overloaded'), { status: 529, name: 'APIError' });
      },
    });
    const agent = createPromptAgent({ model });
    const result = await agent.predict({
      instruction: INSTRUCTION,
      observation: { screenshot, accessibilityTree: DESKTOP_XML },
    });
    expect(result).toMatchObject({
      response: '',
      actions: [],
      costUsd: 0,
      modelError: { name: 'APIError', message: 'upstream overloaded', status: 529 },
    });
    expect(result.linearizedTree).toBe(linearizeAccessibilityTree(DESKTOP_XML));
  });

  it('throws what would fail every step, and everything with modelErrors: throw', async () => {
    const unauthorized = new MockAgentModel({
      generate: () => {
        throw Object.assign(new Error('bad key'), { status: 401 });
      },
    });
    const observation = { screenshot, accessibilityTree: DESKTOP_XML };
    await expect(
      createPromptAgent({ model: unauthorized }).predict({ instruction: INSTRUCTION, observation }),
    ).rejects.toThrow('bad key');
    const failing = new MockAgentModel({
      generate: () => {
        throw new Error('boom');
      },
    });
    await expect(
      createPromptAgent({ model: failing, modelErrors: 'throw' }).predict({
        instruction: INSTRUCTION,
        observation,
      }),
    ).rejects.toThrow('boom');
    const controller = new AbortController();
    controller.abort();
    await expect(
      createPromptAgent({ model: failing }).predict({
        instruction: INSTRUCTION,
        observation,
        abortSignal: controller.signal,
      }),
    ).rejects.toThrow();
  });
});
