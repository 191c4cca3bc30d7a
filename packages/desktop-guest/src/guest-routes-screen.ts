import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  expandUser,
  expandVars,
  type GuestContext,
  readForm,
  readJson,
  type Routes,
  sendFile,
  sendJson,
  sendText,
} from './guest-http';
import { runProcess } from './guest-process';

/**
 * `/screenshot`, `/accessibility`, `/terminal`, `/screen_size`, `/cursor_position`,
 * `/window_size`, `/wallpaper`, `/setup/change_wallpaper`, `/desktop_path`, `/platform`,
 * `/start_recording`, `/end_recording`.
 */
export function screenRoutes(context: GuestContext): Routes {
  const { env, home, screenHelper, a11yHelper, recorder, a11yDeadlineMs, log } = context;
  const screenSize = () =>
    screenHelper.request<{ width: number; height: number }>('screen_size', {}, 10_000);
  return {
    '/screenshot': {
      methods: ['GET', 'POST'],
      handle: async (_request, response) => {
        const png = await screenHelper.request<Buffer>('screenshot', { cursor: true }, 15_000);
        response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
        response.end(png);
      },
    },
    '/accessibility': {
      methods: ['GET', 'POST'],
      handle: async (_request, response, url) => {
        const mode = url.searchParams.get('mode') === 'full' ? 'full' : 'showing';
        // `?deadline_ms=N` may shorten (never lengthen) the walk's budget.
        const asked = Number(url.searchParams.get('deadline_ms'));
        const deadlineMs =
          Number.isFinite(asked) && asked > 0 ? Math.min(asked, a11yDeadlineMs) : a11yDeadlineMs;
        const started = Date.now();
        const walk = await a11yHelper.request<{ xml: string; truncated: boolean }>(
          'accessibility',
          { mode, deadline_ms: deadlineMs },
          deadlineMs + 5_000,
        );
        const result = { ...walk, ms: Date.now() - started };
        // Upstream's clients read only the body; osharm's reads the header and records the cut.
        const headers: Record<string, string> = { 'x-osharm-walk-ms': String(result.ms) };
        if (result.truncated) {
          log(`accessibility walk cut at its ${deadlineMs} ms deadline`);
          headers['x-osharm-truncated'] = 'deadline';
        }
        sendJson(response, 200, { AT: result.xml }, headers);
      },
    },
    '/terminal': {
      methods: ['GET', 'POST'],
      handle: async (_request, response) => {
        const output = await a11yHelper.request<string | null>(
          'terminal',
          { deadline_ms: 5_000 },
          10_000,
        );
        sendJson(response, 200, { output, status: 'success' });
      },
    },
    '/setup/change_wallpaper': {
      methods: ['POST'],
      handle: async (request, response) => {
        const body = await readJson(request);
        if (typeof body.path !== 'string' || !body.path) {
          sendText(response, 400, 'Path not supplied!');
          return;
        }
        const path = expandVars(expandUser(body.path, env), env);
        if (!existsSync(path)) {
          sendText(response, 404, `File not found: ${path}`);
          return;
        }
        await runProcess(
          ['gsettings', 'set', 'org.gnome.desktop.background', 'picture-uri', `file://${path}`],
          {
            timeoutMs: 10_000,
            env,
          },
        ).catch(() => undefined);
        // Openbox draws no wallpaper: paint the root window ourselves (best effort).
        await screenHelper.request('set_wallpaper', { path }, 30_000).catch(error => {
          log(`wallpaper: ${(error as Error).message}`);
        });
        sendText(response, 200, 'Wallpaper changed successfully');
      },
    },
    '/wallpaper': {
      methods: ['POST', 'GET'],
      handle: async (_request, response) => {
        const result = await runProcess(
          ['gsettings', 'get', 'org.gnome.desktop.background', 'picture-uri'],
          {
            timeoutMs: 10_000,
            env,
          },
        ).catch(() => undefined);
        const uri = result?.stdout.trim().replace(/^'|'$/g, '') ?? '';
        const path = uri.startsWith('file://') ? decodeURIComponent(uri.slice(7)) : uri;
        if (!path || !existsSync(path)) {
          sendJson(response, 404, { error: 'Wallpaper file not found' });
          return;
        }
        await sendFile(response, path);
      },
    },
    '/screen_size': {
      methods: ['POST', 'GET'],
      handle: async (_request, response) => sendJson(response, 200, await screenSize()),
    },
    '/cursor_position': {
      methods: ['GET', 'POST'],
      handle: async (_request, response) =>
        sendJson(
          response,
          200,
          await screenHelper.request<[number, number]>('cursor_position', {}, 10_000),
        ),
    },
    '/window_size': {
      methods: ['POST'],
      handle: async (request, response) => {
        const fields = await readForm(request);
        const name = fields.get('app_class_name');
        if (!name) {
          sendJson(response, 400, { error: 'app_class_name is required' });
          return;
        }
        const size = await screenHelper.request<{ width: number; height: number } | null>(
          'window_size',
          { class: name },
          10_000,
        );
        if (!size) sendJson(response, 404, { error: `No window with class ${name}` });
        else sendJson(response, 200, size);
      },
    },
    '/desktop_path': {
      methods: ['POST', 'GET'],
      handle: async (_request, response) => {
        const path = join(home, 'Desktop');
        if (existsSync(path)) sendJson(response, 200, { desktop_path: path });
        else sendJson(response, 404, { error: 'Desktop path not found' });
      },
    },
    '/platform': {
      methods: ['GET', 'POST'],
      handle: async (_request, response) => sendText(response, 200, 'Linux'),
    },
    '/start_recording': {
      methods: ['POST'],
      handle: async (_request, response) => {
        const answer = await recorder.start();
        if (!answer.ok)
          sendJson(response, answer.status, { status: 'error', message: answer.message });
        else
          sendJson(response, 200, {
            status: 'success',
            message: 'Started recording successfully.',
          });
      },
    },
    '/end_recording': {
      methods: ['POST'],
      handle: async (_request, response) => {
        const answer = await recorder.stop();
        if (!answer.ok)
          sendJson(response, answer.status, { status: 'error', message: answer.message });
        else await sendFile(response, answer.path!);
      },
    },
  };
}
