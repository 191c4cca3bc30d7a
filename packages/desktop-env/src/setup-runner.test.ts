import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeGuestServer } from './__fixtures__/fake-guest-server';
import type { FakeGuestServer } from './__fixtures__/fake-guest-server';
import { startFileServer } from './__fixtures__/file-server';
import type { FileServer } from './__fixtures__/file-server';
import { chromiumAvailable, startHeadlessChromium } from './__fixtures__/headless-chromium';
import type { HeadlessChromium } from './__fixtures__/headless-chromium';
import { uuid5 } from './download-cache';
import { createGuestClient } from './guest-client-undici';
import type { UndiciGuestClient } from './guest-client-undici';
import { substituteSetupPlaceholders } from './setup-placeholders';
import { runSetup } from './setup-runner';
import type { SetupContext, SetupStepEvent } from './setup-context';
import { SetupStepError } from './setup-step-error';

let guest: FakeGuestServer;
let client: UndiciGuestClient;
let workDir: string;
let baseDir: string;
let cacheDir: string;

beforeEach(async () => {
  guest = await startFakeGuestServer();
  client = createGuestClient(guest.endpoint, { maxRetryDelayMs: 10 });
  workDir = await mkdtemp(join(tmpdir(), 'osharm-setup-'));
  baseDir = join(workDir, 'dataset', 'evaluation_examples');
  cacheDir = join(workDir, 'cache', 'task-1');
  await mkdir(join(baseDir, 'assets'), { recursive: true });
  await writeFile(join(baseDir, 'assets', 'letter.docx'), 'letter bytes');
  // upstream layout: `assets/` beside `evaluation_examples/`
  await mkdir(join(workDir, 'dataset', 'assets'), { recursive: true });
  await writeFile(join(workDir, 'dataset', 'assets', 'upstream.txt'), 'upstream asset');
  await writeFile(join(workDir, 'secret.txt'), 'do not upload');
});

afterEach(async () => {
  await client.close();
  await guest.close();
  await rm(workDir, { recursive: true, force: true });
});

function context(overrides: Partial<SetupContext> = {}): SetupContext {
  return {
    client,
    taskId: 'task-1',
    baseDir,
    cacheDir,
    settings: { until: { intervalMs: 10 } },
    ...overrides,
  };
}

async function setupError(promise: Promise<unknown>): Promise<SetupStepError> {
  const error = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!SetupStepError.isInstance(error))
    throw new Error(`expected a SetupStepError, got ${String(error)}`);
  return error;
}

const routes = () => guest.requests.map(request => `${request.method} ${request.path}`);

describe('guest steps', () => {
  it('launch, open, activate_window, close_window, change_wallpaper, sleep', async () => {
    // the open is followed by an activation: it waits for the window (one wmctrl -lx poll)
    guest.script('POST /execute', {
      body: {
        status: 'success',
        output: '0x01 0 soffice.Soffice host a.docx\n',
        error: '',
        returncode: 0,
      },
    });
    const record = await runSetup(
      [
        { type: 'launch', parameters: { command: ['gedit', '/home/user/a.txt'] } },
        { type: 'launch', parameters: { command: 'nohup x &', shell: true } },
        { type: 'open', parameters: { path: '/home/user/a.docx' } },
        { type: 'activate_window', parameters: { window_name: 'a.docx', strict: true } },
        { type: 'close_window', parameters: { window_name: 'gedit', by_class: true } },
        { type: 'change_wallpaper', parameters: { path: '/home/user/w.png' } },
        { type: 'sleep', parameters: { seconds: 0.05 } },
      ],
      context(),
    );
    expect(routes()).toEqual([
      'POST /setup/launch',
      'POST /setup/launch',
      'POST /setup/open_file',
      'POST /execute',
      'POST /setup/activate_window',
      'POST /setup/close_window',
      'POST /setup/change_wallpaper',
    ]);
    expect(guest.requests.map(request => request.json)).toEqual([
      { command: ['gedit', '/home/user/a.txt'], shell: false },
      { command: 'nohup x &', shell: true },
      { path: '/home/user/a.docx' },
      { command: ['wmctrl', '-lx'], shell: false },
      { window_name: 'a.docx', strict: true, by_class: false },
      { window_name: 'gedit', strict: false, by_class: true },
      { path: '/home/user/w.png' },
    ]);
    expect(record.phase).toBe('config');
    expect(record.steps.map(step => step.type)).toEqual([
      'launch',
      'launch',
      'open',
      'activate_window',
      'close_window',
      'change_wallpaper',
      'sleep',
    ]);
    expect(record.steps[6]?.durationMs).toBeGreaterThanOrEqual(45);
    expect(record.durationMs).toBeGreaterThanOrEqual(record.steps[6]?.durationMs ?? 0);
  });

  it('execute and command: /setup/execute with placeholders; stdout / stderr to cache files', async () => {
    guest.handle('POST /setup/execute', () => ({
      body: { status: 'success', output: 'the output', error: 'the errors', returncode: 3 },
    }));
    const record = await runSetup(
      [
        {
          type: 'execute',
          parameters: {
            command: [
              'bash',
              '-c',
              'echo {CLIENT_PASSWORD} | sudo -S xdotool mousemove {SCREEN_WIDTH_HALF} {SCREEN_HEIGHT_HALF} {SCREEN_WIDTH}x{SCREEN_HEIGHT}',
            ],
            stdout: 'out.txt',
            stderr: 'err.txt',
          },
        },
        { type: 'command', parameters: { command: 'echo {SCREEN_WIDTH}', shell: true } },
      ],
      context({ clientPassword: 'pw', screen: { width: 1280, height: 721 } }),
    );
    expect(guest.requests.map(request => request.json)).toEqual([
      {
        command: ['bash', '-c', 'echo pw | sudo -S xdotool mousemove 640 360 1280x721'],
        shell: false,
      },
      { command: 'echo 1280', shell: true },
    ]);
    expect(routes()).toEqual(['POST /setup/execute', 'POST /setup/execute']);
    expect(await readFile(join(cacheDir, 'out.txt'), 'utf8')).toBe('the output');
    expect(await readFile(join(cacheDir, 'err.txt'), 'utf8')).toBe('the errors');
    // a non-zero exit code is not a failure (upstream does not check it)
    expect(record.steps[0]?.detail).toBe('exit code 3');
  });

  it('placeholders default to password and the endpoint screen, else 1920×1080', async () => {
    await runSetup(
      [
        {
          type: 'execute',
          parameters: { command: '{CLIENT_PASSWORD} {SCREEN_WIDTH}', shell: true },
        },
      ],
      context(),
    );
    expect(guest.requests[0]?.json).toEqual({ command: 'password 1920', shell: true });
    expect(
      substituteSetupPlaceholders(['{SCREEN_HEIGHT_HALF}', '{SCREEN_HEIGHT}'], {
        clientPassword: '',
        screenWidth: 800,
        screenHeight: 601,
      }),
    ).toEqual(['300', '601']);
  });

  it('refuses stdout / stderr names that leave the cache directory', async () => {
    const error = await setupError(
      runSetup(
        [{ type: 'execute', parameters: { command: 'true', stdout: '../../escape.txt' } }],
        context(),
      ),
    );
    expect(error.message).toContain(
      'config step 1 (execute) cannot write stdout to "../../escape.txt"',
    );
    expect(guest.requests).toHaveLength(0);
  });

  it('until: polls every interval until the return code matches', async () => {
    let calls = 0;
    guest.handle('POST /setup/execute', () => {
      calls++;
      return {
        body: {
          status: 'success',
          output: `poll ${calls}`,
          error: '',
          returncode: calls < 3 ? 1 : 0,
        },
      };
    });
    const record = await runSetup(
      [
        {
          type: 'execute',
          parameters: { command: ['pgrep', 'soffice'], until: { returncode: 0 } },
        },
      ],
      context(),
    );
    expect(calls).toBe(3);
    expect(record.steps[0]?.detail).toBe('condition held after 3 poll(s)');
  });

  it('until: stdout / stderr substrings', async () => {
    let calls = 0;
    guest.handle('POST /setup/execute', () => {
      calls++;
      return {
        body: {
          status: 'success',
          output: calls === 2 ? 'server ready' : 'starting',
          error: calls === 4 ? 'warn: late' : '',
          returncode: 0,
        },
      };
    });
    await runSetup(
      [{ type: 'execute', parameters: { command: 'x', until: { stdout: 'ready' } } }],
      context(),
    );
    expect(calls).toBe(2);
    await runSetup(
      [{ type: 'execute', parameters: { command: 'x', until: { stderr: 'late' } } }],
      context(),
    );
    expect(calls).toBe(4);
  });

  it('until: gives up after the polling timeout with the last result', async () => {
    guest.handle('POST /setup/execute', () => ({
      body: { status: 'success', output: 'never', error: '', returncode: 1 },
    }));
    const started = performance.now();
    const error = await setupError(
      runSetup(
        [{ type: 'execute', parameters: { command: 'x', until: { returncode: 0 } } }],
        context({ settings: { until: { intervalMs: 10, timeoutMs: 200 } } }),
      ),
    );
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error.message).toMatch(
      /config step 1 \(execute\) failed: the until condition \{"returncode":0\} did not hold within 200 ms \(\d+ poll\(s\); last exit code 1, stdout "never"\)/,
    );
  });

  it('execute_with_verification', async () => {
    await runSetup(
      [
        {
          type: 'execute_with_verification',
          parameters: {
            command: ['gedit'],
            verification: { window_exists: 'gedit' },
            max_wait_time: 3,
            check_interval: 0.5,
          },
        },
      ],
      context(),
    );
    expect(guest.requests[0]).toMatchObject({
      path: '/setup/execute_with_verification',
      json: {
        command: ['gedit'],
        shell: false,
        verification: { window_exists: 'gedit' },
        max_wait_time: 3,
        check_interval: 0.5,
      },
    });
  });
});

describe('refused steps', () => {
  it.each([
    ['googledrive', { operation: ['delete'], args: [{}] }, /Google Drive account/],
    ['login', { platform: 'googledrive' }, /real Google account/],
    ['update_browse_history', { history: [] }, /History database/],
    ['proxy', {}, /proxy/],
    ['tidy_desktop', {}, /never implemented/],
    ['act', {}, /never implemented/],
    ['replay', {}, /never implemented/],
  ])('%s is not supported, naming the step', async (type, parameters, reason) => {
    const error = await setupError(
      runSetup(
        [
          { type: 'sleep', parameters: { seconds: 0 } },
          { type: 'sleep', parameters: { seconds: 0 } },
          { type, parameters },
        ],
        context(),
      ),
    );
    expect(error.message).toMatch(
      new RegExp(`^config step 3 \\(${type}\\) is not supported by osharm: `),
    );
    expect(error.message).toMatch(reason);
    expect(error).toMatchObject({ stepIndex: 2, stepType: type, unsupported: true });
  });

  it('an unknown type and invalid parameters', async () => {
    const unknown = await setupError(runSetup([{ type: 'teleport', parameters: {} }], context()));
    expect(unknown.message).toMatch(
      /^config step 1 \(teleport\) is not a setup step type osharm knows \(known: download, /,
    );
    const invalid = await setupError(
      runSetup(
        [{ type: 'download', parameters: { files: [{ url: 'not a url', path: '/x' }] } }],
        context(),
      ),
    );
    expect(invalid.message).toMatch(
      /^config step 1 \(download\) has invalid parameters: \$\.parameters\.files\[0\]\.url: /,
    );
    const typeless = await setupError(runSetup([{ parameters: {} }], context()));
    expect(typeless.message).toMatch(/^config step 1 \(<no type>\) is not a setup step type/);
  });

  it('chrome steps need a DevTools endpoint', async () => {
    const error = await setupError(
      runSetup(
        [{ type: 'chrome_open_tabs', parameters: { urls_to_open: ['https://a.example'] } }],
        context(),
      ),
    );
    expect(error.message).toContain(
      '(chrome_open_tabs) cannot run: the environment exposes no Chrome DevTools endpoint',
    );
  });
});

describe('upload_file', () => {
  it('uploads dataset assets (dataset dir, then its parent) as multipart', async () => {
    await runSetup(
      [
        {
          type: 'upload_file',
          parameters: {
            files: [
              { local_path: 'assets/letter.docx', path: '/home/user/Desktop/letter.docx' },
              { local_path: 'assets/upstream.txt', path: '/home/user/upstream.txt' },
            ],
          },
        },
      ],
      context(),
    );
    expect(guest.requests.map(request => request.form)).toEqual([
      {
        file_path: '/home/user/Desktop/letter.docx',
        file_data: { fileName: 'letter.docx', data: Buffer.from('letter bytes') },
      },
      {
        file_path: '/home/user/upstream.txt',
        file_data: { fileName: 'upstream.txt', data: Buffer.from('upstream asset') },
      },
    ]);
  });

  it.each([
    [join('/etc', 'passwd'), /local_path "\/etc\/passwd": "\/etc\/passwd" is an absolute path/],
    ['../../secret.txt', /local_path "\.\.\/\.\.\/secret\.txt": .*contains "\.\."/],
    ['assets/../../../secret.txt', /contains "\.\."/],
  ])('refuses %s with a clear error and uploads nothing', async (localPath, message) => {
    const error = await setupError(
      runSetup(
        [
          { type: 'sleep', parameters: { seconds: 0 } },
          {
            type: 'upload_file',
            parameters: {
              files: [
                { local_path: 'assets/letter.docx', path: '/tmp/ok' },
                { local_path: localPath, path: '/tmp/x' },
              ],
            },
          },
        ],
        context(),
      ),
    );
    expect(error.message).toMatch(
      /^config step 2 \(upload_file\) cannot upload files\[1\]\.local_path /,
    );
    expect(error.message).toMatch(message);
    // the first file went up, the refused one did not
    expect(guest.requests.map(request => request.form?.file_path)).toEqual(['/tmp/ok']);
  });
});

describe('download', () => {
  let files: FileServer;

  beforeEach(async () => {
    files = await startFileServer({
      '/files/report.xlsx': 'spreadsheet bytes',
      '/files/b.txt': 'bee',
    });
  });

  afterEach(async () => {
    await files.close();
  });

  const step = () => ({
    type: 'download',
    parameters: {
      files: [
        { url: `${files.origin}/files/report.xlsx`, path: '/home/user/Desktop/Report.xlsx' },
        { url: `${files.origin}/files/b.txt`, path: '/home/user/b.txt' },
      ],
    },
  });

  it('downloads on the host into cache/<task>/<uuid5>_<basename>, then uploads; the second run is a cache hit', async () => {
    const first = await runSetup([step()], context());
    expect(files.requests).toEqual(['/files/report.xlsx', '/files/b.txt']);
    const cached = (await readdir(cacheDir)).filter(name => !name.endsWith('.meta.json')).sort();
    expect(cached).toEqual(
      [
        `${uuid5(`${files.origin}/files/report.xlsx`)}_Report.xlsx`,
        `${uuid5(`${files.origin}/files/b.txt`)}_b.txt`,
      ].sort(),
    );
    expect(guest.requests.map(request => request.form)).toEqual([
      {
        file_path: '/home/user/Desktop/Report.xlsx',
        file_data: { fileName: 'Report.xlsx', data: Buffer.from('spreadsheet bytes') },
      },
      {
        file_path: '/home/user/b.txt',
        file_data: { fileName: 'b.txt', data: Buffer.from('bee') },
      },
    ]);
    expect(first.steps[0]?.detail).toBe('2 file(s), 0 from the cache');

    const second = await runSetup([step()], context());
    expect(files.requests).toHaveLength(2);
    expect(second.steps[0]?.detail).toBe('2 file(s), 2 from the cache');
    expect(guest.requests).toHaveLength(4);
  });

  it('uses cache/<task id> when no cache dir is given', async () => {
    const previous = process.cwd();
    process.chdir(workDir);
    try {
      const { cacheDir: _unused, ...withoutCacheDir } = context();
      await runSetup([step()], { ...withoutCacheDir, taskId: 'task-9' });
      expect((await readdir(join(workDir, 'cache', 'task-9'))).length).toBe(4);
    } finally {
      process.chdir(previous);
    }
  });

  it('a failed download fails the step, naming the URL, with no partial file left', async () => {
    files.modes = ['truncate', 'truncate', 'truncate'];
    const error = await setupError(
      runSetup([step()], context({ settings: { download: { retryDelayMs: () => 1 } } })),
    );
    expect(error.message).toContain(
      `config step 1 (download) failed: download of ${files.origin}/files/report.xlsx failed after 3 attempts`,
    );
    // the error names the cache file (upstream's name) and the ways to provide it
    expect(error.message).toContain(
      `the cache file is ${join(cacheDir, `${uuid5(`${files.origin}/files/report.xlsx`)}_Report.xlsx`)}`,
    );
    expect(error.message).toContain('--asset-map FILE');
    expect(error.message).toContain('osharm assets pull');
    expect(await readdir(cacheDir)).toEqual([]);
    expect(guest.requests).toHaveLength(0);
  });

  it('uses the fetch from the context', async () => {
    const seen: string[] = [];
    const fetchSpy: typeof fetch = (input, init) => {
      seen.push(String(input));
      return fetch(input, init);
    };
    await runSetup([step()], context({ fetch: fetchSpy }));
    expect(seen).toEqual([`${files.origin}/files/report.xlsx`, `${files.origin}/files/b.txt`]);
  });
});

describe('progress, records and abort', () => {
  it('reports step-start / step-end for each step, with the error on failure', async () => {
    const events: SetupStepEvent[] = [];
    await setupError(
      runSetup(
        [
          { type: 'sleep', parameters: { seconds: 0 } },
          { type: 'googledrive', parameters: { operation: [], args: [] } },
        ],
        context({ onStep: event => events.push(event) }),
      ),
    );
    expect(events.map(event => `${event.type} ${event.index} ${event.stepType}`)).toEqual([
      'step-start 0 sleep',
      'step-end 0 sleep',
      'step-start 1 googledrive',
      'step-end 1 googledrive',
    ]);
    const lastEvent = events.at(-1);
    expect(lastEvent?.type === 'step-end' && lastEvent.error?.unsupported).toBe(true);
  });

  it('an abort stops a sleep at once', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cancelled')), 50);
    const started = performance.now();
    const error = await setupError(
      runSetup(
        [{ type: 'sleep', parameters: { seconds: 30 } }],
        context({ abortSignal: controller.signal }),
      ),
    );
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(error.message).toBe('config step 1 (sleep) was aborted');
  });

  it('an already aborted signal runs nothing', async () => {
    const error = await setupError(
      runSetup(
        [{ type: 'launch', parameters: { command: ['x'] } }],
        context({ abortSignal: AbortSignal.abort() }),
      ),
    );
    expect(error.message).toBe('config step 1 (launch) was aborted');
    expect(guest.requests).toHaveLength(0);
  });

  it('an empty list runs nothing', async () => {
    expect(await runSetup([], context({ phase: 'postconfig' }))).toMatchObject({
      phase: 'postconfig',
      steps: [],
    });
  });
});

describe.skipIf(!chromiumAvailable())(
  'chrome_open_tabs / chrome_close_tabs over a real headless Chromium',
  () => {
    let chromium: HeadlessChromium;
    let pages: FileServer;

    beforeAll(async () => {
      pages = await startFileServer(
        { '/a': '<title>a</title>', '/b': '<title>b</title>' },
        'text/html',
      );
      chromium = await startHeadlessChromium();
    }, 30_000);

    afterAll(async () => {
      await chromium?.close();
      await pages?.close();
    });

    it('opens and closes tabs through the setup runner', async () => {
      const record = await runSetup(
        [
          {
            type: 'chrome_open_tabs',
            parameters: { urls_to_open: [`${pages.origin}/a`, `${pages.origin}/b`] },
          },
          { type: 'chrome_close_tabs', parameters: { urls_to_close: [`${pages.origin}/a`] } },
        ],
        context({ endpoint: { ...guest.endpoint, chromiumUrl: chromium.cdpUrl } }),
      );
      expect(record.steps.map(step => step.detail)).toEqual(['opened 2 tab(s)', 'closed 1 tab(s)']);
      expect(await chromium.tabUrls()).toEqual([`${pages.origin}/b`]);
    }, 30_000);
  },
);
