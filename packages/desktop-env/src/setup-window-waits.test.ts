// Readiness instead of fixed sleeps: setup steps that need a window wait for it (or a deadline),
// and every wait is recorded.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startFakeGuestServer, type FakeGuestServer } from './__fixtures__/fake-guest-server';
import { createGuestClient, type UndiciGuestClient } from './guest-client-undici';
import type { SetupContext } from './setup-context';
import { runSetup } from './setup-runner';
import { followingActivation } from './setup-window-waits';

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
const calc = '0x01a00007  0 libreoffice.libreoffice-calc  host data.xlsx - LibreOffice Calc\n';
const vscode = '0x02000003  0 code.Code  host PhishSite - Visual Studio Code\n';

const context = (deadlineMs = 5_000): SetupContext => ({
  client,
  taskId: 't',
  baseDir: '.',
  settings: { windowReadiness: { deadlineMs, intervalMs: 5 } },
});
const paths = () => guest.requests.map(request => `${request.method} ${request.path}`);

it('a launch followed (past a sleep) by an activation waits for the window; the sleep still sleeps', async () => {
  guest.script('POST /execute', listing(''), listing(''), listing(calc));
  const record = await runSetup(
    [
      { type: 'launch', parameters: { command: ['libreoffice', '--calc', 'data.xlsx'] } },
      { type: 'sleep', parameters: { seconds: 0.05 } },
      { type: 'activate_window', parameters: { window_name: 'data.xlsx - LibreOffice Calc' } },
    ],
    context(),
  );
  expect(paths()).toEqual([
    'POST /setup/launch',
    'POST /execute',
    'POST /execute',
    'POST /execute',
    // the activation does not wait again: the launch just did
    'POST /setup/activate_window',
  ]);
  expect(guest.requests[1]?.json).toEqual({ command: ['wmctrl', '-lx'], shell: false });
  expect(record.windowWaits).toHaveLength(1);
  expect(record.windowWaits[0]).toMatchObject({
    phase: 'config',
    stepIndex: 0,
    stepType: 'launch',
    window: 'data.xlsx - LibreOffice Calc',
    deadlineMs: 5_000,
    found: true,
  });
  expect(record.steps[0]?.detail).toMatch(
    /^the window "data.xlsx - LibreOffice Calc" up after \d+ ms$/,
  );
  expect(record.steps[1]?.durationMs).toBeGreaterThanOrEqual(45);
  expect(record.warnings).toEqual([]);
});

it('activate_window waits for its window; a deadline that passes is recorded, the 404 stays the warning', async () => {
  guest.handle('POST /execute', () => listing(calc));
  guest.script('POST /setup/activate_window', {
    status: 404,
    body: { status: 'error', message: 'No window matches "Writer"' },
  });
  const record = await runSetup(
    [{ type: 'activate_window', parameters: { window_name: 'Writer', strict: false } }],
    context(60),
  );
  expect(record.windowWaits).toEqual([
    {
      phase: 'config',
      stepIndex: 0,
      stepType: 'activate_window',
      window: 'Writer',
      deadlineMs: 60,
      waitedMs: expect.any(Number),
      found: false,
    },
  ]);
  expect(record.windowWaits[0]?.waitedMs).toBeGreaterThanOrEqual(60);
  expect(paths()[0]).toBe('POST /execute');
  expect(paths().at(-1)).toBe('POST /setup/activate_window');
  expect(record.warnings).toHaveLength(1);
  expect(record.warnings[0]?.message).toMatch(/^activating the window "Writer" failed: /);
});

it('activate_window matches like wmctrl: by class, strict', async () => {
  guest.handle('POST /execute', () => listing(calc));
  const record = await runSetup(
    [
      {
        type: 'activate_window',
        parameters: { window_name: 'libreoffice.libreoffice-calc', by_class: true, strict: true },
      },
    ],
    context(),
  );
  expect(record.windowWaits[0]).toMatchObject({ found: true, stepType: 'activate_window' });
  expect(paths()).toEqual(['POST /execute', 'POST /setup/activate_window']);
});

it('`code DIR` waits for a title ending in "Visual Studio Code", with or without an activation', async () => {
  guest.script('POST /setup/execute', listing(''), listing(vscode));
  guest.script('POST /execute', listing(vscode));
  const record = await runSetup(
    [
      { type: 'launch', parameters: { command: ['code', '/home/user/Downloads/PhishSite/'] } },
      { type: 'activate_window', parameters: { window_name: 'Visual Studio Code' } },
    ],
    { ...context(), settings: { ...context().settings, launchReadiness: { intervalMs: 5 } } },
  );
  expect(record.windowWaits.map(wait => [wait.stepType, wait.window, wait.found])).toEqual([
    ['launch', 'the VS Code window', true],
    // the activation's own wait finds it at the first look
    ['activate_window', 'Visual Studio Code', true],
  ]);
  expect(record.steps[0]?.detail).toMatch(/^the VS Code window up after [\d.]+ s$/);
  expect(record.warnings).toEqual([]);
});

it('a guest that cannot list its windows is a warning; the activation is still sent', async () => {
  guest.handle('POST /execute', () => ({
    status: 500,
    body: { status: 'error', message: 'boom' },
  }));
  const record = await runSetup(
    [{ type: 'activate_window', parameters: { window_name: 'Terminal' } }],
    context(),
  );
  expect(record.windowWaits).toEqual([]);
  expect(record.warnings.map(warning => warning.message)).toEqual([
    expect.stringMatching(/^could not wait for the window "Terminal": .*HTTP 500/),
  ]);
  expect(paths().at(-1)).toBe('POST /setup/activate_window');
});

it('an open with no activation after it does not wait; only an activation (sleeps skipped) is followed', async () => {
  const record = await runSetup(
    [{ type: 'open', parameters: { path: '/home/user/a.docx' } }],
    context(),
  );
  expect(paths()).toEqual(['POST /setup/open_file']);
  expect(record.windowWaits).toEqual([]);
  const steps = [
    { type: 'open', parameters: { path: 'a' } },
    { type: 'sleep', parameters: { seconds: 5 } },
    { type: 'sleep', parameters: { seconds: 1 } },
    { type: 'activate_window', parameters: { window_name: 'a', strict: true } },
    { type: 'execute', parameters: { command: 'true' } },
  ];
  expect(followingActivation(steps, 0)).toEqual({ windowName: 'a', strict: true, byClass: false });
  expect(followingActivation(steps, 3)).toBeUndefined();
  expect(followingActivation(steps, 4)).toBeUndefined();
});
