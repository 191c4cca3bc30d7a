import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TaskConfig } from '@osharm/task-schema';
import { parseTrajJsonl, type Action } from '@osharm/task-schema/trajectory';
import type { RunEnvironment } from '../run-environment';
import { runTask } from '../run-task';
import { createNativeAgent } from './native-agent';
import { createScriptedSession } from './scripted-session';

/**
 * A scripted environment (the unit here is the loop and its files; the desktop runs the native
 * agent end to end elsewhere): code containing `boom` fails with a non-zero return code.
 */
function scriptedEnvironment() {
  const sent: Action[] = [];
  const observation = async () => ({
    screenshot: await sharp({
      create: {
        width: 1280,
        height: 720,
        channels: 3,
        background: { r: sent.length * 30, g: 9, b: 9 },
      },
    })
      .png()
      .toBuffer(),
    accessibilityTree: null,
  });
  const env: RunEnvironment = {
    reset: async () => ({ observation: await observation() }),
    runSetup: async () => undefined,
    async step(action) {
      sent.push(action);
      const special = action === 'DONE' || action === 'FAIL';
      const failing = typeof action === 'string' && action.includes('boom');
      return {
        observation: await observation(),
        done: special,
        info: special ? { [action === 'DONE' ? 'done' : 'fail']: true } : {},
        ...(!special && {
          execution: failing
            ? { output: '', error: 'Traceback: boom', returncode: 1 }
            : { output: '', error: '', returncode: 0 },
        }),
      };
    },
    observe: observation,
    evaluate: async () => ({ score: 0 }),
  };
  return { env, sent };
}

const task: TaskConfig = {
  id: 'native_terminal',
  snapshot: 'os',
  instruction: 'List the files.',
  evaluator: { func: 'infeasible' },
};

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'osharm-native-run-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

describe('runTask with the native agent', () => {
  it('writes one traj.jsonl line per native action, stops a batch at a failure, records the native config', async () => {
    const session = createScriptedSession({
      vendor: 'anthropic',
      turns: [
        {
          text: 'typing',
          calls: [
            { name: 'key', input: { text: 'ctrl+alt+t' }, toolset_name: 'computer' },
            { name: 'type', input: { text: 'boom' }, toolset_name: 'computer' },
            { name: 'key', input: { text: 'Return' }, toolset_name: 'computer' },
          ],
        },
        { text: 'Done: listed.' },
      ],
    });
    const agent = createNativeAgent({ model: 'claude-opus-5', createSession: () => session });
    const { env, sent } = scriptedEnvironment();
    const dir = join(tmp, 'run');
    const result = await runTask({
      env,
      agent,
      task,
      domain: 'os',
      resultDir: dir,
      settleSeconds: { afterSetup: 0, afterInjection: 0 },
      record: false,
    });
    expect(result).toMatchObject({ score: 0, steps: 2, done: true });
    expect(sent).toEqual([
      'pyautogui.hotkey("ctrl", "alt", "t")',
      'pyautogui.write("boom", interval=0)',
      'DONE',
    ]);
    const { lines, issues } = parseTrajJsonl(await readFile(join(dir, 'traj.jsonl'), 'utf8'), {
      file: 'traj.jsonl',
    });
    expect(issues).toEqual([]);
    expect(lines.map(line => ('action' in line ? line.action : null))).toEqual(sent);
    expect(session.answered[0]).toEqual([
      { callId: 'scripted-1-0' },
      { callId: 'scripted-1-1', error: 'the action failed: Traceback: boom' },
      { callId: 'scripted-1-2', error: 'not run: an earlier action of this turn failed' },
    ]);
    const log = JSON.parse(await readFile(join(dir, 'better_log.json'), 'utf8'));
    expect(log.params.native).toMatchObject({
      agent: 'native',
      vendor: 'anthropic',
      tool_version: 'scripted',
      screen: { width: 1280, height: 720 },
      display: { width: 1280, height: 720 },
      scaling: 'none',
      safety_check_policy: 'stop',
      safety_checks_fired: 0,
      prepared_screenshots: 0, // this env runs no prepareScreenshot hook
    });
    expect(log.steps[0].native).toMatchObject({
      outcome: 'actions',
      model_id: 'scripted-native-baseline',
    });
    expect(log.steps[1]).toMatchObject({
      response: 'Done: listed.\n```\nDONE\n```',
      actions: ['DONE'],
      native: { outcome: 'done' },
    });
    expect((await readFile(join(dir, 'result.txt'), 'utf8')).trim()).toBe('0');
  });

  it('has the env prepare each screenshot while observing and answers cursor_position from the env', async () => {
    const session = createScriptedSession({
      vendor: 'anthropic',
      turns: [
        {
          text: 'where is the pointer?',
          calls: [
            { name: 'cursor_position', input: {}, toolset_name: 'computer' },
            { name: 'key', input: { text: 'Escape' }, toolset_name: 'computer' },
          ],
        },
        { text: 'Done.' },
      ],
    });
    const agent = createNativeAgent({ model: 'claude-opus-5', createSession: () => session });
    const { env: base } = scriptedEnvironment();
    const prepared: unknown[] = [];
    // as DesktopEnv does: the hook runs on the screenshot, its result rides on the observation
    const withPrepare = async (
      observation: Awaited<ReturnType<RunEnvironment['observe']>>,
      prepare?: (screenshot: Uint8Array) => Promise<unknown>,
    ) => {
      if (!prepare) return observation;
      const preparedScreenshot = await prepare(observation.screenshot);
      prepared.push(preparedScreenshot);
      return { ...observation, preparedScreenshot };
    };
    const env: RunEnvironment = {
      ...base,
      observe: async options =>
        withPrepare(await base.observe(options), options?.prepareScreenshot),
      step: async (action, options) => {
        const result = await base.step(action, options);
        return {
          ...result,
          observation: await withPrepare(result.observation, options.prepareScreenshot),
        };
      },
      cursorPosition: async () => [640, 360],
    };
    const result = await runTask({
      env,
      agent,
      task,
      domain: 'os',
      resultDir: join(tmp, 'run-prepared'),
      settleSeconds: { afterSetup: 0, afterInjection: 0 },
      record: false,
    });
    expect(result).toMatchObject({ steps: 2, done: true });
    // the first observation, the key press, and DONE's observation
    expect(prepared).toHaveLength(3);
    expect(session.answered[0]).toEqual([
      { callId: 'scripted-1-0', text: 'X=640,Y=360' },
      { callId: 'scripted-1-1' },
    ]);
    // both turns used the screenshot prepared while observing
    const log = JSON.parse(await readFile(join(tmp, 'run-prepared', 'better_log.json'), 'utf8'));
    expect(log.params.native.prepared_screenshots).toBe(2);
  });
});
