import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startModelStandIn,
  type ModelCall,
  type ModelStandIn,
  type ScriptedReply,
} from '@osharm/model-stand-in';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SafetyCheckPolicy } from '@osharm/models';
import { createNativeAgent } from './native-agent';
import { createScriptedSession, readNativeScript } from './scripted-session';

let screen: Buffer;
let tmp: string;
beforeAll(async () => {
  screen = await sharp({
    create: { width: 1920, height: 1080, channels: 3, background: { r: 30, g: 60, b: 90 } },
  })
    .png()
    .toBuffer();
  tmp = await mkdtemp(join(tmpdir(), 'osharm-native-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

let server: ModelStandIn | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
async function start(respond: (call: ModelCall) => ScriptedReply): Promise<ModelStandIn> {
  server = await startModelStandIn({ respond });
  return server;
}

const observation = () => ({ screenshot: screen });

/** The first image the stand-in received in a call, decoded to its size. */
async function imageSize(call: { body: Record<string, unknown> }) {
  const match = /"data":"([A-Za-z0-9+/=]+)"|base64,([A-Za-z0-9+/=]+)"/.exec(
    JSON.stringify(call.body),
  );
  const metadata = await sharp(Buffer.from(match![1] ?? match![2]!, 'base64')).metadata();
  return { width: metadata.width, height: metadata.height };
}

describe('native agent, Anthropic (GA toolset)', () => {
  it('downscales the screen, maps a batch, answers failed and skipped calls, then DONE', async () => {
    const standIn = await start(call =>
      call.index === 0
        ? {
            text: 'Opening a terminal and listing files.',
            calls: [
              { name: 'left_click', input: { coordinate: [715, 402] }, toolset_name: 'computer' },
              { name: 'type', input: { text: 'ls\n' }, toolset_name: 'computer' },
              { name: 'key', input: { text: 'Return' }, toolset_name: 'computer' },
            ],
          }
        : { text: 'The files are listed.' },
    );
    const agent = createNativeAgent({
      model: 'claude-opus-5',
      session: { apiKey: 'k', baseURL: standIn.anthropicBaseUrl, maxRetries: 0 },
    });
    agent.reset();
    const first = await agent.predict({
      instruction: 'List the files.',
      observation: observation(),
    });
    expect(first.actions).toEqual([
      'pyautogui.click(961, 540, clicks=1, interval=0.1, button="left")',
      'pyautogui.write("ls\\n", interval=0)',
      'pyautogui.press("enter")',
    ]);
    expect(first.stopAtFailedAction).toBe(true);
    // the text, then the step's actions as code blocks: the judge reads the response
    expect(first.response).toBe(
      'Opening a terminal and listing files.\n```python\npyautogui.click(961, 540, clicks=1, interval=0.1, button="left")\n```\n```python\npyautogui.write("ls\\n", interval=0)\n```\n```python\npyautogui.press("enter")\n```',
    );
    expect(first.native).toMatchObject({ text: 'Opening a terminal and listing files.' });
    expect(first.native).toMatchObject({ outcome: 'actions', model_id: 'claude-opus-5' });
    expect(await imageSize(standIn.calls[0]!)).toEqual({ width: 1429, height: 804 });
    expect(agent.params.native).toMatchObject({
      vendor: 'anthropic',
      tool_version: 'computer_toolset_20260801',
      screen: { width: 1920, height: 1080 },
      display: { width: 1429, height: 804 },
      safety_check_policy: 'stop',
      safety_checks_fired: 0,
    });

    const second = await agent.predict({
      instruction: 'List the files.',
      observation: observation(),
      previousActions: [
        { status: 'done' },
        { status: 'failed', error: 'NameError' },
        { status: 'skipped' },
      ],
    });
    expect(second.actions).toEqual(['DONE']);
    const messages = standIn.calls[1]!.body.messages as Array<{
      content: Array<Record<string, unknown>>;
    }>;
    const results = messages[2]!.content;
    expect(results.map(result => result.is_error ?? false)).toEqual([false, true, true]);
    expect(JSON.stringify(results[1])).toContain('the action failed: NameError');
    expect(JSON.stringify(results[2])).toContain('not run: an earlier action of this turn failed');
  });

  it('records a refusal as FAIL with the refusal kept', async () => {
    const standIn = await start(() => ({
      calls: [],
      text: 'I will not forge a document.',
      refusal: true,
    }));
    const agent = createNativeAgent({
      model: 'claude-sonnet-4-5',
      session: { apiKey: 'k', baseURL: standIn.anthropicBaseUrl, maxRetries: 0 },
    });
    const step = await agent.predict({ instruction: 'Forge a note.', observation: observation() });
    expect(step.actions).toEqual(['FAIL']);
    expect(step.native).toMatchObject({
      outcome: 'refusal',
      refusal: 'I will not forge a document.',
    });
    expect(agent.params.native).toMatchObject({ tool_version: 'computer_20250124' });
  });

  it('stops the batch at an action it cannot map and tells the model', async () => {
    const standIn = await start(call =>
      call.index === 0
        ? {
            calls: [
              { name: 'computer', input: { action: 'key', text: 'ctrl+Hyper' } },
              { name: 'computer', input: { action: 'type', text: 'never typed' } },
            ],
          }
        : { text: 'ok' },
    );
    const agent = createNativeAgent({
      model: 'claude-sonnet-4-5',
      session: { apiKey: 'k', baseURL: standIn.anthropicBaseUrl, maxRetries: 0 },
    });
    const first = await agent.predict({ instruction: 'x', observation: observation() });
    expect(first.actions).toEqual([]);
    await agent.predict({ instruction: 'x', observation: observation(), previousActions: [] });
    const results = (
      standIn.calls[1]!.body.messages as Array<{ content: Array<Record<string, unknown>> }>
    )[2]!.content;
    expect(results.map(result => result.is_error)).toEqual([true, true]);
    expect(JSON.stringify(results[0])).toContain('unknown key name');
  });
});

describe('native agent, OpenAI safety checks', () => {
  const script = (call: ModelCall): ScriptedReply =>
    call.index === 0
      ? {
          calls: [
            {
              actions: [{ type: 'click', button: 'left', x: 682.5, y: 384 }],
              pending_safety_checks: [
                { id: 'sc_1', code: 'malicious_instructions', message: 'On-screen instructions.' },
              ],
            },
          ],
        }
      : { text: 'Done.' };

  it.each([
    ['stop', 'safety-stop'],
    ['refuse', 'safety-refusal'],
  ] as const)(
    'policy %s ends the run with FAIL (%s) and records that the check fired',
    async (policy, outcome) => {
      const standIn = await start(script);
      const agent = createNativeAgent({
        model: 'gpt-5.5',
        safetyChecks: policy as SafetyCheckPolicy,
        session: { apiKey: 'k', baseURL: standIn.openaiBaseUrl, maxRetries: 0 },
      });
      const step = await agent.predict({ instruction: 'Click it.', observation: observation() });
      expect(step.actions).toEqual(['FAIL']);
      expect(step.native).toMatchObject({ outcome, safety_checks: { policy, fired: 1 } });
      expect(agent.params.native).toMatchObject({
        safety_checks_fired: 1,
        tool_version: 'computer',
      });
      expect(await imageSize(standIn.calls[0]!)).toEqual({ width: 1365, height: 768 });
    },
  );

  it('policy acknowledge runs the action and acknowledges the check on the next turn', async () => {
    const standIn = await start(script);
    const agent = createNativeAgent({
      model: 'gpt-5.5',
      safetyChecks: 'acknowledge',
      session: { apiKey: 'k', baseURL: standIn.openaiBaseUrl, maxRetries: 0 },
    });
    const first = await agent.predict({ instruction: 'Click it.', observation: observation() });
    expect(first.actions).toEqual([
      'pyautogui.click(960, 540, clicks=1, interval=0.1, button="left")',
    ]);
    // the stand-in answers 400 when the check is not acknowledged
    const second = await agent.predict({
      instruction: 'Click it.',
      observation: observation(),
      previousActions: [{ status: 'done' }],
    });
    expect(second.actions).toEqual(['DONE']);
    expect(standIn.calls[1]!.body.input).toEqual([
      expect.objectContaining({
        type: 'computer_call_output',
        acknowledged_safety_checks: [expect.objectContaining({ id: 'sc_1' })],
      }),
    ]);
  });
});

describe('native agent, Gemini', () => {
  it('maps grid coordinates to the screen and declares the desktop functions', async () => {
    const standIn = await start(call =>
      call.index === 0
        ? {
            calls: [
              {
                name: 'type_text_at',
                args: { x: 500, y: 500, text: 'ls', press_enter: true, clear_before_typing: false },
              },
            ],
          }
        : { text: 'Listed.' },
    );
    const agent = createNativeAgent({
      model: 'gemini-2.5-computer-use-preview-10-2025',
      session: { apiKey: 'k', baseURL: standIn.geminiBaseUrl, maxRetries: 0 },
    });
    const first = await agent.predict({
      instruction: 'List the files.',
      observation: observation(),
    });
    expect(first.actions).toEqual([
      'pyautogui.click(960, 540, clicks=1, interval=0.1, button="left"); pyautogui.write("ls", interval=0); pyautogui.press("enter")',
    ]);
    expect(await imageSize(standIn.calls[0]!)).toEqual({ width: 1920, height: 1080 });
    const tools = JSON.stringify(standIn.calls[0]!.body.tools);
    expect(tools).toContain(
      '"excludedPredefinedFunctions":["open_web_browser","navigate","search","go_back","go_forward"]',
    );
    expect(tools).toContain('"double_click_at"');
    const second = await agent.predict({
      instruction: 'x',
      observation: observation(),
      previousActions: [{ status: 'done' }],
    });
    expect(second.actions).toEqual(['DONE']);
    expect(agent.params.native).toMatchObject({ environment: 'ENVIRONMENT_BROWSER' });
  });

  it('gives Gemini 3.5 the desktop environment and maps its own actions', async () => {
    const standIn = await start(() => ({
      calls: [
        { name: 'hotkey', args: { keys: ['Control', 'Alt', 't'], intent: 'Open a terminal.' } },
      ],
    }));
    const agent = createNativeAgent({
      model: 'gemini-3.5-flash',
      session: { apiKey: 'k', baseURL: standIn.geminiBaseUrl, maxRetries: 0 },
    });
    const first = await agent.predict({ instruction: 'x', observation: observation() });
    expect(first.actions).toEqual(['pyautogui.hotkey("ctrl", "alt", "t")']);
    // no browser-set exclusions and no custom functions: the environment has its own desktop actions
    expect(standIn.calls[0]!.body.tools).toEqual([
      { computerUse: { environment: 'ENVIRONMENT_DESKTOP' } },
    ]);
    expect(agent.params.native).toMatchObject({
      vendor: 'gemini',
      environment: 'ENVIRONMENT_DESKTOP',
      gemini_safety: {
        disabled_safety_policies: 'vendor default',
        prompt_injection_detection: 'vendor default',
      },
    });
  });

  it('sends the safety settings it is given and records them', async () => {
    const standIn = await start(() => ({ text: 'Done.' }));
    const agent = createNativeAgent({
      model: 'gemini-3.5-flash',
      geminiSafety: {
        disabledSafetyPolicies: ['FINANCIAL_TRANSACTIONS'],
        promptInjectionDetection: true,
      },
      session: { apiKey: 'k', baseURL: standIn.geminiBaseUrl, maxRetries: 0 },
    });
    await agent.predict({ instruction: 'x', observation: observation() });
    expect(standIn.calls[0]!.body.tools).toEqual([
      {
        computerUse: {
          environment: 'ENVIRONMENT_DESKTOP',
          disabledSafetyPolicies: ['FINANCIAL_TRANSACTIONS'],
          enablePromptInjectionDetection: true,
        },
      },
    ]);
    expect(agent.params.native).toMatchObject({
      gemini_safety: {
        disabled_safety_policies: ['FINANCIAL_TRANSACTIONS'],
        prompt_injection_detection: true,
      },
    });
  });
});

describe('scripted native baseline', () => {
  it('replays native calls from a file through the same mapping', async () => {
    const file = join(tmp, 'script.json');
    await writeFile(
      file,
      JSON.stringify({
        vendor: 'openai',
        turns: [
          {
            text: 'typing',
            calls: [
              {
                actions: [
                  { type: 'keypress', keys: ['CTRL', 'ALT', 'T'] },
                  { type: 'type', text: 'ls' },
                ],
              },
            ],
          },
          { text: 'done' },
        ],
      }),
    );
    const script = await readNativeScript(file);
    const session = createScriptedSession(script);
    const agent = createNativeAgent({ model: 'openai/scripted', createSession: () => session });
    const first = await agent.predict({ instruction: 'x', observation: observation() });
    expect(first.actions).toEqual([
      'pyautogui.hotkey("ctrl", "alt", "t")',
      'pyautogui.write("ls", interval=0)',
    ]);
    const second = await agent.predict({
      instruction: 'x',
      observation: observation(),
      previousActions: [{ status: 'done' }, { status: 'failed', error: 'boom' }],
    });
    expect(second.actions).toEqual(['DONE']);
    expect(session.answered[0]).toEqual([
      { callId: 'scripted-1-0', error: 'the action failed: boom' },
    ]);
  });

  it('refuses a bad script file naming the file and the field', async () => {
    const file = join(tmp, 'bad.json');
    await writeFile(file, JSON.stringify({ vendor: 'mistral', turns: [] }));
    await expect(readNativeScript(file)).rejects.toThrow(/bad\.json.*vendor|vendor.*bad\.json/s);
    await writeFile(file, '{ "vendor": ');
    await expect(readNativeScript(file)).rejects.toThrow(/not valid JSON/);
    expect(await readFile(file, 'utf8')).toContain('vendor');
  });
});
