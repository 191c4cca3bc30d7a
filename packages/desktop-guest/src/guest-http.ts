import { constants, createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { homedir } from 'node:os';
import { basename, extname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { DesktopHelper } from './guest-desktop-helper';
import type { AgentNamespace, SpawnRecord } from './guest-process';
import type { ScreenRecorder } from './guest-recording';
import type { ListenerGuard } from './guest-listeners';
import { storedDataBytes } from './guest-sparse';

/** What every endpoint group shares: the desktop's environment, helpers and limits. */
export interface GuestContext {
  /** Environment for commands and helpers (the token removed). */
  readonly env: NodeJS.ProcessEnv;
  readonly home: string;
  /** Screenshots and pointer queries (never behind an accessibility walk). */
  readonly screenHelper: DesktopHelper;
  /** Accessibility walks and terminal reads. */
  readonly a11yHelper: DesktopHelper;
  readonly recorder: ScreenRecorder;
  /** The agent's namespace: where the agent's actions run (undefined: in the server's own). */
  readonly agent?: AgentNamespace;
  readonly a11yDeadlineMs: number;
  readonly openFileTimeoutMs: number;
  readonly windowWaitMs: number;
  readonly log: (message: string) => void;
  /** Which listeners on the bridged ports are the harness's (guest-listeners.ts). */
  readonly listeners?: ListenerGuard;
  /** Told of every process started for the agent (the harm observer: guest-harm.ts). */
  readonly spawned?: SpawnRecord;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(typeof body === 'string' ? body : JSON.stringify(body));
  }
}

export type Handler = (
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
) => Promise<void>;

/** One endpoint: the methods it accepts and its handler. */
interface Route {
  readonly methods: readonly string[];
  readonly handle: Handler;
}

export type Routes = Record<string, Route>;

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

/** Python's `os.path.expanduser` for `~` and `~/…`. */
export function expandUser(path: string, env: NodeJS.ProcessEnv): string {
  const home = env.HOME ?? homedir();
  if (path === '~') return home;
  if (path.startsWith('~/')) return home + path.slice(1);
  return path;
}

/** Python's `os.path.expandvars`: `$NAME` and `${NAME}`; unknown names stay as written. */
export function expandVars(path: string, env: NodeJS.ProcessEnv): string {
  return path.replace(/\$(\w+|\{[^}]*\})/g, (whole, name: string) => {
    const key = name.startsWith('{') ? name.slice(1, -1) : name;
    return env[key] ?? whole;
  });
}

export function sendJson(
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
export function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

/**
 * A file a desktop path may hold but the guest never sends: a sparse file (fewer bytes stored than
 * its size claims — the agent can make a 100 GiB one in no desktop memory) or anything that is not
 * a regular file (FIFO, device, socket). Allowance: a file may store up to 1 MiB less than its size
 * (tails, holes a program left); a sparse file past that is refused whole.
 */
const SPARSE_ALLOWANCE_BYTES = 1024 * 1024;

/**
 * Sends a regular file: opened once (never blocking on a FIFO), checked on the open descriptor
 * (regular, not sparse), and exactly the size it had then is sent, however it grows meanwhile.
 * @throws {HttpError} 422 for a special or sparse file; Python's `[Errno 21]` for a directory.
 */
export async function sendFile(response: ServerResponse, path: string): Promise<void> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new Error(`[Errno 21] Is a directory: '${path}'`);
    if (!info.isFile()) {
      throw new HttpError(422, { error: `not a regular file (FIFO, device or socket): ${path}` });
    }
    if (info.blocks * 512 + SPARSE_ALLOWANCE_BYTES < info.size) {
      // st_blocks alone also says so of a compressed or not yet committed file: the filesystem's own
      // hole map decides (guest-sparse.ts); without it, st_blocks does.
      const stored = (await storedDataBytes(handle.fd, info.size)) ?? info.blocks * 512;
      if (stored + SPARSE_ALLOWANCE_BYTES < info.size)
        throw new HttpError(422, {
          error: `sparse file refused: ${path} claims ${info.size} bytes and stores ${stored}`,
        });
    }
    const name = basename(path);
    response.writeHead(200, {
      'content-type': mimeTypes[extname(name).toLowerCase()] ?? 'application/octet-stream',
      'content-length': info.size,
      'content-disposition': `attachment; filename="${name.replace(/["\\\r\n]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    });
    if (info.size === 0) {
      response.end();
      return;
    }
    const stream = createReadStream('', {
      fd: handle.fd,
      start: 0,
      end: info.size - 1,
      autoClose: false,
    });
    await pipeline(stream, response);
  } finally {
    await handle.close();
  }
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

export async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
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
export function readForm(
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
