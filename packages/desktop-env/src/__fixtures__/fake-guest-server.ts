// A loopback stand-in for the guest server (reference/osworld-harness.md §1.2), for tests only:
// answers every endpoint in the protocol's shapes, records each request, and can be scripted per
// path (fail N times, never answer, answer something else).
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GuestEndpoint } from '../vm-provider';

interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
  /** Parsed JSON body, when the request sent JSON. */
  readonly json?: unknown;
  /** Fields of a form (url-encoded or multipart); a multipart file part appears as its bytes. */
  readonly form?: Record<string, string | { fileName: string; data: Buffer }>;
}

interface ScriptedAnswer {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer | object;
  /** Never answer (the client's timeout must fire). */
  readonly hang?: boolean;
}

type Handler = (request: RecordedRequest) => ScriptedAnswer | Promise<ScriptedAnswer>;

/** A 1×1 transparent PNG. */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

const execute: Handler = ({ json }) => {
  const { command } = json as { command: string | string[] };
  const text = Array.isArray(command) ? command.join(' ') : command;
  return {
    body: { status: 'success', output: `ran: ${text}\n`, error: '', returncode: 0 },
  };
};

/** The protocol's answers when nothing else is scripted. */
const DEFAULT_HANDLERS: Record<string, Handler> = {
  'GET /screenshot': () => ({ headers: { 'content-type': 'image/png' }, body: TINY_PNG }),
  'GET /accessibility': () => ({ body: { AT: '<desktop-frame name="main"/>' } }),
  'GET /terminal': () => ({ body: { output: 'user@host:~$', status: 'success' } }),
  'POST /execute': execute,
  'POST /setup/execute': execute,
  'POST /setup/execute_with_verification': request => ({
    body: {
      ...((execute(request) as { body: object }).body as object),
      verification: 'passed',
      wait_time: 0.5,
    },
  }),
  'POST /setup/launch': ({ json }) => ({
    headers: { 'content-type': 'text/html' },
    body: `${JSON.stringify((json as { command: unknown }).command)} launched successfully`,
  }),
  'POST /run_python': () => ({
    body: {
      status: 'success',
      message: 'hi\n',
      need_more: false,
      output: 'hi\n',
      error: '',
      return_code: 0,
    },
  }),
  'POST /run_bash_script': () => ({
    body: { status: 'success', output: 'bash out\n', error: '', returncode: 0 },
  }),
  'POST /file': ({ form }) =>
    form?.file_path === '/home/user/missing.txt'
      ? { status: 404, body: { error: 'File not found' } }
      : {
          headers: { 'content-type': 'application/octet-stream' },
          body: Buffer.from('file bytes'),
        },
  'POST /setup/upload': ({ form }) => {
    const data = form?.file_data;
    return {
      headers: { 'content-type': 'text/html' },
      body: `File Uploaded: ${typeof data === 'object' ? data.data.length : 0} bytes`,
    };
  },
  'POST /list_directory': ({ json }) => ({
    body: {
      directory_tree: {
        type: 'directory',
        name: (json as { path: string }).path,
        children: [
          { type: 'file', name: 'a.txt' },
          { type: 'directory', name: 'sub', children: [] },
        ],
      },
    },
  }),
  'POST /setup/open_file': ({ json }) => ({
    body: `File opened successfully: ${(json as { path: string }).path}`,
  }),
  'POST /setup/activate_window': () => ({ body: 'Window activated successfully' }),
  'POST /setup/close_window': () => ({ body: 'Window closed successfully' }),
  'POST /setup/change_wallpaper': () => ({ body: 'Wallpaper changed successfully' }),
  'GET /platform': () => ({ body: 'Linux' }),
  'GET /cursor_position': () => ({ body: [512, 384] }),
  'POST /screen_size': () => ({ body: { width: 1920, height: 1080 } }),
  'POST /window_size': ({ form }) =>
    form?.app_class_name === 'gedit'
      ? { body: { width: 800, height: 600 } }
      : { status: 404, body: { error: 'no window' } },
  'POST /desktop_path': () => ({ body: { desktop_path: '/home/user/Desktop' } }),
  'POST /wallpaper': () => ({ headers: { 'content-type': 'image/png' }, body: TINY_PNG }),
  'POST /start_recording': () => ({
    body: { status: 'success', message: 'Started recording.' },
  }),
  'POST /end_recording': () => ({
    headers: { 'content-type': 'video/mp4' },
    body: Buffer.from('\u0000\u0000\u0000\u0018ftypmp42fake'),
  }),
};

export interface FakeGuestServer {
  readonly endpoint: GuestEndpoint;
  readonly requests: RecordedRequest[];
  /** Scripts the next answers of `METHOD /path`, used once each, before the default handler. */
  script(route: string, ...answers: ScriptedAnswer[]): void;
  /** Replaces the handler of `METHOD /path` for the rest of the test. */
  handle(route: string, handler: Handler): void;
  close(): Promise<void>;
}

export async function startFakeGuestServer(
  options: { socketPath?: string; token?: string; chromiumUrl?: string } = {},
): Promise<FakeGuestServer> {
  const requests: RecordedRequest[] = [];
  const scripted = new Map<string, ScriptedAnswer[]>();
  const handlers = new Map<string, Handler>(Object.entries(DEFAULT_HANDLERS));
  const hanging = new Set<ServerResponse>();

  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      void (async () => {
        const recorded = await record(incoming, Buffer.concat(chunks));
        requests.push(recorded);
        if (options.token && incoming.headers.authorization !== `Bearer ${options.token}`) {
          send(response, { status: 401, body: { error: 'unauthorized' } });
          return;
        }
        const route = `${recorded.method} ${recorded.path}`;
        const queue = scripted.get(route);
        const handler = handlers.get(route);
        const answer: ScriptedAnswer | undefined =
          queue && queue.length > 0
            ? queue.shift()
            : handler
              ? await handler(recorded)
              : { status: 404, body: { error: `no route ${route}` } };
        if (answer?.hang) {
          hanging.add(response);
          return;
        }
        send(response, answer ?? {});
      })().catch(error => send(response, { status: 500, body: { error: String(error) } }));
    });
  });

  if (options.socketPath) {
    const socketPath = options.socketPath;
    await new Promise<void>(resolve => server.listen(socketPath, resolve));
  } else {
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  }
  const port = options.socketPath ? 5000 : (server.address() as AddressInfo).port;
  const endpoint: GuestEndpoint = {
    baseUrl: options.socketPath ? 'http://localhost:5000' : `http://127.0.0.1:${port}`,
    host: options.socketPath ? 'localhost' : '127.0.0.1',
    serverPort: port,
    ...(options.socketPath ? { socketPath: options.socketPath } : {}),
    ...(options.token ? { token: options.token } : {}),
    ...(options.chromiumUrl ? { chromiumUrl: options.chromiumUrl } : {}),
  };
  return {
    endpoint,
    requests,
    script(route, ...answers) {
      scripted.set(route, [...(scripted.get(route) ?? []), ...answers]);
    },
    handle(route, handler) {
      handlers.set(route, handler);
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>(resolve => server.close(() => resolve()));
    },
  };
}

async function record(incoming: IncomingMessage, body: Buffer): Promise<RecordedRequest> {
  const url = new URL(incoming.url ?? '/', 'http://guest');
  const contentType = incoming.headers['content-type'] ?? '';
  const base = {
    method: incoming.method ?? 'GET',
    path: url.pathname,
    headers: incoming.headers,
    body,
  };
  if (contentType.startsWith('application/json')) {
    return { ...base, json: JSON.parse(body.toString('utf8')) as unknown };
  }
  if (contentType.startsWith('application/x-www-form-urlencoded')) {
    return { ...base, form: Object.fromEntries(new URLSearchParams(body.toString('utf8'))) };
  }
  if (contentType.startsWith('multipart/form-data')) {
    const formData = await new Request('http://guest/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    }).formData();
    const form: Record<string, string | { fileName: string; data: Buffer }> = {};
    for (const [key, value] of formData.entries()) {
      form[key] =
        typeof value === 'string'
          ? value
          : { fileName: value.name, data: Buffer.from(await value.arrayBuffer()) };
    }
    return { ...base, form };
  }
  return base;
}

function send(response: ServerResponse, answer: ScriptedAnswer): void {
  const { body } = answer;
  const headers: Record<string, string> = { ...answer.headers };
  let payload: Buffer;
  if (Buffer.isBuffer(body)) payload = body;
  else if (typeof body === 'string') payload = Buffer.from(body);
  else if (body === undefined) payload = Buffer.alloc(0);
  else {
    payload = Buffer.from(JSON.stringify(body));
    headers['content-type'] ??= 'application/json';
  }
  headers['content-length'] = String(payload.length);
  response.writeHead(answer.status ?? 200, headers);
  response.end(payload);
}
