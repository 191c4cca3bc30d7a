import { existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { basename, extname } from 'node:path';
import {
  expandUser,
  expandVars,
  type GuestContext,
  readJson,
  type Routes,
  sendJson,
  sendText,
} from './guest-http';
import { launchDetached, runProcess } from './guest-process';

const officeExtensions = new Set([
  '.doc',
  '.docx',
  '.odt',
  '.rtf',
  '.xls',
  '.xlsx',
  '.ods',
  '.csv',
  '.ppt',
  '.pptx',
  '.odp',
]);

/** `wmctrl -l`'s lines (none when wmctrl fails). */
export async function listWindows(env: NodeJS.ProcessEnv): Promise<string[]> {
  try {
    const result = await runProcess(['wmctrl', '-l'], { timeoutMs: 10_000, env });
    return result.stdout.split('\n').filter(line => line.trim());
  } catch {
    return [];
  }
}

/** A `wmctrl -l` line's window title (its columns after id, desktop and host). */
function windowTitle(line: string): string {
  return line.split(/\s+/).slice(3).join(' ');
}

function openerFor(path: string): string[] {
  if (officeExtensions.has(extname(path).toLowerCase()) && existsSync('/usr/bin/soffice')) {
    return ['soffice', '--norestore', path];
  }
  return ['xdg-open', path];
}

/** `/setup/open_file`, `/setup/activate_window`, `/setup/close_window`. */
export function windowRoutes(context: GuestContext): Routes {
  const { env, home, windowWaitMs, openFileTimeoutMs } = context;

  const wmctrl = async (
    flag: 'a' | 'c',
    body: Record<string, unknown>,
    response: ServerResponse,
  ) => {
    const name = body.window_name;
    if (typeof name !== 'string' || !name) {
      sendText(response, 400, 'window_name required');
      return;
    }
    const flags = `-${body.by_class ? 'x' : ''}${body.strict ? 'F' : ''}${flag}`;
    // Activation waits for the window to appear (as a person would), up to the request's
    // `timeout` (s, osharm's field) or the server's window wait; closing does not wait.
    const waitMs =
      flag === 'c'
        ? 0
        : typeof body.timeout === 'number' && body.timeout >= 0
          ? Math.min(body.timeout * 1000, 120_000)
          : windowWaitMs;
    const started = Date.now();
    let result = await runProcess(['wmctrl', flags, name], { timeoutMs: 10_000, env });
    while (result.returncode !== 0 && Date.now() - started < waitMs) {
      await new Promise(resolve => setTimeout(resolve, 200));
      result = await runProcess(['wmctrl', flags, name], { timeoutMs: 10_000, env });
    }
    const headers = { 'x-osharm-waited-ms': String(Date.now() - started) };
    // Upstream ignores wmctrl's exit code; we report a missing window as 404 (documented).
    if (result.returncode !== 0) {
      // The windows there are, by title (wmctrl -l's last column), so a setup warning says what was found.
      const titles = (await listWindows(env)).map(windowTitle);
      sendJson(
        response,
        404,
        {
          status: 'error',
          message: `No window matches ${JSON.stringify(name)}${waitMs > 0 ? ` after waiting ${Math.round(waitMs / 1000)} s` : ''} (windows: ${titles.length > 0 ? titles.map(title => JSON.stringify(title)).join(', ') : 'none'})`,
        },
        headers,
      );
      return;
    }
    response.setHeader('x-osharm-waited-ms', headers['x-osharm-waited-ms']);
    sendText(
      response,
      200,
      flag === 'a' ? 'Window activated successfully' : 'Window closed successfully',
    );
  };

  return {
    '/setup/open_file': {
      methods: ['POST'],
      handle: async (request, response) => {
        const body = await readJson(request);
        const raw = body.path;
        if (typeof raw !== 'string' || !raw) {
          sendText(response, 400, 'Path not supplied!');
          return;
        }
        const path = expandVars(expandUser(raw, env), env);
        const isFile = existsSync(path);
        let names: string[];
        try {
          if (isFile) {
            context.listeners?.launchedByHarness(
              await launchDetached(openerFor(path), {
                cwd: home,
                env,
                agent: context.agent,
                record: context.spawned,
              }),
            );
            const name = basename(path);
            names = [name, name.slice(0, name.length - extname(name).length) || name];
          } else {
            context.listeners?.launchedByHarness(
              await launchDetached([raw], {
                cwd: home,
                env,
                agent: context.agent,
                record: context.spawned,
              }),
            );
            names = [raw];
          }
        } catch (error) {
          if (!isFile && /ENOENT|No such file/.test((error as Error).message)) {
            sendText(response, 404, `Application/file not found: ${raw}`);
          } else {
            sendJson(response, 500, { status: 'error', message: (error as Error).message });
          }
          return;
        }
        const timeoutMs =
          typeof body.timeout === 'number' && body.timeout > 0
            ? body.timeout * 1000
            : openFileTimeoutMs;
        const deadline = Date.now() + timeoutMs;
        while (Date.now() < deadline) {
          for (const line of await listWindows(env)) {
            const title = windowTitle(line);
            if (names.some(name => title.includes(name))) {
              const id = line.split(/\s+/)[0] as string;
              await runProcess(['wmctrl', '-i', '-a', id], { timeoutMs: 10_000, env }).catch(
                () => undefined,
              );
              sendText(response, 200, 'File opened and window activated successfully');
              return;
            }
          }
          await new Promise(resolve => setTimeout(resolve, 150));
        }
        sendText(
          response,
          500,
          `Failed to find window for ${names[0]} within ${Math.round(timeoutMs / 1000)} seconds.`,
        );
      },
    },
    '/setup/activate_window': {
      methods: ['POST'],
      handle: async (request, response) => wmctrl('a', await readJson(request), response),
    },
    '/setup/close_window': {
      methods: ['POST'],
      handle: async (request, response) => wmctrl('c', await readJson(request), response),
    },
  };
}
