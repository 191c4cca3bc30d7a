// A launch of GIMP waits for its main window (not the "GIMP Startup" splash), polling wmctrl.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startFakeGuestServer, type FakeGuestServer } from './__fixtures__/fake-guest-server';
import { createGuestClient, type UndiciGuestClient } from './guest-client-undici';
import { runSetup } from './setup-runner';

let guest: FakeGuestServer;
let client: UndiciGuestClient;

beforeEach(async () => {
  guest = await startFakeGuestServer();
  client = createGuestClient(guest.endpoint, { maxRetryDelayMs: 10 });
});

afterEach(async () => {
  await client.close();
  await guest.close();
});

const listing = (output: string) => ({
  body: { status: 'success', output, error: '', returncode: 0 },
});
const splash = '0x00a00003  0 gimp-2.10.Gimp-2.10  host GIMP Startup\n';
const main = '0x00a002c5  0 gimp-2.10.Gimp-2.10  host GNU Image Manipulation Program\n';

it('polls wmctrl -lx until a GIMP window other than the splash is up', async () => {
  guest.script('POST /setup/execute', listing(''), listing(splash), listing(splash), listing(main));
  const record = await runSetup(
    [{ type: 'launch', parameters: { command: ['gimp', '/home/user/Desktop/a.jpg'] } }],
    { client, taskId: 't', baseDir: '.', settings: { launchReadiness: { intervalMs: 1 } } },
  );
  const polls = guest.requests.filter(request => request.path === '/setup/execute');
  expect(polls).toHaveLength(4);
  expect(polls[0]?.json).toEqual({ command: ['wmctrl', '-lx'], shell: false });
  expect(record.steps[0]?.detail).toMatch(/^GIMP's main window up after [\d.]+ s$/);
  expect(record.warnings).toEqual([]);
});

it('a splash that stays is a warning after the timeout; other programs are not waited for', async () => {
  guest.handle('POST /setup/execute', () => listing(splash));
  const record = await runSetup(
    [
      { type: 'launch', parameters: { command: '/usr/bin/gimp', shell: true } },
      { type: 'launch', parameters: { command: ['gedit'] } },
    ],
    {
      client,
      taskId: 't',
      baseDir: '.',
      settings: { launchReadiness: { intervalMs: 5, timeoutMs: 50 } },
    },
  );
  expect(record.warnings).toEqual([
    {
      phase: 'config',
      stepIndex: 0,
      stepType: 'launch',
      message: "GIMP's main window did not appear within 0.05 s",
    },
  ]);
  const last = guest.requests.at(-1);
  expect(last?.path).toBe('/setup/launch');
  expect(last?.json).toEqual({ command: ['gedit'], shell: false });
});
