import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GuestEndpoint } from '@osharm/desktop-env';
import {
  decodePng,
  form,
  multipart,
  post,
  postJson,
  sh,
  skipReason,
  waitFor,
} from './__fixtures__/local-desktop-fixture';
import { guestRequest } from '@osharm/desktop-guest';
import { createLocalProvider } from './local-provider';

describe.skipIf(skipReason !== undefined)(
  'guest server protocol (reference §1.2) on a local desktop',
  () => {
    const provider = createLocalProvider();
    let endpoint: GuestEndpoint;

    beforeAll(async () => {
      endpoint = await provider.start();
    });
    afterAll(async () => {
      await provider.stop();
    });

    it('rejects requests without the token, or with a wrong one, with 401', async () => {
      const missing = await guestRequest(endpoint, '/screenshot', { authorize: false });
      expect(missing.status).toBe(401);
      expect(missing.headers['content-type']).toBe('application/json');
      expect(missing.headers['www-authenticate']).toBe('Bearer');
      const wrong = await guestRequest(endpoint, '/platform', {
        authorize: false,
        headers: { authorization: 'Bearer not-the-token' },
      });
      expect(wrong.status).toBe(401);
    });

    it('GET /screenshot: a 1920×1080 PNG with the cursor drawn', async () => {
      await sh(
        endpoint,
        'python -c "import pyautogui; pyautogui.FAILSAFE = False; pyautogui.moveTo(400, 300)"',
      );
      const response = await guestRequest(endpoint, '/screenshot');
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('image/png');
      const { width, height, rgb } = decodePng(response.body);
      expect([width, height]).toEqual([1920, 1080]);
      const pixel = (x: number, y: number) =>
        rgb.subarray((y * width + x) * 3, (y * width + x) * 3 + 3).toString('hex');
      // The desktop is one flat colour (#2c2c2c); the arrow cursor's outline and fill are not.
      expect(pixel(1500, 900)).toBe('2c2c2c');
      const near = new Set<string>();
      for (let y = 300; y < 316; y += 1) for (let x = 400; x < 410; x += 1) near.add(pixel(x, y));
      expect([...near].some(colour => colour !== '2c2c2c')).toBe(true);
      // …and it follows the pointer.
      await sh(
        endpoint,
        'python -c "import pyautogui; pyautogui.FAILSAFE = False; pyautogui.moveTo(1200, 700)"',
      );
      const moved = decodePng((await guestRequest(endpoint, '/screenshot')).body);
      const movedPixel = (x: number, y: number) =>
        moved.rgb.subarray((y * width + x) * 3, (y * width + x) * 3 + 3).toString('hex');
      expect(movedPixel(402, 305)).toBe('2c2c2c');
      const cursor = await guestRequest(endpoint, '/cursor_position');
      expect(JSON.parse(cursor.body.toString())).toEqual([1200, 700]);
    });

    it('GET /accessibility answers {"AT": xml} with upstream namespaces', async () => {
      const response = await guestRequest(endpoint, '/accessibility');
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/json');
      const { AT } = JSON.parse(response.body.toString()) as { AT: string };
      expect(AT.startsWith('<desktop-frame')).toBe(true);
      expect(AT).toContain('xmlns:st="https://accessibility.ubuntu.example.org/ns/state"');
      expect(AT).toContain('xmlns:cp="https://accessibility.ubuntu.example.org/ns/component"');
      expect(AT.endsWith('</desktop-frame>')).toBe(true);
    });

    it('GET /terminal answers {output, status}', async () => {
      const response = await guestRequest(endpoint, '/terminal');
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body.toString())).toEqual({ output: null, status: 'success' });
    });

    it('POST /execute and /setup/execute: lists, strings (shlex), shell, ~ expansion, errors', async () => {
      const list = await postJson(endpoint, '/execute', {
        command: ['echo', '~/x', 'two words'],
        shell: false,
      });
      expect(list).toEqual({
        status: 200,
        body: { status: 'success', output: '/home/user/x two words\n', error: '', returncode: 0 },
      });
      const split = await postJson(endpoint, '/setup/execute', {
        command: `python -c "print('a b')"`,
      });
      expect(split.body).toMatchObject({ status: 'success', output: 'a b\n', returncode: 0 });
      const shell = await postJson(endpoint, '/execute', {
        command: 'echo out; echo err >&2; exit 3',
        shell: true,
      });
      expect(shell.body).toEqual({
        status: 'success',
        output: 'out\n',
        error: 'err\n',
        returncode: 3,
      });
      const missing = await postJson(endpoint, '/execute', { command: ['no-such-program'] });
      expect(missing).toEqual({
        status: 500,
        body: {
          status: 'error',
          message: "[Errno 2] No such file or directory: 'no-such-program'",
        },
      });
      const unbalanced = await postJson(endpoint, '/execute', { command: "echo 'oops" });
      expect(unbalanced).toEqual({
        status: 500,
        body: { status: 'error', message: 'No closing quotation' },
      });
    });

    it('POST /setup/execute_with_verification waits for its check', async () => {
      const passed = await postJson(endpoint, '/setup/execute_with_verification', {
        command: 'touch /tmp/verified',
        shell: true,
        verification: { command_success: 'test -f /tmp/verified' },
        max_wait_time: 5,
        check_interval: 0.2,
      });
      expect(passed.status).toBe(200);
      expect(passed.body).toMatchObject({
        status: 'success',
        verification: 'passed',
        returncode: 0,
      });
      const failed = await postJson(endpoint, '/setup/execute_with_verification', {
        command: 'true',
        shell: true,
        verification: { window_exists: 'no such window' },
        max_wait_time: 0.5,
        check_interval: 0.2,
      });
      expect(failed.status).toBe(500);
      expect(failed.body).toMatchObject({ status: 'verification_failed' });
    });

    it('POST /setup/launch starts without waiting', async () => {
      const response = await post(endpoint, '/setup/launch', { command: ['sleep', '30'] });
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.body.toString()).toBe('sleep 30 launched successfully');
      const shell = await post(endpoint, '/setup/launch', {
        command: 'sleep 31 && true',
        shell: true,
      });
      expect(shell.body.toString()).toBe('sleep 31 && true launched successfully');
      await waitFor(
        // (only these two: root's sudo namespace is held by a `sleep infinity` of its own)
        async () => (await sh(endpoint, "pgrep -xf 'sleep 3[01]' | wc -l")).output.trim() === '2',
        5_000,
        'both sleeps',
      );
      const missing = await postJson(endpoint, '/setup/launch', { command: ['no-such-app'] });
      expect(missing.status).toBe(500);
    });

    it('POST /run_python and /run_bash_script answer upstream shapes', async () => {
      const python = await postJson(endpoint, '/run_python', {
        code: 'import sys, pyautogui\nprint(pyautogui.size())\nprint("warn", file=sys.stderr)',
      });
      expect(python).toEqual({
        status: 200,
        body: {
          status: 'success',
          message: 'Size(width=1920, height=1080)\n\nwarn\n',
          need_more: false,
          output: 'Size(width=1920, height=1080)\n',
          error: 'warn\n',
          return_code: 0,
        },
      });
      expect((await postJson(endpoint, '/run_python', {})).status).toBe(400);
      const bash = await postJson(endpoint, '/run_bash_script', {
        script: 'echo $0 >/dev/null; pwd; echo e >&2; exit 2',
        working_dir: '~/Desktop',
      });
      expect(bash).toEqual({
        status: 200,
        body: { status: 'error', output: '/home/user/Desktop\ne\n', error: '', returncode: 2 },
      });
      const badDir = await postJson(endpoint, '/run_bash_script', {
        script: 'true',
        working_dir: '/nope',
      });
      expect(badDir.status).toBe(400);
      expect(badDir.body).toMatchObject({ status: 'error', returncode: -1 });
    });

    it('POST /setup/upload, /file and /list_directory', async () => {
      const data = Buffer.from('hello upload\n');
      const upload = await guestRequest(endpoint, '/setup/upload', {
        method: 'POST',
        body: multipart(
          { file_path: '~/new/dir/up.txt' },
          { field: 'file_data', name: 'up.txt', data },
        ),
      });
      expect(upload.status).toBe(200);
      expect(upload.body.toString()).toBe(`File Uploaded: ${data.length} bytes`);
      const incomplete = await guestRequest(endpoint, '/setup/upload', {
        method: 'POST',
        body: form({ file_path: '~/x' }),
      });
      expect(incomplete.status).toBe(400);

      const file = await guestRequest(endpoint, '/file', {
        method: 'POST',
        body: form({ file_path: '$HOME/new/dir/up.txt' }),
      });
      expect(file.status).toBe(200);
      expect(file.body.equals(data)).toBe(true);
      expect(file.headers['content-disposition']).toContain('attachment; filename="up.txt"');
      const missing = await guestRequest(endpoint, '/file', {
        method: 'POST',
        body: form({ file_path: '~/nope.txt' }),
      });
      expect(missing.status).toBe(404);
      expect(JSON.parse(missing.body.toString())).toEqual({ error: 'File not found' });
      const noField = await guestRequest(endpoint, '/file', { method: 'POST', body: form({}) });
      expect(noField.status).toBe(400);

      const tree = await postJson(endpoint, '/list_directory', { path: '/home/user/new' });
      expect(tree).toEqual({
        status: 200,
        body: {
          directory_tree: {
            type: 'directory',
            name: 'new',
            children: [
              { type: 'directory', name: 'dir', children: [{ type: 'file', name: 'up.txt' }] },
            ],
          },
        },
      });
      const notDirectory = await postJson(endpoint, '/list_directory', {
        path: '/home/user/new/dir/up.txt',
      });
      expect(notDirectory).toEqual({
        status: 400,
        body: { error: 'The specified path is not a directory' },
      });
    });

    it('screen, cursor, window size, desktop path and platform', async () => {
      expect(await postJson(endpoint, '/screen_size')).toEqual({
        status: 200,
        body: { width: 1920, height: 1080 },
      });
      const cursor = await guestRequest(endpoint, '/cursor_position');
      expect(JSON.parse(cursor.body.toString())).toHaveLength(2);
      expect(await postJson(endpoint, '/desktop_path')).toEqual({
        status: 200,
        body: { desktop_path: '/home/user/Desktop' },
      });
      const platform = await guestRequest(endpoint, '/platform');
      expect([platform.status, platform.body.toString()]).toEqual([200, 'Linux']);
      const windowSize = await guestRequest(endpoint, '/window_size', {
        method: 'POST',
        body: form({ app_class_name: 'no-such-class' }),
      });
      expect(windowSize.status).toBe(404);
    });

    it('activate_window / close_window answer 404 when no window matches (documented deviation)', async () => {
      const activate = await postJson(endpoint, '/setup/activate_window', {
        window_name: 'No Such Window',
      });
      expect(activate.status).toBe(404);
      const close = await postJson(endpoint, '/setup/close_window', {
        window_name: 'No Such Window',
        strict: true,
      });
      expect(close.status).toBe(404);
      expect((await post(endpoint, '/setup/activate_window', {})).status).toBe(400);
    });

    it('change_wallpaper paints the desktop; /wallpaper returns the file', async () => {
      const missing = await post(endpoint, '/setup/change_wallpaper', { path: '~/nope.png' });
      expect(missing.status).toBe(404);
      // A red 1×1 PNG (scaled to the screen by ffmpeg).
      const red = Buffer.from(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC',
        'base64',
      );
      await guestRequest(endpoint, '/setup/upload', {
        method: 'POST',
        body: multipart(
          { file_path: '~/Pictures/red.png' },
          { field: 'file_data', name: 'red.png', data: red },
        ),
      });
      const changed = await post(endpoint, '/setup/change_wallpaper', {
        path: '~/Pictures/red.png',
      });
      expect([changed.status, changed.body.toString()]).toEqual([
        200,
        'Wallpaper changed successfully',
      ]);
      // GNOME Shell loads the new background on its own time (openbox: painted before the answer).
      const red900 = async () => {
        const after = decodePng((await guestRequest(endpoint, '/screenshot')).body);
        const offset = (900 * after.width + 1500) * 3;
        return after.rgb.subarray(offset, offset + 3).toString('hex') === 'ff0000';
      };
      await waitFor(red900, 10_000, 'the red wallpaper on the screen');
      const wallpaper = await post(endpoint, '/wallpaper');
      expect(wallpaper.status).toBe(200);
      expect(createHash('sha256').update(wallpaper.body).digest('hex')).toBe(
        createHash('sha256').update(red).digest('hex'),
      );
    });

    it('start_recording / end_recording return an mp4', async () => {
      expect((await post(endpoint, '/end_recording')).status).toBe(400);
      const started = await postJson(endpoint, '/start_recording');
      expect(started).toEqual({
        status: 200,
        body: { status: 'success', message: 'Started recording successfully.' },
      });
      expect((await post(endpoint, '/start_recording')).status).toBe(400);
      await new Promise(resolve => setTimeout(resolve, 1_000));
      const ended = await post(endpoint, '/end_recording', undefined, 30_000);
      expect(ended.status).toBe(200);
      expect(ended.body.toString('ascii', 4, 8)).toBe('ftyp');
      // The default encoding: 10 fps, yuv420p (what every player opens).
      const file = join(mkdtempSync(join(tmpdir(), 'osharm-rec-')), 'recording.mp4');
      writeFileSync(file, ended.body);
      const probe = JSON.parse(
        execFileSync('ffprobe', ['-v', 'error', '-show_streams', '-of', 'json', file], {
          encoding: 'utf8',
        }),
      ) as { streams: { pix_fmt?: string; r_frame_rate?: string; codec_name?: string }[] };
      expect(probe.streams[0]).toMatchObject({
        codec_name: 'h264',
        pix_fmt: 'yuv420p',
        r_frame_rate: '10/1',
      });
      rmSync(dirname(file), { recursive: true, force: true });
    });

    it('unknown paths get 404 and wrong methods 405, both as JSON', async () => {
      const unknown = await guestRequest(endpoint, '/nope');
      expect(unknown.status).toBe(404);
      expect(unknown.headers['content-type']).toBe('application/json');
      expect((await guestRequest(endpoint, '/execute')).status).toBe(405);
    });
  },
);
