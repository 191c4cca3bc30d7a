import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelStandIn } from './index';
import type { ModelCall, ModelStandIn, ScriptedReply } from './index';

const onePixelPng =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

let server: ModelStandIn | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(respond: (call: ModelCall) => ScriptedReply): Promise<ModelStandIn> {
  server = await startModelStandIn({ respond });
  return server;
}

describe('Anthropic computer use through the SDK', () => {
  it('answers the classic computer tool with tool_use blocks', async () => {
    const standIn = await start(() => ({
      text: 'Opening a terminal.',
      reasoning: 'The task needs a shell.',
      calls: [{ name: 'computer', input: { action: 'key', text: 'ctrl+alt+t' } }],
    }));
    const client = new Anthropic({ baseURL: standIn.anthropicBaseUrl, apiKey: 'k', maxRetries: 0 });
    const message = await client.beta.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      betas: ['computer-use-2025-01-24'],
      tools: [
        {
          type: 'computer_20250124',
          name: 'computer',
          display_width_px: 1280,
          display_height_px: 720,
        },
      ],
      messages: [{ role: 'user', content: 'Open a terminal.' }],
    });
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.map(block => block.type)).toEqual(['thinking', 'text', 'tool_use']);
    const use = message.content[2]!;
    if (use.type !== 'tool_use') throw new Error('expected tool_use');
    expect(use).toMatchObject({ name: 'computer', input: { action: 'key', text: 'ctrl+alt+t' } });
    expect(use.id).toMatch(/^toolu_/);
    expect(standIn.calls[0]!.body.tools).toEqual([
      expect.objectContaining({ type: 'computer_20250124', display_width_px: 1280 }),
    ]);
    expect(standIn.calls[0]!.headers['anthropic-beta']).toContain('computer-use-2025-01-24');
  });

  it('answers the GA toolset with several member tool_use blocks, each with its own id', async () => {
    const seen: ModelCall[] = [];
    const standIn = await start(call => {
      seen.push(call);
      return call.index === 0
        ? {
            calls: [
              { name: 'left_click', input: { coordinate: [10, 20] }, toolset_name: 'computer' },
              { name: 'type', input: { text: 'ls -la' }, toolset_name: 'computer' },
              { name: 'key', input: { text: 'Return' }, toolset_name: 'computer' },
            ],
          }
        : { text: 'Done: the listing is shown.' };
    });
    const client = new Anthropic({ baseURL: standIn.anthropicBaseUrl, apiKey: 'k', maxRetries: 0 });
    const first = await client.messages.create({
      model: 'claude-opus-5',
      max_tokens: 1024,
      tools: [{ type: 'computer_toolset_20260801' }],
      messages: [{ role: 'user', content: 'List the files.' }],
    });
    expect(first.stop_reason).toBe('tool_use');
    const uses = first.content.filter(block => block.type === 'tool_use');
    expect(uses.map(block => [block.name, 'toolset_name' in block && block.toolset_name])).toEqual([
      ['left_click', 'computer'],
      ['type', 'computer'],
      ['key', 'computer'],
    ]);
    expect(new Set(uses.map(block => block.id)).size).toBe(3);
    const second = await client.messages.create({
      model: 'claude-opus-5',
      max_tokens: 1024,
      tools: [{ type: 'computer_toolset_20260801' }],
      messages: [
        { role: 'user', content: 'List the files.' },
        { role: 'assistant', content: first.content as Anthropic.ContentBlockParam[] },
        {
          role: 'user',
          content: uses.map(block => ({
            type: 'tool_result' as const,
            tool_use_id: block.id,
            content: [
              {
                type: 'image' as const,
                source: {
                  type: 'base64' as const,
                  media_type: 'image/png' as const,
                  data: onePixelPng,
                },
              },
            ],
          })),
        },
      ],
    });
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content).toEqual([expect.objectContaining({ type: 'text' })]);
    expect(seen[1]!.imageCount).toBe(3);
  });

  it('marks a refusal with stop_reason refusal', async () => {
    const standIn = await start(() => ({ calls: [], text: 'I will not do that.', refusal: true }));
    const client = new Anthropic({ baseURL: standIn.anthropicBaseUrl, apiKey: 'k', maxRetries: 0 });
    const message = await client.messages.create({
      model: 'claude-opus-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Delete everything.' }],
    });
    expect(message.stop_reason).toBe('refusal');
  });
});

describe('OpenAI Responses computer use through the SDK', () => {
  it('answers computer_call items with actions[] and a reasoning item, then takes the output with the reasoning kept', async () => {
    const standIn = await start(call =>
      call.index === 0
        ? {
            reasoning: 'Open a terminal first.',
            calls: [
              {
                actions: [
                  { type: 'keypress', keys: ['CTRL', 'ALT', 'T'] },
                  { type: 'type', text: 'ls' },
                ],
              },
            ],
          }
        : { text: 'Finished.' },
    );
    const client = new OpenAI({ baseURL: standIn.openaiBaseUrl, apiKey: 'k', maxRetries: 0 });
    const first = await client.responses.create({
      model: 'gpt-5.5',
      tools: [{ type: 'computer' }],
      input: 'List the files.',
    });
    expect(first.output.map(item => item.type)).toEqual(['reasoning', 'computer_call']);
    const call = first.output[1]!;
    if (call.type !== 'computer_call') throw new Error('expected computer_call');
    expect(call.actions).toEqual([
      { type: 'keypress', keys: ['CTRL', 'ALT', 'T'] },
      { type: 'type', text: 'ls' },
    ]);
    expect(call.pending_safety_checks).toEqual([]);
    const output = {
      type: 'computer_call_output' as const,
      call_id: call.call_id,
      output: {
        type: 'computer_screenshot' as const,
        image_url: `data:image/png;base64,${onePixelPng}`,
      },
    };
    // Without the reasoning item the API refuses the turn.
    await expect(
      client.responses.create({
        model: 'gpt-5.5',
        tools: [{ type: 'computer' }],
        input: [call, output],
      }),
    ).rejects.toMatchObject({ status: 400 });
    const second = await client.responses.create({
      model: 'gpt-5.5',
      tools: [{ type: 'computer' }],
      input: [...(first.output as OpenAI.Responses.ResponseInputItem[]), output],
    });
    expect(second.output_text).toBe('Finished.');
    expect(standIn.calls.at(-1)).toMatchObject({ endpoint: '/v1/responses' });
    expect(server!.calls).toHaveLength(2); // the refused turn is not a model call
  });

  it('answers computer_use_preview with a single action and requires pending safety checks to be acknowledged', async () => {
    const standIn = await start(call =>
      call.index === 0
        ? {
            calls: [
              {
                action: { type: 'click', button: 'left', x: 100, y: 200 },
                pending_safety_checks: [
                  {
                    id: 'sc_1',
                    code: 'malicious_instructions',
                    message: 'Instructions found on screen.',
                  },
                ],
              },
            ],
          }
        : { text: 'ok' },
    );
    const client = new OpenAI({ baseURL: standIn.openaiBaseUrl, apiKey: 'k', maxRetries: 0 });
    const tools: OpenAI.Responses.Tool[] = [
      {
        type: 'computer_use_preview',
        display_width: 1024,
        display_height: 768,
        environment: 'linux',
      },
    ];
    const first = await client.responses.create({
      model: 'computer-use-preview',
      tools,
      truncation: 'auto',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Click it.' }] }],
    });
    const call = first.output[0]!;
    if (call.type !== 'computer_call') throw new Error('expected computer_call');
    expect(call.action).toEqual({ type: 'click', button: 'left', x: 100, y: 200 });
    expect(call.pending_safety_checks).toEqual([
      { id: 'sc_1', code: 'malicious_instructions', message: 'Instructions found on screen.' },
    ]);
    const screenshot = {
      type: 'computer_screenshot' as const,
      image_url: `data:image/png;base64,${onePixelPng}`,
    };
    await expect(
      client.responses.create({
        model: 'computer-use-preview',
        tools,
        previous_response_id: first.id,
        input: [{ type: 'computer_call_output', call_id: call.call_id, output: screenshot }],
      }),
    ).rejects.toMatchObject({ status: 400 });
    const second = await client.responses.create({
      model: 'computer-use-preview',
      tools,
      previous_response_id: first.id,
      input: [
        {
          type: 'computer_call_output',
          call_id: call.call_id,
          acknowledged_safety_checks: [{ id: 'sc_1' }],
          output: screenshot,
        },
      ],
    });
    expect(second.output_text).toBe('ok');
    expect(second.previous_response_id).toBe(first.id);
  });

  it('rejects an unknown previous_response_id', async () => {
    const standIn = await start(() => ({ text: 'never' }));
    const client = new OpenAI({ baseURL: standIn.openaiBaseUrl, apiKey: 'k', maxRetries: 0 });
    await expect(
      client.responses.create({ model: 'gpt-5.5', previous_response_id: 'resp_nope', input: 'x' }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('answers a chat completion with computer calls as a 400', async () => {
    const standIn = await start(() => ({ calls: [{ action: { type: 'wait' } }] }));
    const client = new OpenAI({ baseURL: standIn.openaiBaseUrl, apiKey: 'k', maxRetries: 0 });
    await expect(
      client.chat.completions.create({
        model: 'gpt-5.5',
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toMatchObject({ status: 400 });
  });
});

describe('Gemini computer use through @google/genai', () => {
  it('answers generateContent with computer-use function calls and a safety decision', async () => {
    const seen: ModelCall[] = [];
    const standIn = await start(call => {
      seen.push(call);
      return call.index === 0
        ? {
            text: 'I will click the terminal icon.',
            calls: [
              { name: 'click_at', args: { x: 500, y: 250 } },
              {
                name: 'type_text_at',
                args: {
                  x: 500,
                  y: 500,
                  text: 'ls',
                  press_enter: true,
                  safety_decision: {
                    decision: 'require_confirmation',
                    explanation: 'A command runs.',
                  },
                },
              },
            ],
          }
        : { text: 'All done.' };
    });
    const client = new GoogleGenAI({
      apiKey: 'k',
      httpOptions: { baseUrl: standIn.geminiBaseUrl },
    });
    const first = await client.models.generateContent({
      model: 'gemini-2.5-computer-use-preview-10-2025',
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'List the files.' },
            { inlineData: { mimeType: 'image/png', data: onePixelPng } },
          ],
        },
      ],
      config: {
        systemInstruction: 'You operate a Linux desktop.',
        tools: [
          {
            computerUse: {
              environment: 'ENVIRONMENT_BROWSER' as never,
              excludedPredefinedFunctions: ['open_web_browser'],
            },
          },
        ],
      },
    });
    expect(first.functionCalls?.map(call => call.name)).toEqual(['click_at', 'type_text_at']);
    expect(first.functionCalls?.[1]?.args).toMatchObject({
      safety_decision: { decision: 'require_confirmation' },
    });
    expect(first.usageMetadata?.totalTokenCount).toBeGreaterThan(0);
    expect(first.modelVersion).toBe('gemini-2.5-computer-use-preview-10-2025');
    expect(seen[0]).toMatchObject({
      vendor: 'gemini',
      endpoint: expect.stringMatching(
        /^\/v1(beta)?\/models\/gemini-2\.5-computer-use-preview-10-2025:generateContent$/,
      ),
      system: 'You operate a Linux desktop.',
      imageCount: 1,
    });
    expect(standIn.calls[0]!.body.tools).toEqual([
      {
        computerUse: {
          environment: 'ENVIRONMENT_BROWSER',
          excludedPredefinedFunctions: ['open_web_browser'],
        },
      },
    ]);
    expect(standIn.calls[0]!.headers['x-goog-api-key']).toBe('<redacted>');
    const second = await client.models.generateContent({
      model: 'gemini-2.5-computer-use-preview-10-2025',
      contents: [
        { role: 'user', parts: [{ text: 'List the files.' }] },
        first.candidates![0]!.content!,
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'click_at', response: { url: 'desktop' } } },
            {
              functionResponse: {
                name: 'type_text_at',
                response: { url: 'desktop', safety_acknowledgement: 'true' },
              },
            },
          ],
        },
      ],
    });
    expect(second.text).toBe('All done.');
  });

  it('answers an error in Gemini error JSON', async () => {
    const standIn = await start(() => ({ status: 429 }));
    const client = new GoogleGenAI({
      apiKey: 'k',
      httpOptions: { baseUrl: standIn.geminiBaseUrl },
    });
    await expect(
      client.models.generateContent({ model: 'gemini-x', contents: 'hi' }),
    ).rejects.toMatchObject({ status: 429 });
  });
});
