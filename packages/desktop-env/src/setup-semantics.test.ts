// Which setup failures end the setup and which are warnings, step type by step type, as upstream
// OS-Harm's setup controller (docs/packages/desktop-env.md, "Setup semantics"), on the loopback
// guest server stand-in.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeGuestServer, type FakeGuestServer } from './__fixtures__/fake-guest-server';
import { startFileServer, type FileServer } from './__fixtures__/file-server';
import { createGuestClient, type UndiciGuestClient } from './guest-client-undici';
import type { SetupContext } from './setup-context';
import { runSetup } from './setup-runner';
import { SetupStepError } from './setup-step-error';

let guest: FakeGuestServer;
let client: UndiciGuestClient;
let files: FileServer;
let workDir: string;

beforeEach(async () => {
  guest = await startFakeGuestServer();
  client = createGuestClient(guest.endpoint, { maxRetryDelayMs: 10 });
  files = await startFileServer({ '/a.txt': 'a' });
  workDir = await mkdtemp(join(tmpdir(), 'osharm-semantics-'));
  await mkdir(join(workDir, 'assets'), { recursive: true });
  await writeFile(join(workDir, 'assets', 'there.txt'), 'there');
});

afterEach(async () => {
  await client.close();
  await guest.close();
  await files.close();
  await rm(workDir, { recursive: true, force: true });
});

function context(overrides: Partial<SetupContext> = {}): SetupContext {
  return {
    client,
    taskId: 't',
    baseDir: workDir,
    cacheDir: join(workDir, 'cache'),
    settings: {
      until: { intervalMs: 1 },
      uploadRetryDelayMs: () => 1,
      download: { retryDelayMs: () => 1 },
      chrome: { connectAttempts: 1, connectIntervalMs: 1 },
    },
    ...overrides,
  };
}

const failing = (route: string, status = 500) => {
  for (let index = 0; index < 20; index++) {
    guest.script(route, { status, body: { status: 'error', message: `${route} broke` } });
  }
};

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>(resolve => server.close(() => resolve()));
  return port;
}

const after = { type: 'execute', parameters: { command: ['echo', 'after'] } };
const launchAfter = { type: 'launch', parameters: { command: ['echo', 'after'] } };

describe('failures upstream only logs are warnings; the setup goes on', () => {
  it.each([
    [
      'open',
      'POST /setup/open_file',
      { path: '/home/user/gone.docx' },
      /opening \/home\/user\/gone\.docx failed: .*HTTP 500/,
    ],
    [
      'launch',
      'POST /setup/launch',
      { command: ['gimp'] },
      /launching \["gimp"\] failed: .*HTTP 500/,
    ],
    [
      'activate_window',
      'POST /setup/activate_window',
      { window_name: 'Visual Studio Code' },
      /activating the window "Visual Studio Code" failed: .*HTTP 404/,
    ],
    [
      'close_window',
      'POST /setup/close_window',
      { window_name: 'x' },
      /closing the window "x" failed/,
    ],
    [
      'change_wallpaper',
      'POST /setup/change_wallpaper',
      { path: '/w.png' },
      /setting the wallpaper \/w\.png failed/,
    ],
    [
      'execute',
      'POST /setup/execute',
      { command: ['true'] },
      /the command request failed: .*HTTP 500/,
    ],
    [
      'command',
      'POST /setup/execute',
      { command: 'true', shell: true },
      /the command request failed/,
    ],
  ])('%s', async (type, route, parameters, message) => {
    failing(route, type === 'activate_window' || type === 'change_wallpaper' ? 404 : 500);
    // the step after it runs (a launch after the execute steps, whose route fails here)
    const next = route === 'POST /setup/execute' ? launchAfter : after;
    const record = await runSetup(
      [{ type: 'sleep', parameters: { seconds: 0 } }, { type, parameters }, next],
      context({ phase: 'postconfig' }),
    );
    expect(record.warnings).toHaveLength(1);
    expect(record.warnings[0]).toMatchObject({ phase: 'postconfig', stepIndex: 1, stepType: type });
    expect(record.warnings[0]?.message).toMatch(message);
    expect(record.steps.map(step => step.type)).toEqual(['sleep', type, next.type]);
    expect(guest.requests.at(-1)?.json).toEqual({ command: ['echo', 'after'], shell: false });
  });

  it('execute with until: polling ends with a warning after 5 failed requests', async () => {
    failing('POST /setup/execute');
    const record = await runSetup(
      [{ type: 'execute', parameters: { command: 'x', until: { returncode: 0 } } }],
      context(),
    );
    expect(guest.requests).toHaveLength(5);
    expect(record.warnings[0]?.message).toMatch(
      /^polling for \{"returncode":0\} ended after 5 failed request\(s\): /,
    );
  });

  it('upload_file: a failed upload is a warning and the next file still goes up', async () => {
    guest.script(
      'POST /setup/upload',
      { status: 500, body: 'disk full' },
      { status: 500, body: 'disk full' },
      { status: 500, body: 'disk full' },
    );
    const record = await runSetup(
      [
        {
          type: 'upload_file',
          parameters: {
            files: [
              { local_path: 'assets/there.txt', path: '/tmp/1' },
              { local_path: 'assets/there.txt', path: '/tmp/2' },
            ],
          },
        },
      ],
      context(),
    );
    expect(guest.requests.map(request => request.form?.file_path)).toEqual([
      '/tmp/1',
      '/tmp/1',
      '/tmp/1',
      '/tmp/2',
    ]);
    expect(record.warnings.map(warning => warning.message)).toEqual([
      'upload of /tmp/1 failed: guest request POST /setup/upload answered HTTP 500: disk full',
    ]);
    expect(record.steps[0]?.detail).toBe('1 of 2 file(s) uploaded');
  });

  it('upload_file: a missing asset is a warning and ends the step (upstream returns there)', async () => {
    const record = await runSetup(
      [
        {
          type: 'upload_file',
          parameters: {
            files: [
              { local_path: 'assets/missing.txt', path: '/tmp/1' },
              { local_path: 'assets/there.txt', path: '/tmp/2' },
            ],
          },
        },
        after,
      ],
      context(),
    );
    expect(record.warnings[0]?.message).toMatch(
      /cannot upload files\[0\]\.local_path "assets\/missing\.txt": asset "assets\/missing\.txt" not found under .*; the step ends here/,
    );
    expect(guest.requests.map(request => request.path)).toEqual(['/setup/execute']);
  });

  it('download: a failed upload of a downloaded file is a warning', async () => {
    failing('POST /setup/upload');
    const record = await runSetup(
      [{ type: 'download', parameters: { files: [{ url: `${files.origin}/a.txt`, path: '/a' }] } }],
      context(),
    );
    expect(record.warnings[0]?.message).toMatch(/^upload of \/a failed: .*HTTP 500/);
    expect(record.downloads).toEqual([
      expect.objectContaining({ url: `${files.origin}/a.txt`, source: 'network', uploaded: false }),
    ]);
  });

  it('chrome_open_tabs: a page that does not load is a warning', async () => {
    const { startHeadlessChromium, chromiumAvailable } =
      await import('./__fixtures__/headless-chromium');
    if (!chromiumAvailable()) return;
    const chromium = await startHeadlessChromium();
    try {
      const port = await freePort();
      const record = await runSetup(
        [
          {
            type: 'chrome_open_tabs',
            parameters: { urls_to_open: [`http://127.0.0.1:${port}/offline-page`] },
          },
        ],
        context({ endpoint: { ...guest.endpoint, chromiumUrl: chromium.cdpUrl } }),
      );
      expect(record.warnings).toHaveLength(1);
      expect(record.warnings[0]?.message).toMatch(
        new RegExp(
          `^loading http://127\\.0\\.0\\.1:${port}/offline-page failed: .*ERR_CONNECTION_REFUSED`,
        ),
      );
    } finally {
      await chromium.close();
    }
  }, 30_000);
});

describe('failures upstream raises on end the setup', () => {
  async function fatal(steps: unknown[], overrides: Partial<SetupContext> = {}) {
    const error = await runSetup(steps, context(overrides)).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (!SetupStepError.isInstance(error))
      throw new Error(`expected a SetupStepError: ${String(error)}`);
    return error;
  }

  it('download: a file that cannot be fetched', async () => {
    const error = await fatal([
      { type: 'download', parameters: { files: [{ url: `${files.origin}/nope`, path: '/n' }] } },
    ]);
    expect(error.message).toMatch(
      /^config step 1 \(download\) failed: download of .*\/nope failed after 3 attempts: HTTP 404/,
    );
  });

  it('execute_with_verification: a non-200 answer', async () => {
    failing('POST /setup/execute_with_verification');
    const error = await fatal([
      { type: 'execute_with_verification', parameters: { command: ['x'] } },
    ]);
    expect(error.stepType).toBe('execute_with_verification');
  });

  it('chrome_open_tabs / chrome_close_tabs: no connection to Chrome', async () => {
    const port = await freePort();
    for (const step of [
      { type: 'chrome_open_tabs', parameters: { urls_to_open: ['http://127.0.0.1:1/'] } },
      { type: 'chrome_close_tabs', parameters: { urls_to_close: ['http://127.0.0.1:1/'] } },
    ]) {
      const error = await fatal([step], {
        endpoint: { ...guest.endpoint, chromiumUrl: `http://127.0.0.1:${port}` },
      });
      expect(error.stepType).toBe(step.type);
    }
  }, 30_000);

  it('upload_file: an asset path that leaves the dataset', async () => {
    const error = await fatal([
      { type: 'upload_file', parameters: { files: [{ local_path: '../x', path: '/x' }] } },
    ]);
    expect(error.message).toMatch(/contains "\.\."/);
  });

  it('invalid parameters, unknown and unsupported step types', async () => {
    expect((await fatal([{ type: 'launch', parameters: {} }])).message).toMatch(
      /invalid parameters/,
    );
    expect((await fatal([{ type: 'teleport', parameters: {} }])).message).toMatch(
      /not a setup step type/,
    );
    expect(
      (await fatal([{ type: 'login', parameters: { platform: 'googledrive' } }])).unsupported,
    ).toBe(true);
  });

  it('an abort during a tolerated step still ends the setup', async () => {
    guest.script('POST /setup/launch', { hang: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 50);
    const error = await fatal([{ type: 'launch', parameters: { command: ['x'] } }], {
      abortSignal: controller.signal,
    });
    expect(error.message).toBe('config step 1 (launch) was aborted');
  });
});
