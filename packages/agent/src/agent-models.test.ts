import {
  startModelStandIn,
  type ModelCall,
  type ModelStandIn,
  type ScriptedReply,
} from '@osharm/model-stand-in';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP_XML } from './__fixtures__/a11y-fixtures';
import { createModel, ModelError } from '@osharm/models';
import { AgentSettingError } from './agent-errors';
import { createPromptAgent } from './prompt-agent';

let server: ModelStandIn;
let script: (call: ModelCall) => ScriptedReply = () => ({ text: '```\nDONE\n```' });
let screenshot: Buffer;
let screenshotBase64: string;

beforeAll(async () => {
  server = await startModelStandIn({ respond: call => script(call) });
  screenshot = await sharp({
    create: { width: 320, height: 200, channels: 3, background: { r: 30, g: 90, b: 200 } },
  })
    .png()
    .toBuffer();
  screenshotBase64 = screenshot.toString('base64');
});
afterAll(async () => {
  await server.close();
});

// The prompt agent takes @osharm/models' model as is; the router picks the vendor from the name.
const openai = (modelId: string) =>
  createModel(modelId, {
    openai: { baseURL: server.openaiBaseUrl, apiKey: 'test-key', maxRetries: 0 },
  });
const anthropic = (modelId: string) =>
  createModel(modelId, {
    anthropic: { baseURL: server.anthropicBaseUrl, apiKey: 'test-key', maxRetries: 0 },
  });

const INSTRUCTION = 'Save the open document as report.odt.';
const observation = () => ({ screenshot, accessibilityTree: DESKTOP_XML });
const lastBody = () => server.calls.at(-1)!.body as Record<string, unknown> & { messages: never[] };

describe('OpenAI agent model through the SDK', () => {
  it('sends the system message, history turns, image_url parts at detail high, sampling and stop', async () => {
    script = () => ({
      text: 'Clicking Save.\n```python\npyautogui.hotkey("ctrl", "s")\n```',
      usage: { inputTokens: 1000, outputTokens: 100 },
    });
    const agent = createPromptAgent({ model: openai('gpt-4o'), stopToken: '<|stop|>' });
    await agent.predict({ instruction: INSTRUCTION, observation: observation() });
    const result = await agent.predict({ instruction: INSTRUCTION, observation: observation() });

    expect(result.actions).toEqual(['pyautogui.hotkey("ctrl", "s")']);
    // (the OpenAI wire's usage block carries cached and reasoning counts, here 0: kept as reported)
    expect(result.usage).toEqual({
      inputTokens: 1000,
      outputTokens: 100,
      cachedInputTokens: 0,
      reasoningTokens: 0,
    });
    expect(result.costUsd).toBeCloseTo((1000 * 2.5 + 100 * 10) / 1e6, 10);
    expect(result.finishReason).toBe('stop');

    const body = lastBody();
    expect(body).toMatchObject({
      model: 'gpt-4o',
      max_tokens: 1500,
      temperature: 1,
      top_p: 0.9,
      stop: ['<|stop|>'],
    });
    expect(body).not.toHaveProperty('max_completion_tokens');
    const messages = body.messages as { role: string; content: unknown }[];
    expect(messages.map(message => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(messages[0]!.content).toMatch(
      /^You control a computer[\s\S]*\nThe task you are to complete is the following: Save the open document as report\.odt\.$/,
    );
    expect(messages[2]!.content).toBe(
      'Clicking Save.\n```python\npyautogui.hotkey("ctrl", "s")\n```',
    );
    const user = messages[3]!.content as { type: string; text?: string; image_url?: unknown }[];
    expect(user[0]!.type).toBe('text');
    expect(user[0]!.text).toContain('tag\tname\ttext\tclass\tdescription');
    expect(user[1]).toEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${screenshotBase64}`, detail: 'high' },
    });
  });

  it('gives o-series models max_completion_tokens and no temperature / top_p / stop', async () => {
    script = () => ({ text: '```\nWAIT\n```' });
    const agent = createPromptAgent({ model: openai('o4-mini'), stopToken: '<|stop|>' });
    await agent.predict({ instruction: INSTRUCTION, observation: observation() });
    const body = lastBody();
    expect(body.max_completion_tokens).toBe(1500);
    for (const key of ['max_tokens', 'temperature', 'top_p', 'stop'])
      expect(body, key).not.toHaveProperty(key);
    expect(server.calls.at(-1)!.model).toBe('o4-mini');
  });

  it('retries once with the system message and the last message on context_length_exceeded', async () => {
    let refused = 0;
    script = call => {
      if (call.messages.length > 2 && refused === 0) {
        refused += 1;
        return {
          status: 400,
          body: {
            error: {
              message: "This model's maximum context length is 128000 tokens.",
              type: 'invalid_request_error',
              param: 'messages',
              code: 'context_length_exceeded',
            },
          },
        };
      }
      return { text: '```\nDONE\n```' };
    };
    const agent = createPromptAgent({ model: openai('gpt-4.1') });
    await agent.predict({ instruction: INSTRUCTION, observation: observation() });
    const before = server.calls.length;
    const result = await agent.predict({ instruction: INSTRUCTION, observation: observation() });
    expect(result.actions).toEqual(['DONE']);
    expect(result.shortenedContext).toBe(true);
    const [refusedCall, retry] = server.calls.slice(before);
    expect((refusedCall!.body.messages as unknown[]).length).toBe(4);
    const retried = retry!.body.messages as { role: string }[];
    expect(retried.map(message => message.role)).toEqual(['system', 'user']);
    expect(retried[0]).toEqual((refusedCall!.body.messages as unknown[])[0]);
    expect(retried[1]).toEqual((refusedCall!.body.messages as unknown[])[3]);
  });

  it('turns a server error into an empty step, and throws on 401', async () => {
    script = () => ({ status: 500, message: 'upstream is down' });
    const agent = createPromptAgent({ model: openai('gpt-4o') });
    const result = await agent.predict({ instruction: INSTRUCTION, observation: observation() });
    expect(result).toMatchObject({ response: '', actions: [], modelError: { status: 500 } });

    script = () => ({ status: 401, message: 'invalid key' });
    await expect(
      agent.predict({ instruction: INSTRUCTION, observation: observation() }),
    ).rejects.toMatchObject({ status: 401 });
  });

  it('needs a key or a base URL, and checks it only when called', async () => {
    const model = createModel('gpt-4o', { openai: { env: {} } });
    await expect(model.generate({ system: 's', messages: [] })).rejects.toSatisfy(
      error => ModelError.isInstance(error) && error.kind === 'setting',
    );
    await expect(
      createPromptAgent({ model }).predict({
        instruction: INSTRUCTION,
        observation: observation(),
      }),
    ).rejects.toThrow(AgentSettingError);
    await expect(
      createPromptAgent({ model }).predict({
        instruction: INSTRUCTION,
        observation: observation(),
      }),
    ).rejects.toThrow(/OPENAI_API_KEY/);
  });
});

describe('Anthropic agent model through the SDK', () => {
  it('puts the system prompt in `system` and images in base64 blocks, roles alternating', async () => {
    script = () => ({
      text: 'Saving.\n```python\npyautogui.hotkey("ctrl", "s")\n```',
      usage: { inputTokens: 2000, outputTokens: 50 },
    });
    const agent = createPromptAgent({
      model: anthropic('claude-3-7-sonnet-20250219'),
      stopToken: 'STOP_HERE',
    });
    await agent.predict({ instruction: INSTRUCTION, observation: observation() });
    const result = await agent.predict({ instruction: INSTRUCTION, observation: observation() });
    expect(result.costUsd).toBeCloseTo((2000 * 3 + 50 * 15) / 1e6, 10);
    expect(result.finishReason).toBe('end_turn');

    const call = server.calls.at(-1)!;
    expect(call.vendor).toBe('anthropic');
    const body = call.body as {
      system: string;
      messages: { role: string; content: { type: string; text?: string; source?: unknown }[] }[];
    };
    expect(body.system).toMatch(/^You control a computer[\s\S]*report\.odt\.$/);
    expect(body).toMatchObject({
      model: 'claude-3-7-sonnet-20250219',
      max_tokens: 1500,
      stop_sequences: ['STOP_HERE'],
    });
    // not in the capability table (no longer in the SDK's list): no sampling sent, the conservative default
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('top_p');
    expect(body.messages.map(message => message.role)).toEqual(['user', 'assistant', 'user']);
    // The first user turn is the observation, not the system prompt (upstream merged it there).
    expect(body.messages[0]!.content[0]!.text).toMatch(/^Here are the screenshot/);
    expect(body.messages[2]!.content[1]).toEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: screenshotBase64 },
    });
    expect(body.messages[1]!.content).toEqual([
      { type: 'text', text: 'Saving.\n```python\npyautogui.hotkey("ctrl", "s")\n```' },
    ]);
  });

  it('sends the sampling the capability table says each Claude model takes (the stand-in refuses the rest)', async () => {
    script = () => ({ text: 'DONE' });
    const agent = createPromptAgent({ model: anthropic('claude-sonnet-4-5-20250929') });
    const result = await agent.predict({ instruction: INSTRUCTION, observation: observation() });
    expect(result.actions).toEqual(['DONE']);
    expect(lastBody()).not.toHaveProperty('top_p');
    expect(lastBody().temperature).toBe(1);
    // Opus 4.7 refuses any sampling value: the run's temperature 1.0 / top_p 0.9 are not sent
    const opus = await createPromptAgent({ model: anthropic('claude-opus-4-7') }).predict({
      instruction: INSTRUCTION,
      observation: observation(),
    });
    expect(opus.actions).toEqual(['DONE']);
    expect(lastBody()).not.toHaveProperty('temperature');
    expect(lastBody()).not.toHaveProperty('top_p');
  });
});

describe('model names', () => {
  it('takes explicit provider/model names and sends the id without the prefix', async () => {
    script = () => ({ text: 'DONE' });
    const compatible = createModel('openai-compatible/Qwen/Qwen2.5-VL-72B-Instruct', {
      openai: { baseURL: server.openaiBaseUrl, maxRetries: 0 },
    });
    expect(compatible.provider).toBe('openai-compatible');
    await createPromptAgent({ model: compatible }).predict({
      instruction: INSTRUCTION,
      observation: observation(),
    });
    expect(server.calls.at(-1)).toMatchObject({
      vendor: 'openai',
      model: 'Qwen/Qwen2.5-VL-72B-Instruct',
    });
    const claude = anthropic('anthropic/claude-sonnet-4-20250514');
    const result = await createPromptAgent({ model: claude }).predict({
      instruction: INSTRUCTION,
      observation: observation(),
    });
    expect(result.actions).toEqual(['DONE']);
    expect(server.calls.at(-1)).toMatchObject({
      vendor: 'anthropic',
      model: 'claude-sonnet-4-20250514',
    });
  });
});
