import {
  startModelStandIn,
  type ModelCall,
  type ModelStandIn,
  type ScriptedReply,
} from '@osharm/model-stand-in';
import { afterEach, describe, expect, it } from 'vitest';
import { ModelError } from '@osharm/model-spec';
import { computerUseVendor, createComputerUseSession, geminiEnvironment } from './create-session';
import { defaultToolVersion } from './tool-versions';

const shot = { data: Buffer.from('png bytes of a screenshot').toString('base64') };
const display = { width: 1429, height: 804 };

let server: ModelStandIn | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(respond: (call: ModelCall) => ScriptedReply): Promise<ModelStandIn> {
  server = await startModelStandIn({ respond });
  return server;
}

describe('tool versions and vendors', () => {
  it.each([
    // by the capability table; a model it lacks gets the unknown-Claude default
    ['claude-sonnet-4-20250514', 'computer_20251124'],
    ['claude-haiku-4-5-20251001', 'computer_20250124'],
    ['claude-sonnet-4-5', 'computer_20250124'],
    ['claude-opus-4-7', 'computer_20251124'],
    ['claude-fable-5', 'computer_toolset_20260801'],
    ['claude-mythos-5-2', 'computer_toolset_20260801'],
    ['claude-opus-4-5', 'computer_20251124'],
    ['claude-sonnet-4-6', 'computer_20251124'],
    ['claude-opus-5', 'computer_toolset_20260801'],
    ['claude-sonnet-5-20260901', 'computer_toolset_20260801'],
  ])('%s gets %s', (model, version) => {
    expect(defaultToolVersion('anthropic', model)).toBe(version);
  });

  it('routes names to vendors through the one router', () => {
    expect(computerUseVendor('claude-opus-5')).toBe('anthropic');
    expect(computerUseVendor('gemini-2.5-computer-use-preview-10-2025')).toBe('gemini');
    expect(computerUseVendor('google/gemini-3')).toBe('gemini');
    expect(computerUseVendor('computer-use-preview')).toBe('openai');
    expect(defaultToolVersion('openai', 'computer-use-preview')).toBe('computer_use_preview');
    expect(defaultToolVersion('openai', 'gpt-5.5')).toBe('computer');
  });

  it('refuses a tool version of another vendor and a missing key', () => {
    expect(() =>
      createComputerUseSession('claude-opus-5', { display, toolVersion: 'computer', apiKey: 'k' }),
    ).toThrow(/not one of anthropic's/);
    expect(() => createComputerUseSession('gpt-5.5', { display, env: {} })).toThrow(ModelError);
  });
});

describe('Anthropic computer-use session', () => {
  it('sends the classic tool with its beta, answers every tool_use, errors with is_error', async () => {
    const standIn = await start(call =>
      call.index === 0
        ? {
            text: 'Opening a terminal.',
            calls: [
              { name: 'computer', input: { action: 'key', text: 'ctrl+alt+t' } },
              { name: 'computer', input: { action: 'type', text: 'ls' } },
            ],
          }
        : { text: 'Done.' },
    );
    const session = createComputerUseSession('claude-sonnet-4-5-20250929', {
      display,
      apiKey: 'k',
      baseURL: standIn.anthropicBaseUrl,
      maxRetries: 0,
    });
    expect(session.toolVersion).toBe('computer_20250124');
    const first = await session.start('List the files.', shot);
    expect(first.calls).toHaveLength(2);
    expect(first.text).toBe('Opening a terminal.');
    expect(first.modelId).toBe('claude-sonnet-4-5-20250929');
    const second = await session.next(
      [{ callId: first.calls[0]!.id }, { callId: first.calls[1]!.id, error: 'type: skipped' }],
      shot,
    );
    expect(second.calls).toEqual([]);
    expect(second.text).toBe('Done.');
    const [call0, call1] = standIn.calls;
    expect(call0!.headers['anthropic-beta']).toContain('computer-use-2025-01-24');
    expect(call0!.body.tools).toEqual([
      {
        type: 'computer_20250124',
        name: 'computer',
        display_width_px: 1429,
        display_height_px: 804,
      },
    ]);
    const messages = call1!.body.messages as Array<{ role: string; content: unknown }>;
    expect(messages.map(message => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[2]!.content).toEqual([
      { type: 'tool_result', tool_use_id: first.calls[0]!.id, content: 'done' },
      {
        type: 'tool_result',
        tool_use_id: first.calls[1]!.id,
        is_error: true,
        content: [
          { type: 'text', text: 'type: skipped' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: shot.data } },
        ],
      },
    ]);
  });

  it('uses the GA toolset without a beta for newer models and records a refusal', async () => {
    const standIn = await start(() => ({
      calls: [],
      text: 'I cannot help with that.',
      refusal: true,
    }));
    const session = createComputerUseSession('claude-opus-5', {
      display,
      apiKey: 'k',
      baseURL: standIn.anthropicBaseUrl,
      maxRetries: 0,
    });
    const turn = await session.start('Wipe the disk.', shot);
    expect(turn).toMatchObject({
      refusal: 'I cannot help with that.',
      finishReason: 'refusal',
      calls: [],
    });
    expect(standIn.calls[0]!.body.tools).toEqual([{ type: 'computer_toolset_20260801' }]);
    expect(standIn.calls[0]!.headers['anthropic-beta']).toBeUndefined();
  });
});

describe('OpenAI computer-use session', () => {
  const script = (call: ModelCall): ScriptedReply =>
    call.index === 0
      ? {
          reasoning: 'Open a terminal.',
          calls: [
            {
              actions: [{ type: 'keypress', keys: ['CTRL', 'ALT', 'T'] }],
              pending_safety_checks: [{ id: 'sc_1', code: 'sensitive_domain', message: 'check' }],
            },
          ],
        }
      : { text: 'All done.' };

  it.each(['previous-response-id', 'full-input'] as const)(
    'chains turns (%s), keeps reasoning and acknowledges safety checks',
    async chain => {
      const standIn = await start(script);
      const session = createComputerUseSession('gpt-5.5', {
        display,
        apiKey: 'k',
        baseURL: standIn.openaiBaseUrl,
        maxRetries: 0,
        openaiChain: chain,
      });
      const first = await session.start('List the files.', shot);
      expect(first.reasoning).toBe('Open a terminal.');
      expect(first.calls[0]!.safetyChecks).toEqual([
        { id: 'sc_1', code: 'sensitive_domain', message: 'check' },
      ]);
      // the stand-in answers 400 unless the check is acknowledged and the reasoning kept
      const second = await session.next(
        [{ callId: first.calls[0]!.id, acknowledgeSafetyChecks: true }],
        shot,
      );
      expect(second.text).toBe('All done.');
      expect(standIn.calls[0]!.body.tools).toEqual([{ type: 'computer' }]);
      if (chain === 'full-input') expect(standIn.calls[1]!.body.store).toBe(false);
      else expect(standIn.calls[1]!.body.previous_response_id).toMatch(/^resp_/);
    },
  );

  it('fails with a ModelError when the safety check is not acknowledged', async () => {
    const standIn = await start(script);
    const session = createComputerUseSession('gpt-5.5', {
      display,
      apiKey: 'k',
      baseURL: standIn.openaiBaseUrl,
      maxRetries: 0,
    });
    const first = await session.start('List the files.', shot);
    await expect(session.next([{ callId: first.calls[0]!.id }], shot)).rejects.toMatchObject({
      status: 400,
      kind: 'bad-request',
    });
  });

  it('declares the preview tool with display and environment for computer-use-preview', async () => {
    const standIn = await start(() => ({ calls: [{ action: { type: 'screenshot' } }] }));
    const session = createComputerUseSession('computer-use-preview', {
      display,
      apiKey: 'k',
      baseURL: standIn.openaiBaseUrl,
      maxRetries: 0,
    });
    const turn = await session.start('Look.', shot);
    expect(turn.calls[0]!.raw).toMatchObject({ action: { type: 'screenshot' } });
    expect(standIn.calls[0]!.body.tools).toEqual([
      {
        type: 'computer_use_preview',
        display_width: 1429,
        display_height: 804,
        environment: 'linux',
      },
    ]);
  });
});

describe('Gemini computer-use session', () => {
  it('sends the computer-use tool and custom functions, surfaces require_confirmation, acknowledges it', async () => {
    const standIn = await start(call =>
      call.index === 0
        ? {
            text: 'Typing the command.',
            calls: [
              {
                name: 'type_text_at',
                args: {
                  x: 500,
                  y: 500,
                  text: 'ls',
                  safety_decision: {
                    decision: 'require_confirmation',
                    explanation: 'Runs a command.',
                  },
                },
              },
            ],
          }
        : { text: 'Finished.' },
    );
    const session = createComputerUseSession('gemini-2.5-computer-use-preview-10-2025', {
      display: { width: 1920, height: 1080 },
      apiKey: 'k',
      baseURL: standIn.geminiBaseUrl,
      maxRetries: 0,
      gemini: {
        excludedFunctions: ['open_web_browser', 'navigate'],
        functions: [
          { name: 'type_text', description: 'Type.', parametersJsonSchema: { type: 'object' } },
        ],
      },
    });
    const first = await session.start('List the files.', shot);
    expect(first.calls[0]!.safetyChecks).toEqual([
      { id: first.calls[0]!.id, code: 'require_confirmation', message: 'Runs a command.' },
    ]);
    const second = await session.next(
      [{ callId: first.calls[0]!.id, acknowledgeSafetyChecks: true }],
      shot,
    );
    expect(second.text).toBe('Finished.');
    const body0 = standIn.calls[0]!.body;
    expect(JSON.stringify(body0.tools)).toContain(
      '"excludedPredefinedFunctions":["open_web_browser","navigate"]',
    );
    expect(JSON.stringify(body0.tools)).toContain('"name":"type_text"');
    const contents = standIn.calls[1]!.body.contents as Array<{ role: string; parts: unknown[] }>;
    expect(contents.map(content => content.role)).toEqual(['user', 'model', 'user']);
    expect(contents[2]!.parts[0]).toEqual({
      functionResponse: {
        name: 'type_text_at',
        response: { url: 'desktop', safety_acknowledgement: 'true' },
      },
    });
    expect(standIn.calls[1]!.headers['x-goog-api-key']).toBe('<redacted>');
  });
});

describe('screenshots kept in the history', () => {
  it('sends only the 3 most recent screenshots (Anthropic), older ones as a short text', async () => {
    const images: number[] = [];
    const standIn = await start(call => {
      images.push(call.imageCount);
      return { calls: [{ name: 'screenshot', input: {}, toolset_name: 'computer' }] };
    });
    const session = createComputerUseSession('claude-opus-5', {
      display,
      apiKey: 'k',
      baseURL: standIn.anthropicBaseUrl,
      maxRetries: 0,
    });
    let turn = await session.start('Look around.', shot);
    for (let index = 0; index < 4; index += 1)
      turn = await session.next([{ callId: turn.calls[0]!.id }], shot);
    expect(images).toEqual([1, 2, 3, 3, 3]);
    expect(JSON.stringify(standIn.calls[4]!.body.messages)).toContain(
      '(an earlier screenshot, omitted)',
    );
  });

  it('does the same for Gemini inline screenshots', async () => {
    const images: number[] = [];
    const standIn = await start(call => {
      images.push(call.imageCount);
      return { calls: [{ name: 'wait_5_seconds', args: {} }] };
    });
    const session = createComputerUseSession('gemini-2.5-computer-use-preview-10-2025', {
      display,
      apiKey: 'k',
      baseURL: standIn.geminiBaseUrl,
      maxRetries: 0,
      keepScreenshots: 2,
    });
    let turn = await session.start('Look around.', shot);
    for (let index = 0; index < 3; index += 1)
      turn = await session.next([{ callId: turn.calls[0]!.id }], shot);
    expect(images).toEqual([1, 2, 2, 2]);
  });
});

describe('screenshot format', () => {
  it.each([
    ['claude-opus-5', 'anthropicBaseUrl', '"media_type":"image/jpeg"'],
    ['gpt-5.5', 'openaiBaseUrl', '"data:image/jpeg;base64,'],
    ['gemini-2.5-computer-use-preview-10-2025', 'geminiBaseUrl', '"mimeType":"image/jpeg"'],
  ] as const)('%s: a JPEG screenshot goes out with its media type', async (model, url, marker) => {
    const standIn = await start(() => ({ text: 'Done.' }));
    const session = createComputerUseSession(model, {
      display,
      apiKey: 'k',
      baseURL: standIn[url],
      maxRetries: 0,
    });
    await session.start('Look.', { ...shot, mediaType: 'image/jpeg' });
    const body = JSON.stringify(standIn.calls[0]!.body);
    expect(body).toContain(marker);
    expect(body).not.toContain('image/png');
  });
});

describe('Gemini environment', () => {
  it('is the desktop from Gemini 3.5 on, the browser for the earlier computer-use models', () => {
    expect(geminiEnvironment('gemini-2.5-computer-use-preview-10-2025')).toBe(
      'ENVIRONMENT_BROWSER',
    );
    expect(geminiEnvironment('gemini-3-flash-preview')).toBe('ENVIRONMENT_BROWSER');
    expect(geminiEnvironment('gemini-3.5-flash')).toBe('ENVIRONMENT_DESKTOP');
    expect(geminiEnvironment('google/gemini-3.5-pro')).toBe('ENVIRONMENT_DESKTOP');
    expect(geminiEnvironment('gemini-4-flash')).toBe('ENVIRONMENT_DESKTOP');
  });

  it.each([
    ['gemini-3.5-flash', 'ENVIRONMENT_DESKTOP'],
    ['gemini-2.5-computer-use-preview-10-2025', 'ENVIRONMENT_BROWSER'],
  ] as const)('%s: the request declares %s', async (model, environment) => {
    const standIn = await start(() => ({ text: 'Done.' }));
    const session = createComputerUseSession(model, {
      display,
      apiKey: 'k',
      baseURL: standIn.geminiBaseUrl,
      maxRetries: 0,
    });
    await session.start('Look.', shot);
    expect(standIn.calls[0]!.body.tools).toEqual([{ computerUse: { environment } }]);
  });
});
