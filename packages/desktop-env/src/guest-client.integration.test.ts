// The guest client against the REAL guest server of @osharm/desktop-guest (its built `osharm-guest-server`
// bin), on an Xvfb display, over a unix socket with a token. desktop-guest depends on desktop-env, so the
// server runs as a separate process (no package import, no dependency cycle). Skipped with a message
// when the bin is not built or Xvfb / openbox / xterm are missing.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuestRequestError } from './desktop-env-errors';
import { createGuestClient } from './guest-client-undici';
import type { UndiciGuestClient } from './guest-client-undici';
import { runSetup } from './setup-runner';
import {
  missingForRealGuestServer,
  startRealGuestServer,
  type RealGuestServer,
} from './test/real-guest-server';

const missing = missingForRealGuestServer([
  '/usr/bin/openbox',
  '/usr/bin/xterm',
  '/usr/bin/wmctrl',
]);
if (missing.length > 0) {
  console.warn(
    `guest-client.integration.test.ts: skipped, missing ${missing.join(', ')} (build @osharm/desktop-guest; apt-get install xvfb openbox xterm wmctrl)`,
  );
}

describe.skipIf(missing.length > 0)('guest client ↔ the real guest server (desktop-guest)', () => {
  let directory: string;
  let home: string;
  let client: UndiciGuestClient;
  let socketPath: string;
  let server: RealGuestServer | undefined;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'osharm-guest-it-'));
    home = join(directory, 'home');
    await mkdir(join(home, 'Desktop'), { recursive: true });
    socketPath = join(directory, 'guest.sock');
    server = await startRealGuestServer({ home, socketPath, windowManager: true });
    client = server.client;
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it('refuses a request without the token (401)', async () => {
    const anonymous = createGuestClient({
      baseUrl: 'http://localhost:5000',
      host: 'localhost',
      serverPort: 5000,
      socketPath,
    });
    try {
      const error = await anonymous.platform().catch((error: unknown) => error);
      expect(GuestRequestError.isInstance(error) && error.status).toBe(401);
    } finally {
      await anonymous.close();
    }
  });

  it('platform, screen size, cursor, desktop path', async () => {
    expect(await client.platform()).toBe('Linux');
    expect(await client.screenSize()).toEqual({ width: 1280, height: 800 });
    const [x, y] = await client.cursorPosition();
    expect(x).toBeGreaterThanOrEqual(0);
    expect(y).toBeGreaterThanOrEqual(0);
    expect(await client.desktopPath()).toBe(join(home, 'Desktop'));
  });

  it('screenshot is a PNG of the screen', async () => {
    const png = await client.screenshot();
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(1280);
    expect(png.readUInt32BE(20)).toBe(800);
  });

  it('accessibility tree is upstream XML', async () => {
    const xml = await client.accessibilityTree();
    expect(xml).toMatch(/^<desktop-frame /);
    expect(xml).toContain('xmlns:st="https://accessibility.ubuntu.example.org/ns/state"');
  }, 40_000);

  it('terminal output is null without a focused terminal', async () => {
    expect(await client.terminalOutput()).toBeNull();
  });

  it('execute, setup execute, run_python, run_bash_script', async () => {
    expect(await client.execute(['python3', '-c', 'print(6 * 7)'])).toMatchObject({
      status: 'success',
      output: '42\n',
      returncode: 0,
    });
    expect(
      await client.execute('echo "a b" >&2; exit 3', { shell: true, setup: true }),
    ).toMatchObject({
      error: 'a b\n',
      returncode: 3,
    });
    expect(await client.runPython('print("hello")')).toMatchObject({
      output: 'hello\n',
      return_code: 0,
    });
    const bash = await client.runBashScript('pwd; echo done', { workingDir: directory });
    expect(bash.returncode).toBe(0);
    expect(bash.output).toBe(`${directory}\ndone\n`);
  });

  it('upload, list directory, get file (404 → null)', async () => {
    const target = join(directory, 'uploads', 'nested', 'data.bin');
    const data = new Uint8Array([0, 1, 2, 255, 254]);
    await client.uploadFile(target, data);
    expect(new Uint8Array(await readFile(target))).toEqual(data);
    expect(await client.getFile(target)).toEqual(Buffer.from(data));
    expect(await client.getFile(join(directory, 'nope.txt'))).toBeNull();
    const tree = await client.listDirectory(join(directory, 'uploads'));
    expect(tree).toEqual({
      type: 'directory',
      name: 'uploads',
      children: [
        { type: 'directory', name: 'nested', children: [{ type: 'file', name: 'data.bin' }] },
      ],
    });
  });

  it('launch, window size, activate and close a window', async () => {
    await client.launch(['xterm', '-T', 'osharm-it-term', '-class', 'OsharmIt']);
    let size: { width: number; height: number } | null = null;
    for (let attempt = 0; attempt < 50 && !size; attempt++) {
      size = await client.windowSize('OsharmIt').catch(() => null);
      if (!size) await new Promise(resolve => setTimeout(resolve, 200));
    }
    expect(size?.width).toBeGreaterThan(0);
    await client.activateWindow('osharm-it-term');
    await client.closeWindow('osharm-it-term');
  }, 30_000);

  it('execute_with_verification waits for a window', async () => {
    const result = await client.executeWithVerification(
      'xterm -T osharm-verify >/dev/null 2>&1 &',
      {
        shell: true,
        verification: { window_exists: 'osharm-verify' },
        maxWaitTime: 10,
        checkInterval: 0.2,
      },
    );
    expect(result.verification).toBe('passed');
    await client.closeWindow('osharm-verify');
  }, 30_000);

  it('open_file launches an app and waits for its window', async () => {
    await client.openFile('xterm');
    await client.closeWindow('xterm');
  }, 30_000);

  it('change wallpaper (404 for a missing file) and read it back', async () => {
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      'base64',
    );
    const path = join(home, 'wallpaper.png');
    await writeFile(path, png);
    await client.changeWallpaper(path);
    const missingFile = await client
      .changeWallpaper(join(home, 'nope.png'))
      .catch((error: unknown) => error);
    expect(GuestRequestError.isInstance(missingFile) && missingFile.status).toBe(404);
    // gsettings may be absent or without a backend here: then the guest has no wallpaper to give
    const wallpaper = await client.wallpaper();
    if (wallpaper !== null) expect(wallpaper).toEqual(png);
  }, 40_000);

  it('a setup list runs against the real server', async () => {
    await writeFile(join(directory, 'asset.txt'), 'asset');
    const record = await runSetup(
      [
        {
          type: 'upload_file',
          parameters: { files: [{ local_path: 'asset.txt', path: join(home, 'asset.txt') }] },
        },
        {
          type: 'execute',
          parameters: { command: ['cat', join(home, 'asset.txt')], stdout: 'out.txt' },
        },
        {
          type: 'execute',
          parameters: { command: 'test -f ~/asset.txt', shell: true, until: { returncode: 0 } },
        },
      ],
      { client, taskId: 'it', baseDir: directory, cacheDir: join(directory, 'cache') },
    );
    expect(record.steps).toHaveLength(3);
    expect(await readFile(join(directory, 'cache', 'out.txt'), 'utf8')).toBe('asset');
  });

  it('start and end a recording', async () => {
    await client.startRecording();
    await new Promise(resolve => setTimeout(resolve, 1_500));
    const video = await client.endRecording();
    expect(video.subarray(4, 8).toString()).toBe('ftyp');
  }, 40_000);
});
