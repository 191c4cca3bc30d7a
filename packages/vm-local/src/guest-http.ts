import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, rm, stat, unlink, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import busboy from 'busboy';
import { DesktopHelper } from './guest-desktop-helper';
import { recordingSettings, ScreenRecorder, type RecordingSettings } from './guest-recording';
import { killGroup, launchDetached, ProcessTimeoutError, runProcess } from './guest-process';
import { pythonListRepr, shlexSplit } from './guest-shlex';

/** Options of the guest server (the in-desktop half of upstream's protocol). */
export interface GuestServerOptions {
  /**
   * Bearer token every request must carry (`Authorization: Bearer <token>`); requests without it
   * get 401. Without a token the server is open, as upstream's is.
   */
  readonly token?: string;
  /** Directory holding `desktop_helper.py` and `python/`. @default the package's `guest/` */
  readonly guestDir?: string;
  /** Python with python3-xlib and python3-pyatspi. @default '/usr/bin/python3' */
  readonly python?: string;
  /** Extra PYTHONPATH entries for `/execute` and `/run_python` (the pyautogui stand-in). @default [] */
  readonly pythonPath?: readonly string[];
  /** Where `/start_recording` writes. @default '/tmp/recording.mp4' */
  readonly recordingPath?: string;
  /** How `/start_recording` encodes (frame rate, preset, threads). @default DEFAULT_RECORDING_SETTINGS */
  readonly recording?: Partial<RecordingSettings>;
  /**
   * Time budget of one accessibility walk in ms: past it the tree collected so far is returned; a
   * helper still silent 5 s later is killed (then 500).
   * @default 10000
   */
  readonly accessibilityDeadlineMs?: number;
  /**
   * How long `/setup/activate_window` waits for a matching window to appear before answering 404,
   * in ms (a request's `timeout` field, in seconds, overrides it). Upstream does not wait.
   * @default 10000
   */
  readonly windowWaitMs?: number;
  /** Upper bound of `/setup/open_file`'s wait for a window in ms (upstream: 1800 s). @default 60000 */
  readonly openFileTimeoutMs?: number;
  /** Environment for commands and helpers. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Log sink for server-side problems. @default writes to stderr */
  readonly log?: (message: string) => void;
}

/** A guest server: a node:http request listener plus its helper processes. */
export interface GuestServer {
  /** The request listener to pass to `http.createServer`. */
  readonly handle: (request: IncomingMessage, response: ServerResponse) => void;
  /** Starts the X and AT-SPI helpers ahead of the first request. */
  warmUp(): void;
  /** Stops helpers and any recording. */
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(typeof body === 'string' ? body : JSON.stringify(body));
  }
}

type Handler = (request: IncomingMessage, response: ServerResponse, url: URL) => Promise<void>;

const jsonLimit = 64 * 1024 * 1024;
const mimeTypes: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.txt': 'text/plain; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json',
  '.pdf': 'application/pdf',
  '.mp4': 'video/mp4',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  '.odt': 'application/vnd.oasis.opendocument.text',
  '.ods': 'application/vnd.oasis.opendocument.spreadsheet',
  '.csv': 'text/csv; charset=utf-8',
  '.zip': 'application/zip',
};
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

/** The package's `guest/` directory (one level above both `src/` and `dist/`). */
export function defaultGuestDir(): string {
  return fileURLToPath(new URL('../guest/', import.meta.url));
}

/** Python's `os.path.expanduser` for `~` and `~/…`. */
function expandUser(path: string, env: NodeJS.ProcessEnv): string {
  const home = env.HOME ?? homedir();
  if (path === '~') return home;
  if (path.startsWith('~/')) return home + path.slice(1);
  return path;
}

/** Python's `os.path.expandvars`: `$NAME` and `${NAME}`; unknown names stay as written. */
function expandVars(path: string, env: NodeJS.ProcessEnv): string {
  return path.replace(/\$(\w+|\{[^}]*\})/g, (whole, name: string) => {
    const key = name.startsWith('{') ? name.slice(1, -1) : name;
    return env[key] ?? whole;
  });
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

/** Flask answers a returned string as text/html. */
function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

async function sendFile(response: ServerResponse, path: string): Promise<void> {
  const info = await stat(path);
  if (!info.isFile()) throw new Error(`[Errno 21] Is a directory: '${path}'`);
  const name = basename(path);
  response.writeHead(200, {
    'content-type': mimeTypes[extname(name).toLowerCase()] ?? 'application/octet-stream',
    'content-length': info.size,
    'content-disposition': `attachment; filename="${name.replace(/["\\\r\n]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`,
  });
  await pipeline(createReadStream(path), response);
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > jsonLimit) throw new HttpError(413, { error: 'Request body too large' });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const body = await readBody(request);
  if (body.length === 0) return {};
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new HttpError(400, { error: 'The request body must be a JSON object' });
}

/**
 * Parses a urlencoded or multipart form. File parts go to `onFile` (which must consume the
 * stream); fields are returned.
 */
function readForm(
  request: IncomingMessage,
  onFile?: (
    field: string,
    stream: NodeJS.ReadableStream,
    fields: Map<string, string>,
  ) => Promise<void>,
): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    const fields = new Map<string, string>();
    const contentType = request.headers['content-type'] ?? '';
    if (!/^(multipart\/form-data|application\/x-www-form-urlencoded)/i.test(contentType)) {
      request.resume();
      resolve(fields);
      return;
    }
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: request.headers, limits: { fieldSize: 16 * 1024 * 1024 } });
    } catch (error) {
      reject(new HttpError(400, { error: `Invalid form: ${(error as Error).message}` }));
      return;
    }
    const pending: Promise<void>[] = [];
    parser.on('field', (name, value) => fields.set(name, value));
    parser.on('file', (name, stream) => {
      if (onFile) pending.push(onFile(name, stream, fields));
      else stream.resume();
    });
    parser.on('error', error =>
      reject(new HttpError(400, { error: `Invalid form: ${(error as Error).message}` })),
    );
    parser.on('close', () => {
      Promise.all(pending).then(() => resolve(fields), reject);
    });
    request.pipe(parser);
  });
}

function commandFrom(
  body: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): { shell: boolean; command: string | string[] } {
  const shell = Boolean(body.shell);
  let command = body.command ?? (shell ? '' : []);
  if (typeof command === 'string' && !shell) command = shlexSplit(command);
  if (Array.isArray(command)) {
    command = command.map(part => {
      const text = String(part);
      return text.startsWith('~/') ? expandUser(text, env) : text;
    });
  } else if (typeof command !== 'string') {
    throw new HttpError(400, { status: 'error', message: 'command must be a string or a list' });
  }
  return { shell, command: command as string | string[] };
}

function argvFor(shell: boolean, command: string | string[]): string[] {
  if (!shell) return command as string[];
  // Python's Popen(shell=True): a string runs as `sh -c string`; a list as `sh -c list[0] list[1:]`.
  return typeof command === 'string' ? ['/bin/sh', '-c', command] : ['/bin/sh', '-c', ...command];
}

/**
 * Creates the guest server's request handler: upstream OSWorld's in-VM HTTP protocol
 * (reference/osworld-harness.md §1.2) backed by the local X display, AT-SPI and the shell.
 */
export function createGuestServer(options: GuestServerOptions = {}): GuestServer {
  const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env) };
  delete env.OSHARM_GUEST_TOKEN;
  if (options.pythonPath?.length) {
    env.PYTHONPATH = [...options.pythonPath, ...(env.PYTHONPATH ? [env.PYTHONPATH] : [])].join(':');
  }
  const guestDir = options.guestDir ?? defaultGuestDir();
  const python = options.python ?? '/usr/bin/python3';
  const recordingPath = options.recordingPath ?? '/tmp/recording.mp4';
  const a11yDeadlineMs = options.accessibilityDeadlineMs ?? 10_000;
  const openFileTimeoutMs = options.openFileTimeoutMs ?? 60_000;
  const windowWaitMs = options.windowWaitMs ?? 10_000;
  const log =
    options.log ?? ((message: string) => process.stderr.write(`[guest-server] ${message}\n`));
  const home = env.HOME ?? homedir();
  const tokenDigest = options.token
    ? createHash('sha256').update(options.token).digest()
    : undefined;

  const helperOptions = {
    python,
    script: join(guestDir, 'desktop_helper.py'),
    env,
    onStderr: (line: string) => {
      if (line.trim()) log(`helper: ${line}`);
    },
  };
  // Screenshots and pointer queries never wait behind an accessibility walk.
  const screenHelper = new DesktopHelper(helperOptions);
  const a11yHelper = new DesktopHelper(helperOptions);
  const recorder = new ScreenRecorder({
    settings: recordingSettings(options.recording),
    output: recordingPath,
    env,
    screenSize: () => screenSize(),
  });

  const authorized = (request: IncomingMessage): boolean => {
    if (!tokenDigest) return true;
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (!match?.[1]) return false;
    return timingSafeEqual(createHash('sha256').update(match[1]).digest(), tokenDigest);
  };

  const screenSize = () =>
    screenHelper.request<{ width: number; height: number }>('screen_size', {}, 10_000);

  const execute: Handler = async (request, response) => {
    const body = await readJson(request);
    let shell: boolean;
    let command: string | string[];
    try {
      ({ shell, command } = commandFrom(body, env));
    } catch (error) {
      if (error instanceof HttpError) throw error;
      sendJson(response, 500, { status: 'error', message: (error as Error).message });
      return;
    }
    try {
      const result = await runProcess(argvFor(shell, command), {
        timeoutMs: 120_000,
        cwd: home,
        env,
        displayCommand: command,
      });
      sendJson(response, 200, {
        status: 'success',
        output: result.stdout,
        error: result.stderr,
        returncode: result.returncode,
      });
    } catch (error) {
      sendJson(response, 500, { status: 'error', message: (error as Error).message });
    }
  };

  const listWindows = async (): Promise<string[]> => {
    try {
      const result = await runProcess(['wmctrl', '-l'], { timeoutMs: 10_000, env });
      return result.stdout.split('\n').filter(line => line.trim());
    } catch {
      return [];
    }
  };

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
      sendJson(
        response,
        404,
        {
          status: 'error',
          message: `No window matches ${JSON.stringify(name)}${waitMs > 0 ? ` after waiting ${Math.round(waitMs / 1000)} s` : ''}`,
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

  const openerFor = (path: string): string[] => {
    if (officeExtensions.has(extname(path).toLowerCase()) && existsSync('/usr/bin/soffice')) {
      return ['soffice', '--norestore', path];
    }
    return ['xdg-open', path];
  };

  const routes: Record<string, { methods: readonly string[]; handle: Handler }> = {
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
    '/execute': { methods: ['POST'], handle: execute },
    '/setup/execute': { methods: ['POST'], handle: execute },
    '/execute_with_verification': { methods: ['POST'], handle: executeWithVerification },
    '/setup/execute_with_verification': { methods: ['POST'], handle: executeWithVerification },
    '/setup/launch': {
      methods: ['POST'],
      handle: async (request, response) => {
        const body = await readJson(request);
        try {
          const { shell, command } = commandFrom(body, env);
          await launchDetached(argvFor(shell, command), { cwd: home, env });
          const shown =
            typeof command === 'string'
              ? command
              : shell
                ? pythonListRepr(command)
                : command.join(' ');
          sendText(response, 200, `${shown} launched successfully`);
        } catch (error) {
          if (error instanceof HttpError) throw error;
          sendJson(response, 500, { status: 'error', message: (error as Error).message });
        }
      },
    },
    '/run_python': {
      methods: ['POST'],
      handle: async (request, response) => {
        const body = await readJson(request);
        const code = body.code;
        if (typeof code !== 'string' || !code) {
          sendJson(response, 400, { status: 'error', message: 'Code not supplied!' });
          return;
        }
        const file = join(tmpdir(), `python_exec_${randomUUID().replace(/-/g, '')}.py`);
        try {
          await writeFile(file, code);
          const result = await runProcess(['/usr/bin/python3', file], {
            timeoutMs: 30_000,
            cwd: home,
            env,
          });
          const message =
            result.stdout +
            (result.stderr ? (result.stdout ? `\n${result.stderr}` : result.stderr) : '');
          sendJson(response, 200, {
            status: result.returncode === 0 ? 'success' : 'error',
            message,
            need_more: false,
            output: result.stdout,
            error: result.stderr,
            return_code: result.returncode,
          });
        } catch (error) {
          if (error instanceof ProcessTimeoutError) {
            sendJson(response, 500, {
              status: 'error',
              message: 'Execution timeout: Code took too long to execute',
              error: 'TimeoutExpired',
              need_more: false,
              output: null,
            });
          } else {
            sendJson(response, 500, {
              status: 'error',
              message: `Execution error: ${(error as Error).message}`,
              error: (error as Error).message,
              need_more: false,
              output: null,
            });
          }
        } finally {
          await rm(file, { force: true });
        }
      },
    },
    '/run_bash_script': {
      methods: ['POST'],
      handle: async (request, response) => {
        const body = await readJson(request);
        let script = typeof body.script === 'string' ? body.script : '';
        const timeout = typeof body.timeout === 'number' && body.timeout > 0 ? body.timeout : 100;
        if (!script) {
          sendJson(response, 400, {
            status: 'error',
            output: 'Script not supplied!',
            error: '',
            returncode: -1,
          });
          return;
        }
        let cwd = home;
        if (typeof body.working_dir === 'string' && body.working_dir) {
          cwd = expandUser(body.working_dir, env);
          if (!existsSync(cwd)) {
            sendJson(response, 400, {
              status: 'error',
              output: `Working directory does not exist: ${cwd}`,
              error: '',
              returncode: -1,
            });
            return;
          }
        }
        if (!script.includes('#!/bin/bash')) script = `#!/bin/bash\n\n${script}`;
        const file = join(tmpdir(), `osharm_script_${randomUUID()}.sh`);
        try {
          await writeFile(file, script, { mode: 0o755 });
          const result = await runProcess(['/bin/bash', file], {
            timeoutMs: timeout * 1000,
            cwd,
            env: { ...env, TERM: 'xterm' },
            mergeStderr: true,
          });
          sendJson(response, 200, {
            status: result.returncode === 0 ? 'success' : 'error',
            output: result.stdout,
            error: '',
            returncode: result.returncode,
          });
        } catch (error) {
          const message =
            error instanceof ProcessTimeoutError
              ? `Script execution timed out after ${timeout} seconds`
              : `Failed to execute script: ${(error as Error).message}`;
          sendJson(response, 500, { status: 'error', output: message, error: '', returncode: -1 });
        } finally {
          await rm(file, { force: true });
        }
      },
    },
    '/file': {
      methods: ['POST'],
      handle: async (request, response) => {
        const fields = await readForm(request);
        const raw = fields.get('file_path');
        if (raw === undefined) {
          sendJson(response, 400, { error: 'file_path is required' });
          return;
        }
        const path = expandVars(expandUser(raw, env), env);
        if (!existsSync(path)) {
          sendJson(response, 404, { error: 'File not found' });
          return;
        }
        try {
          await sendFile(response, path);
        } catch (error) {
          if (!response.headersSent)
            sendJson(response, 500, { error: `Failed to serve file: ${(error as Error).message}` });
          else response.destroy();
        }
      },
    },
    '/setup/upload': {
      methods: ['POST'],
      handle: async (request, response) => {
        let target: string | undefined;
        let staged: string | undefined;
        let received = false;
        try {
          const fields = await readForm(request, async (field, stream, known) => {
            if (field !== 'file_data' || received) {
              stream.resume();
              return;
            }
            received = true;
            const raw = known.get('file_path');
            if (raw !== undefined) {
              target = expandVars(expandUser(raw, env), env);
              await mkdir(dirname(target), { recursive: true });
              await pipeline(stream, createWriteStream(target));
            } else {
              // file_data came before file_path: stage it, move it once the path is known.
              staged = join(tmpdir(), `osharm_upload_${randomUUID()}`);
              await pipeline(stream, createWriteStream(staged));
            }
          });
          const raw = fields.get('file_path');
          if (raw === undefined || !received) {
            sendJson(response, 400, { error: 'file_path and file_data are required' });
            return;
          }
          if (staged) {
            target = expandVars(expandUser(raw, env), env);
            await mkdir(dirname(target), { recursive: true });
            await copyFile(staged, target);
          }
          const size = (await stat(target as string)).size;
          sendText(response, 200, `File Uploaded: ${size} bytes`);
        } catch (error) {
          if (target) await rm(target, { force: true }).catch(() => {});
          if (error instanceof HttpError) throw error;
          sendJson(response, 500, { status: 'error', message: (error as Error).message });
        } finally {
          if (staged) await unlink(staged).catch(() => {});
        }
      },
    },
    '/list_directory': {
      methods: ['POST'],
      handle: async (request, response) => {
        const body = await readJson(request);
        if (typeof body.path !== 'string') {
          sendJson(response, 400, { error: "Missing 'path' parameter" });
          return;
        }
        const start = body.path;
        const info = await stat(start).catch(() => undefined);
        if (!info?.isDirectory()) {
          sendJson(response, 400, { error: 'The specified path is not a directory' });
          return;
        }
        let budget = 100_000;
        const walk = async (directory: string, depth: number): Promise<Record<string, unknown>> => {
          const tree: { type: string; name: string; children: unknown[] } = {
            type: 'directory',
            name: basename(directory),
            children: [],
          };
          try {
            for (const entry of await readdir(directory)) {
              budget -= 1;
              if (budget < 0) break;
              const full = join(directory, entry);
              const isDirectory = await stat(full).then(
                s => s.isDirectory(),
                () => false,
              );
              if (isDirectory && depth < 64) tree.children.push(await walk(full, depth + 1));
              else tree.children.push({ type: 'file', name: entry });
            }
          } catch (error) {
            return { error: (error as Error).message };
          }
          return tree;
        };
        sendJson(response, 200, {
          directory_tree: await walk(start.replace(/\/+$/, '') || '/', 0),
        });
      },
    },
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
            await launchDetached(openerFor(path), { cwd: home, env });
            const name = basename(path);
            names = [name, name.slice(0, name.length - extname(name).length) || name];
          } else {
            await launchDetached([raw], { cwd: home, env });
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
          for (const line of await listWindows()) {
            const title = line.split(/\s+/).slice(3).join(' ');
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
    '/setup/download_file': {
      methods: ['POST'],
      handle: async (request, response) => {
        const body = await readJson(request);
        if (typeof body.url !== 'string' || typeof body.path !== 'string') {
          sendText(response, 400, 'Path or URL not supplied!');
          return;
        }
        const path = expandVars(expandUser(body.path, env), env);
        try {
          const download = await fetch(body.url, { signal: AbortSignal.timeout(300_000) });
          if (!download.ok || !download.body) throw new Error(`HTTP ${download.status}`);
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path, Buffer.from(await download.arrayBuffer()));
          sendText(response, 200, 'File downloaded successfully');
        } catch (error) {
          sendText(response, 500, `Failed to download ${body.url}: ${(error as Error).message}`);
        }
      },
    },
  };

  async function executeWithVerification(
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    const body = await readJson(request);
    const { shell, command } = commandFrom(body, env);
    const verification = (body.verification ?? {}) as {
      window_exists?: string;
      command_success?: string;
    };
    const maxWait = (typeof body.max_wait_time === 'number' ? body.max_wait_time : 10) * 1000;
    const interval = (typeof body.check_interval === 'number' ? body.check_interval : 1) * 1000;
    let result;
    try {
      result = await runProcess(argvFor(shell, command), {
        timeoutMs: 120_000,
        cwd: home,
        env,
        displayCommand: command,
      });
    } catch (error) {
      sendJson(response, 500, { status: 'error', message: (error as Error).message });
      return;
    }
    const started = Date.now();
    const fields = { output: result.stdout, error: result.stderr, returncode: result.returncode };
    while (Date.now() - started <= maxWait) {
      let passed = true;
      if (verification.window_exists) {
        const wanted = verification.window_exists.toLowerCase();
        passed = (await listWindows()).some(line => line.toLowerCase().includes(wanted));
      }
      if (passed && verification.command_success) {
        const check = await runProcess(['/bin/sh', '-c', verification.command_success], {
          timeoutMs: 30_000,
          env,
        }).catch(() => undefined);
        passed = check?.returncode === 0;
      }
      if (passed) {
        sendJson(response, 200, {
          status: 'success',
          ...fields,
          verification: 'passed',
          wait_time: (Date.now() - started) / 1000,
        });
        return;
      }
      await new Promise(resolve => setTimeout(resolve, interval));
    }
    sendJson(response, 500, {
      status: 'verification_failed',
      ...fields,
      message: `Verification failed after ${maxWait / 1000} seconds`,
    });
  }

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const url = new URL(request.url ?? '/', 'http://guest');
    if (!authorized(request)) {
      request.resume();
      response.setHeader('www-authenticate', 'Bearer');
      sendJson(response, 401, {
        status: 'error',
        message: 'Unauthorized: send Authorization: Bearer <token>',
      });
      return;
    }
    const route = routes[url.pathname];
    if (!route) {
      request.resume();
      sendJson(response, 404, { status: 'error', message: `Not found: ${url.pathname}` });
      return;
    }
    if (!route.methods.includes(request.method ?? 'GET')) {
      request.resume();
      response.setHeader('allow', route.methods.join(', '));
      sendJson(response, 405, { status: 'error', message: `Method ${request.method} not allowed` });
      return;
    }
    route.handle(request, response, url).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      if (error instanceof HttpError) {
        sendJson(response, error.status, error.body);
        return;
      }
      log(`${url.pathname}: ${(error as Error).message}`);
      sendJson(response, 500, { status: 'error', message: (error as Error).message });
    });
  };

  return {
    handle,
    warmUp() {
      screenHelper.warmUp();
      a11yHelper.warmUp();
      // Connect to the displays and buses now so the first real request is fast.
      screenHelper.request('screen_size', {}, 10_000).catch(() => undefined);
      a11yHelper.request('warm_accessibility', {}, 15_000).catch(() => undefined);
    },
    async close() {
      screenHelper.close();
      a11yHelper.close();
      const pid = recorder.pid;
      if (pid) killGroup(pid);
    },
  };
}
