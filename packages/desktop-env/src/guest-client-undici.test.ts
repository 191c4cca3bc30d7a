import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeGuestServer, TINY_PNG } from './__fixtures__/fake-guest-server';
import type { FakeGuestServer } from './__fixtures__/fake-guest-server';
import { GuestRequestError } from './desktop-env-errors';
import { createGuestClient } from './guest-client-undici';
import type { UndiciGuestClient } from './guest-client-undici';
import { backoffDelayMs } from './backoff';
import { DEFAULT_GUEST_TIMEOUTS_MS } from './guest-transport';
import type { GuestClientEvent, GuestClientSettings } from './guest-transport';

let server: FakeGuestServer;
let client: UndiciGuestClient;

beforeEach(async () => {
  server = await startFakeGuestServer();
  client = createGuestClient(server.endpoint, { maxRetryDelayMs: 20 });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

/** Replaces the test's client (closing the previous one). */
function useClient(endpoint: FakeGuestServer['endpoint'], settings: GuestClientSettings = {}) {
  void client.close();
  client = createGuestClient(endpoint, settings);
}

function last() {
  const request = server.requests.at(-1);
  if (!request) throw new Error('no request recorded');
  return request;
}

async function caught(promise: Promise<unknown>): Promise<GuestRequestError> {
  const error = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!GuestRequestError.isInstance(error))
    throw new Error(`expected a GuestRequestError, got ${String(error)}`);
  return error;
}

describe('requests and answers of every endpoint', () => {
  it('GET /screenshot returns the PNG bytes', async () => {
    expect(await client.screenshot()).toEqual(TINY_PNG);
    expect(last()).toMatchObject({ method: 'GET', path: '/screenshot' });
    expect(last().headers.authorization).toBeUndefined();
  });

  it('GET /accessibility returns the AT field', async () => {
    expect(await client.accessibilityTree()).toBe('<desktop-frame name="main"/>');
    expect(last()).toMatchObject({ method: 'GET', path: '/accessibility' });
  });

  it("accessibility() says whether the guest cut the walk (osharm's X-Osharm-Truncated)", async () => {
    expect(await client.accessibility()).toEqual({
      tree: '<desktop-frame name="main"/>',
      truncated: null,
    });
    server.script('GET /accessibility', {
      headers: { 'content-type': 'application/json', 'x-osharm-truncated': 'deadline' },
      body: { AT: '<desktop-frame/>' },
    });
    expect(await client.accessibility()).toEqual({
      tree: '<desktop-frame/>',
      truncated: 'deadline',
    });
  });

  it('GET /terminal returns the output field, or null', async () => {
    expect(await client.terminalOutput()).toBe('user@host:~$');
    server.script('GET /terminal', { body: { output: null, status: 'success' } });
    expect(await client.terminalOutput()).toBeNull();
    expect(last()).toMatchObject({ method: 'GET', path: '/terminal' });
  });

  it('POST /execute and /setup/execute send the command and shell flag as JSON', async () => {
    const result = await client.execute(['python', '-c', 'print(1)']);
    expect(result).toEqual({
      status: 'success',
      output: 'ran: python -c print(1)\n',
      error: '',
      returncode: 0,
    });
    expect(last()).toMatchObject({
      method: 'POST',
      path: '/execute',
      json: { command: ['python', '-c', 'print(1)'], shell: false },
    });
    expect(last().headers['content-type']).toBe('application/json');
    await client.execute('echo hi', { shell: true, setup: true });
    expect(last()).toMatchObject({
      path: '/setup/execute',
      json: { command: 'echo hi', shell: true },
    });
  });

  it('POST /setup/execute_with_verification sends the verification settings', async () => {
    const result = await client.executeWithVerification(['gedit'], {
      verification: { window_exists: 'gedit' },
      maxWaitTime: 5,
      checkInterval: 0.5,
    });
    expect(result).toMatchObject({ status: 'success', verification: 'passed', wait_time: 0.5 });
    expect(last()).toMatchObject({
      path: '/setup/execute_with_verification',
      json: {
        command: ['gedit'],
        shell: false,
        verification: { window_exists: 'gedit' },
        max_wait_time: 5,
        check_interval: 0.5,
      },
    });
  });

  it('POST /setup/launch sends the command; the text answer is accepted', async () => {
    await client.launch(['gedit', '/tmp/a.txt']);
    expect(last()).toMatchObject({
      method: 'POST',
      path: '/setup/launch',
      json: { command: ['gedit', '/tmp/a.txt'], shell: false },
    });
    await client.launch('sleep 1 &', { shell: true });
    expect(last().json).toEqual({ command: 'sleep 1 &', shell: true });
  });

  it('POST /run_python and /run_bash_script', async () => {
    expect(await client.runPython('print("hi")')).toEqual({
      status: 'success',
      message: 'hi\n',
      output: 'hi\n',
      error: '',
      return_code: 0,
    });
    expect(last()).toMatchObject({ path: '/run_python', json: { code: 'print("hi")' } });
    expect(
      await client.runBashScript('echo bash out', { scriptTimeoutSeconds: 5, workingDir: '/tmp' }),
    ).toEqual({ status: 'success', output: 'bash out\n', error: '', returncode: 0 });
    expect(last()).toMatchObject({
      path: '/run_bash_script',
      json: { script: 'echo bash out', timeout: 5, working_dir: '/tmp' },
    });
  });

  it('POST /file sends the form field file_path; 404 gives null', async () => {
    expect((await client.getFile('/home/user/a.txt'))?.toString()).toBe('file bytes');
    expect(last()).toMatchObject({
      method: 'POST',
      path: '/file',
      form: { file_path: '/home/user/a.txt' },
    });
    expect(last().headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(await client.getFile('/home/user/missing.txt')).toBeNull();
    // a 404 is an answer, not a failure: not retried
    expect(server.requests.filter(request => request.path === '/file')).toHaveLength(2);
  });

  it('POST /setup/upload sends multipart file_path and file_data', async () => {
    await client.uploadFile('/home/user/Desktop/report.docx', new Uint8Array([1, 2, 3, 4]));
    const request = last();
    expect(request.path).toBe('/setup/upload');
    expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(request.form?.file_path).toBe('/home/user/Desktop/report.docx');
    expect(request.form?.file_data).toEqual({
      fileName: 'report.docx',
      data: Buffer.from([1, 2, 3, 4]),
    });
  });

  it('POST /list_directory returns the directory_tree', async () => {
    expect(await client.listDirectory('/home/user')).toEqual({
      type: 'directory',
      name: '/home/user',
      children: [
        { type: 'file', name: 'a.txt' },
        { type: 'directory', name: 'sub', children: [] },
      ],
    });
    expect(last()).toMatchObject({ path: '/list_directory', json: { path: '/home/user' } });
  });

  it('POST /setup/open_file, activate_window, close_window, change_wallpaper', async () => {
    await client.openFile('/home/user/a.docx');
    expect(last()).toMatchObject({ path: '/setup/open_file', json: { path: '/home/user/a.docx' } });
    await client.activateWindow('Writer', { strict: true });
    expect(last()).toMatchObject({
      path: '/setup/activate_window',
      json: { window_name: 'Writer', strict: true, by_class: false },
    });
    await client.closeWindow('gedit', { byClass: true });
    expect(last()).toMatchObject({
      path: '/setup/close_window',
      json: { window_name: 'gedit', strict: false, by_class: true },
    });
    await client.changeWallpaper('/home/user/w.png');
    expect(last()).toMatchObject({
      path: '/setup/change_wallpaper',
      json: { path: '/home/user/w.png' },
    });
  });

  it('screen, cursor, window size, desktop path, wallpaper, platform', async () => {
    expect(await client.screenSize()).toEqual({ width: 1920, height: 1080 });
    expect(last()).toMatchObject({ method: 'POST', path: '/screen_size' });
    expect(await client.cursorPosition()).toEqual([512, 384]);
    expect(last()).toMatchObject({ method: 'GET', path: '/cursor_position' });
    expect(await client.windowSize('gedit')).toEqual({ width: 800, height: 600 });
    expect(last()).toMatchObject({ path: '/window_size', form: { app_class_name: 'gedit' } });
    expect(await client.windowSize('nothing')).toBeNull();
    expect(await client.desktopPath()).toBe('/home/user/Desktop');
    expect(last()).toMatchObject({ method: 'POST', path: '/desktop_path' });
    expect(await client.wallpaper()).toEqual(TINY_PNG);
    expect(last()).toMatchObject({ method: 'POST', path: '/wallpaper' });
    expect(await client.platform()).toBe('Linux');
    expect(last()).toMatchObject({ method: 'GET', path: '/platform' });
  });

  it('POST /start_recording and /end_recording', async () => {
    await client.startRecording();
    expect(last()).toMatchObject({ method: 'POST', path: '/start_recording' });
    const video = await client.endRecording();
    expect(video.subarray(4, 8).toString()).toBe('ftyp');
    expect(last()).toMatchObject({ method: 'POST', path: '/end_recording' });
  });
});

describe('answers that break the protocol', () => {
  it('a screenshot that is not PNG or JPEG is refused (and retried)', async () => {
    server.script('GET /screenshot', { body: 'oops' }, { body: 'oops' }, { body: 'oops' });
    const error = await caught(client.screenshot());
    expect(error.message).toContain('not a PNG or JPEG image');
    expect(error.status).toBe(200);
    expect(server.requests).toHaveLength(3);
  });

  it('accepts a JPEG screenshot', async () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]);
    server.script('GET /screenshot', { body: jpeg });
    expect(await client.screenshot()).toEqual(jpeg);
  });

  it('an /accessibility answer without AT is an invalid answer', async () => {
    useClient(server.endpoint, { maxRetries: 0 });
    server.script('GET /accessibility', { body: { tree: 'x' } });
    const error = await caught(client.accessibilityTree());
    expect(error.message).toMatch(/\/accessibility gave an invalid answer: "AT" is missing/);
    expect(error.bodyExcerpt).toBe('{"tree":"x"}');
  });
});

describe('errors, timeouts and retries', () => {
  it('non-2xx → GuestRequestError with endpoint, status and body excerpt', async () => {
    server.script('POST /execute', {
      status: 500,
      body: { status: 'error', message: 'boom' },
    });
    const error = await caught(client.execute(['false']));
    expect(error).toMatchObject({
      endpoint: '/execute',
      status: 500,
      bodyExcerpt: '{"status":"error","message":"boom"}',
      isRetryable: false,
    });
    expect(error.name).toBe('OsharmGuestRequestError');
    expect(error.message).toContain('answered HTTP 500');
  });

  it('never retries execute on 500 (side effects)', async () => {
    server.script('POST /execute', { status: 500, body: 'x' }, { status: 500, body: 'x' });
    await caught(client.execute(['touch', '/tmp/x']));
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    ['launch', () => client.launch(['x'])],
    ['upload', () => client.uploadFile('/tmp/x', new Uint8Array([1]))],
    ['open_file', () => client.openFile('/tmp/x')],
    ['activate_window', () => client.activateWindow('x')],
    ['run_python', () => client.runPython('x')],
    ['start_recording', () => client.startRecording()],
  ])('never retries %s on 503', async (_name, call) => {
    for (const route of [
      'POST /setup/launch',
      'POST /setup/upload',
      'POST /setup/open_file',
      'POST /setup/activate_window',
      'POST /run_python',
      'POST /start_recording',
    ]) {
      server.script(route, { status: 503, body: 'busy' }, { status: 503, body: 'busy' });
    }
    const error = await caught(call());
    expect(error.status).toBe(503);
    expect(server.requests).toHaveLength(1);
  });

  it('retries an idempotent call on 503, then succeeds', async () => {
    const events: GuestClientEvent[] = [];
    useClient(server.endpoint, {
      maxRetryDelayMs: 20,
      logger: event => events.push(event),
    });
    server.script('GET /screenshot', { status: 503, body: 'busy' }, { status: 503, body: 'busy' });
    expect(await client.screenshot()).toEqual(TINY_PNG);
    expect(server.requests).toHaveLength(3);
    expect(events.map(event => event.type)).toEqual(['request-retry', 'request-retry']);
    expect(events[0]).toMatchObject({ endpoint: '/screenshot', retry: 1 });
  });

  it('gives up after maxRetries (default 2) and reports the last status', async () => {
    for (let index = 0; index < 5; index++) server.script('POST /screen_size', { status: 502 });
    const error = await caught(client.screenSize());
    expect(error).toMatchObject({ status: 502, isRetryable: true, endpoint: '/screen_size' });
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry 4xx other than 408 / 409 / 429', async () => {
    server.script('POST /list_directory', { status: 400, body: 'not a directory' });
    const error = await caught(client.listDirectory('/etc/passwd'));
    expect(error).toMatchObject({
      status: 400,
      isRetryable: false,
      bodyExcerpt: 'not a directory',
    });
    expect(server.requests).toHaveLength(1);
  });

  it('honours retry-after-ms (bounded by maxRetryDelayMs)', async () => {
    useClient(server.endpoint, { maxRetryDelayMs: 5_000 });
    server.script('GET /platform', { status: 429, headers: { 'retry-after-ms': '150' } });
    const started = performance.now();
    expect(await client.platform()).toBe('Linux');
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(2_000);
  });

  it('honours retry-after in seconds', async () => {
    useClient(server.endpoint, { maxRetryDelayMs: 5_000 });
    server.script('GET /cursor_position', { status: 503, headers: { 'retry-after': '0' } });
    expect(await client.cursorPosition()).toEqual([512, 384]);
    expect(server.requests).toHaveLength(2);
  });

  it('a server that never answers → GuestRequestError without status, promptly', async () => {
    useClient(server.endpoint, { maxRetries: 0 });
    server.script('GET /accessibility', { hang: true });
    const started = performance.now();
    const error = await caught(client.accessibilityTree({ timeoutMs: 200 }));
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(error.status).toBeUndefined();
    expect(error.endpoint).toBe('/accessibility');
    expect(error.message).toContain('got no answer within 200 ms');
    expect(error.isRetryable).toBe(true);
  });

  it('a timed-out execute is not retried and not marked retryable', async () => {
    server.script('POST /execute', { hang: true });
    const error = await caught(client.execute(['sleep', '999'], { timeoutMs: 150 }));
    expect(error).toMatchObject({ status: undefined, isRetryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it('per-client timeouts apply', async () => {
    useClient(server.endpoint, { maxRetries: 0, timeouts: { platform: 150 } });
    server.script('GET /platform', { hang: true });
    const started = performance.now();
    await caught(client.platform());
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it('an AbortSignal stops the call at once and is not retried', async () => {
    server.script('GET /screenshot', { hang: true }, { hang: true }, { hang: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user stop')), 100);
    const started = performance.now();
    const error = await caught(client.screenshot({ abortSignal: controller.signal }));
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(error.message).toContain('aborted');
    expect(error.isRetryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('a refused connection → GuestRequestError with the cause, retryable', async () => {
    const port = server.endpoint.serverPort;
    await server.close();
    useClient(
      { baseUrl: `http://127.0.0.1:${port}`, host: '127.0.0.1', serverPort: port },
      { maxRetries: 1, maxRetryDelayMs: 10 },
    );
    const error = await caught(client.platform());
    expect(error.status).toBeUndefined();
    expect(error.isRetryable).toBe(true);
    expect(error.cause).toBeDefined();
    expect(error.message).toContain(`127.0.0.1:${port}`);
    server = await startFakeGuestServer();
  });

  it('has the documented default timeouts', () => {
    expect(DEFAULT_GUEST_TIMEOUTS_MS).toMatchObject({
      screenshot: 10_000,
      accessibilityTree: 30_000,
      execute: 130_000,
      uploadFile: 600_000,
      openFile: 70_000,
      platform: 10_000,
    });
  });

  it('backs off min(0.5·2^n, 8) s with at most 25 % jitter', () => {
    for (let index = 0; index < 50; index++) {
      const first = backoffDelayMs(0);
      expect(first).toBeGreaterThanOrEqual(375);
      expect(first).toBeLessThanOrEqual(500);
      const capped = backoffDelayMs(10);
      expect(capped).toBeGreaterThanOrEqual(6_000);
      expect(capped).toBeLessThanOrEqual(8_000);
    }
  });
});

describe('unix socket with a token', () => {
  let directory: string;
  let socketServer: FakeGuestServer;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'osharm-guest-'));
    socketServer = await startFakeGuestServer({
      socketPath: join(directory, 'guest.sock'),
      token: 's3cret-token',
    });
  });

  afterEach(async () => {
    await socketServer.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('sends Authorization: Bearer <token> over the socket', async () => {
    const socketClient = createGuestClient(socketServer.endpoint);
    try {
      expect(await socketClient.platform()).toBe('Linux');
      await socketClient.uploadFile('/tmp/a', new Uint8Array([9]));
      for (const request of socketServer.requests) {
        expect(request.headers.authorization).toBe('Bearer s3cret-token');
      }
      expect(socketServer.requests.map(request => request.path)).toEqual([
        '/platform',
        '/setup/upload',
      ]);
    } finally {
      await socketClient.close();
    }
  });

  it('without the token the server answers 401, which is not retried', async () => {
    const { token: _token, ...withoutToken } = socketServer.endpoint;
    const events: GuestClientEvent[] = [];
    const socketClient = createGuestClient(withoutToken, { logger: event => events.push(event) });
    try {
      const error = await caught(socketClient.platform());
      expect(error.status).toBe(401);
      expect(error.isRetryable).toBe(false);
      expect(socketServer.requests).toHaveLength(1);
      expect(socketServer.requests[0]?.headers.authorization).toBeUndefined();
    } finally {
      await socketClient.close();
    }
  });

  it('never puts the token in errors or log events', async () => {
    const events: GuestClientEvent[] = [];
    const socketClient = createGuestClient(socketServer.endpoint, {
      maxRetryDelayMs: 5,
      logger: event => events.push(event),
    });
    try {
      socketServer.script('GET /screenshot', { status: 503 }, { status: 503 }, { status: 503 });
      const error = await caught(socketClient.screenshot());
      expect(JSON.stringify({ message: error.message, events })).not.toContain('s3cret-token');
    } finally {
      await socketClient.close();
    }
  });
});
