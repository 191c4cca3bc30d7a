import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  startFakeGuestServer,
  TINY_PNG,
  type FakeGuestServer,
} from './__fixtures__/fake-guest-server';
import { createDesktopEnv, type DesktopEnvSettings } from './desktop-env';
import type { VmProviderV1 } from './vm-provider';

/** A provider whose environment is the fake guest server (already running). */
function providerFor(server: FakeGuestServer): VmProviderV1 {
  return {
    specificationVersion: 'vm-provider-v1',
    providerId: 'fake',
    start: async () => server.endpoint,
    endpoint: () => server.endpoint,
    revert: async () => server.endpoint,
    stop: async () => undefined,
  };
}

const task = {
  id: '_quality',
  snapshot: 'os',
  instruction: 'Look.',
  evaluator: { func: 'infeasible' },
};

let server: FakeGuestServer;
beforeEach(async () => {
  server = await startFakeGuestServer();
});
afterEach(() => server.close());

async function observeWith(settings: Partial<DesktopEnvSettings> = {}) {
  const env = createDesktopEnv({ provider: providerFor(server), ...settings });
  try {
    await env.reset({ task });
    return await env.observe();
  } finally {
    await env.close();
  }
}

describe('DesktopEnv observation quality', () => {
  it('a whole tree is "complete"; the time is recorded', async () => {
    const observation = await observeWith();
    expect(observation.accessibilityTree).toBe('<desktop-frame name="main"/>');
    expect(observation.quality).toMatchObject({ a11yTree: 'complete', late: false });
    expect(observation.quality.ms).toBeGreaterThanOrEqual(0);
  });

  it('a tree the guest marks as cut is "truncated"; a missing one "failed"', async () => {
    // reset() observes too: both observations get the scripted answer.
    const cut = {
      headers: { 'content-type': 'application/json', 'x-osharm-truncated': 'deadline' },
      body: { AT: '<desktop-frame/>' },
    };
    server.script('GET /accessibility', cut, cut);
    expect((await observeWith()).quality.a11yTree).toBe('truncated');
    // Every attempt (the client retries idempotent calls) answers 500.
    const failing = { status: 500, body: { status: 'error', message: 'helper died' } };
    server.script('GET /accessibility', failing, failing, failing, failing, failing, failing);
    const failed = await observeWith({ guestClient: { maxRetries: 0 } });
    expect(failed.quality.a11yTree).toBe('failed');
    expect(failed.accessibilityTree).toBeNull();
  });

  it('not asked for: "not_requested"; past lateObservationMs: late', async () => {
    expect((await observeWith({ requireA11yTree: false })).quality.a11yTree).toBe('not_requested');
    expect((await observeWith({ lateObservationMs: -1 })).quality.late).toBe(true);
  });
});

describe('DesktopEnv prepareScreenshot', () => {
  it('runs the hook on the screenshot while the accessibility walk is still out; its result rides on the observation', async () => {
    const env = createDesktopEnv({ provider: providerFor(server) });
    try {
      await env.reset({ task });
      let released: () => void = () => undefined;
      const prepareRan = new Promise<void>(resolve => (released = resolve));
      let answeredBy = '';
      // the walk answers only once the hook has run (or after 5 s, which fails the test)
      server.handle('GET /accessibility', async () => {
        answeredBy = await Promise.race([
          prepareRan.then(() => 'prepare'),
          new Promise<string>(resolve => setTimeout(() => resolve('timeout'), 5_000)),
        ]);
        return { body: { AT: '<desktop-frame/>' } };
      });
      const seen: Buffer[] = [];
      const observation = await env.observe({
        prepareScreenshot: async png => {
          seen.push(png);
          released();
          return { prepared: png.length };
        },
      });
      expect(answeredBy).toBe('prepare');
      expect(seen).toEqual([TINY_PNG]);
      expect(observation.preparedScreenshot).toEqual({ prepared: TINY_PNG.length });
      expect(observation.accessibilityTree).toBe('<desktop-frame/>');
      // a failing hook leaves the observation whole, without a prepared screenshot
      server.handle('GET /accessibility', () => ({ body: { AT: '<desktop-frame/>' } }));
      const failed = await env.observe({
        prepareScreenshot: async () => {
          throw new Error('no sharp today');
        },
      });
      expect(failed.screenshot).toEqual(TINY_PNG);
      expect('preparedScreenshot' in failed).toBe(false);
      // step observes after the action with the same hook
      const stepped = await env.step('pyautogui.press("a")', {
        prepareScreenshot: async png => png.length,
      });
      expect(stepped.observation.preparedScreenshot).toBe(TINY_PNG.length);
      expect(await env.cursorPosition()).toEqual([512, 384]);
    } finally {
      await env.close();
    }
  });
});
