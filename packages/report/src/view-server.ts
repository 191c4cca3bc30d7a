import { redactSecrets } from '@osharm/task-schema/artifacts';
import { watch, type FSWatcher } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, extname, join } from 'node:path';
import type { HumanLabel } from '@osharm/metrics';
import {
  openTrajectoryFile,
  UnsafeFileError,
  type OpenedTrajectoryFile,
  type TrajectoryFileLimits,
} from '@osharm/task-schema/trajectory';
import { loadResultsTree } from './load-results-tree';
import { renderPageShell } from './report-html';
import { buildPageData, buildTrajectoryDetail, type FileLinker } from './report-page';
import type { PageData } from './report-page-data';
import { ThumbnailCache, type ThumbnailOptions } from './report-thumbnails';
import type { ResultsTree, TrajectoryRecord } from './results-tree';

/** Options of {@link createViewServer}. */
export interface ViewServerOptions {
  /** Results dirs to show (several compare side by side). */
  readonly roots: readonly string[];
  /**
   * Address to listen on. Anything but loopback exposes the trajectories (agent output,
   * screenshots) to the network.
   * @default '127.0.0.1'
   */
  readonly host?: string;
  /**
   * Port; 0 picks a free one (see {@link ViewServer.url}).
   * @default 0
   */
  readonly port?: number;
  /** Page title. @default 'osharm viewer' */
  readonly title?: string;
  /** Judge configuration shown first. @default the most frequent */
  readonly judge?: string;
  /** Human labels: adds the judge agreement table. */
  readonly labels?: readonly HumanLabel[];
  /** Directory relative roots are resolved against. @default process.cwd() */
  readonly cwd?: string;
  /**
   * Quiet time after a file change before the tree is read again (ms).
   * @default 300
   */
  readonly debounceMs?: number;
  /**
   * Also re-read the tree this often (ms), in case a file-system event was missed; 0 disables.
   * @default 3000
   */
  readonly pollIntervalMs?: number;
  /** Thumbnail settings. @default { width: 320, format: 'webp', quality: 50 } */
  readonly thumbnails?: ThumbnailOptions;
  /** Size caps on the files read and served. @default 32 MiB each (`DEFAULT_FILE_LIMITS`) */
  readonly limits?: TrajectoryFileLimits;
}

/** A running viewer. */
export interface ViewServer {
  /** `http://{host}:{port}/`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Bumped each time a re-read finds the tree changed (starts at 1). */
  readonly version: number;
  /** The tree as last read. */
  readonly tree: ResultsTree;
  /** Reads the tree again now and notifies pages when it changed. */
  refresh(): Promise<void>;
  /** Stops watching, ends event streams and closes the server. */
  close(): Promise<void>;
}

const contentTypes: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.mp4': 'video/mp4',
};
const loopbackHosts = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/**
 * Starts the local viewer: the report's interface over HTTP (node:http), updating live while a
 * run is in progress. Routes: `/` (the page), `/api/data` (overview JSON), `/api/trajectory/{id}`
 * (detail JSON), `/api/events` (server-sent `change` events), `/file/{id}/{name}` (a screenshot
 * or `recording.mp4` of a trajectory, with Range support) and `/thumb/{id}/{name}` (its
 * thumbnail, made with sharp). Files are served only from trajectory dirs, by base name.
 * Changes are noticed by `fs.watch` (recursive) with a debounce, plus a slow poll.
 *
 * @throws {Error} when a root does not exist or the port cannot be bound.
 */
export async function createViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const host = options.host ?? '127.0.0.1';
  const title = options.title ?? 'osharm viewer';
  const debounceMs = options.debounceMs ?? 300;
  const load = () =>
    loadResultsTree(options.roots, {
      ...(options.cwd !== undefined && { cwd: options.cwd }),
      ...(options.limits && { limits: options.limits }),
    });
  let tree = await load();
  let version = 1;
  let byId = indexTree(tree);
  let pageData: Promise<PageData> | undefined;
  const thumbnails = new ThumbnailCache({
    maxImageBytes: tree.limits.maxImageBytes,
    ...options.thumbnails,
  });
  const clients = new Set<ServerResponse>();
  const shell = renderPageShell({ title, mode: 'live' });

  const fingerprint = (current: ResultsTree) =>
    current.trajectories
      .map(
        record => `${record.id}:${record.updatedMs}:${record.judgments.length}:${record.finished}`,
      )
      .join('|');
  let lastFingerprint = fingerprint(tree);

  let reading: Promise<void> | undefined;
  let again = false;
  const refresh = async (): Promise<void> => {
    if (reading) {
      again = true;
      return reading;
    }
    reading = (async () => {
      do {
        again = false;
        try {
          const next = await load();
          const print = fingerprint(next);
          if (print !== lastFingerprint) {
            tree = next;
            byId = indexTree(next);
            lastFingerprint = print;
            pageData = undefined;
            version += 1;
            for (const client of clients)
              client.write(`event: change\ndata: ${JSON.stringify({ version })}\n\n`);
          }
        } catch {
          // a root vanished or is mid-rewrite: keep the last good tree, try again on the next event
        }
      } while (again);
    })();
    try {
      await reading;
    } finally {
      reading = undefined;
    }
  };

  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      void refresh();
    }, debounceMs);
  };
  const watchers: FSWatcher[] = [];
  for (const root of tree.roots) {
    try {
      const watcher = watch(root, { recursive: true }, schedule);
      watcher.on('error', () => undefined);
      watchers.push(watcher);
    } catch {
      // no recursive watch here: the poll below still notices changes
    }
  }
  const pollIntervalMs = options.pollIntervalMs ?? 3000;
  const poll = pollIntervalMs > 0 ? setInterval(() => void refresh(), pollIntervalMs) : undefined;
  poll?.unref();

  const linker: FileLinker = {
    async image(record: TrajectoryRecord, file: string) {
      const name = basename(file);
      const path = `${encodeURIComponent(record.id)}/${encodeURIComponent(name)}`;
      return { name, full: `file/${path}`, thumbUrl: `thumb/${path}` };
    },
    url(record: TrajectoryRecord, file: string) {
      return `file/${encodeURIComponent(record.id)}/${encodeURIComponent(basename(file))}`;
    },
  };

  const send = (
    response: ServerResponse,
    status: number,
    body: string | Buffer,
    type = 'text/plain; charset=utf-8',
  ) => {
    response.writeHead(status, {
      'content-type': type,
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    response.end(body);
  };
  // key-shaped strings of the tree are redacted, as in the static report and the judge's files
  const sendJson = (response: ServerResponse, value: unknown) =>
    send(response, 200, redactSecrets(JSON.stringify(value)), 'application/json; charset=utf-8');

  /** The trajectory file `name` (a base name of a file the record refers to), or undefined. */
  const trajectoryFile = (record: TrajectoryRecord, name: string): string | undefined => {
    if (name !== basename(name) || name.startsWith('.')) return undefined;
    const known = new Set<string>();
    for (const step of record.steps) {
      if (step.screenshot) known.add(basename(step.screenshot));
      for (const executed of step.executed)
        if (executed.screenshot) known.add(basename(executed.screenshot));
    }
    if (record.finalScreenshot) known.add(basename(record.finalScreenshot));
    if (record.recording) known.add(basename(record.recording));
    return known.has(name) ? join(record.dir, name) : undefined;
  };

  /**
   * Streams a trajectory file from a descriptor opened with task-schema's checks (inside the
   * trajectory dir, not a symlink, a regular file; images under the cap and images by content).
   */
  const serveFile = async (
    request: IncomingMessage,
    response: ServerResponse,
    record: TrajectoryRecord,
    file: string,
  ) => {
    const type = contentTypes[extname(file).toLowerCase()] ?? 'application/octet-stream';
    const image = type.startsWith('image/');
    let opened: OpenedTrajectoryFile;
    try {
      opened = await openTrajectoryFile(basename(file), {
        within: record.dir,
        maxBytes: image ? tree.limits.maxImageBytes : Number.MAX_SAFE_INTEGER,
        kind: image ? 'image' : 'any',
      });
    } catch (error) {
      if (!UnsafeFileError.isInstance(error)) throw error;
      return send(response, 404, 'not found');
    }
    const info = { size: opened.size };
    const range = /^bytes=(\d*)-(\d*)$/.exec(request.headers.range ?? '');
    let start = 0;
    let end = info.size - 1;
    let status = 200;
    if (range && (range[1] || range[2])) {
      if (range[1]) {
        start = Number(range[1]);
        if (range[2]) end = Math.min(end, Number(range[2]));
      } else start = Math.max(0, info.size - Number(range[2]));
      if (start > end || start >= info.size) {
        await opened.handle.close();
        response.writeHead(416, { 'content-range': `bytes */${info.size}` });
        return response.end();
      }
      status = 206;
    }
    response.writeHead(status, {
      'content-type': type,
      'content-length': end - start + 1,
      'accept-ranges': 'bytes',
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      ...(status === 206 && { 'content-range': `bytes ${start}-${end}/${info.size}` }),
    });
    if (request.method === 'HEAD') {
      await opened.handle.close();
      return response.end();
    }
    opened.handle
      .createReadStream({ start, end, autoClose: true })
      .on('error', () => response.destroy())
      .pipe(response);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return send(response, 405, 'method not allowed');
    // DNS-rebinding guard: on a loopback address, only loopback Host headers are served.
    const hostHeader = (request.headers.host ?? '').replace(/:\d+$/, '');
    if (loopbackHosts.has(host) && !loopbackHosts.has(hostHeader))
      return send(response, 403, 'forbidden host');
    const url = new URL(request.url ?? '/', 'http://viewer.invalid');
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (parts.length === 0) return send(response, 200, shell, 'text/html; charset=utf-8');
    if (parts[0] === 'api' && parts[1] === 'data' && parts.length === 2) {
      pageData ??= buildPageData(tree, {
        title,
        roots: options.roots,
        ...(options.judge !== undefined && { judge: options.judge }),
        ...(options.labels && { labels: options.labels }),
      });
      return sendJson(response, await pageData);
    }
    if (parts[0] === 'api' && parts[1] === 'trajectory' && parts.length === 3) {
      const record = byId.get(parts[2]!);
      if (!record) return send(response, 404, 'no such trajectory');
      return sendJson(response, await buildTrajectoryDetail(record, linker));
    }
    if (parts[0] === 'api' && parts[1] === 'events' && parts.length === 2) {
      response.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      response.write(`retry: 1000\nevent: hello\ndata: ${JSON.stringify({ version })}\n\n`);
      clients.add(response);
      const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), 25_000);
      request.on('close', () => {
        clearInterval(heartbeat);
        clients.delete(response);
      });
      return;
    }
    if ((parts[0] === 'file' || parts[0] === 'thumb') && parts.length === 3) {
      const record = byId.get(parts[1]!);
      const file = record && trajectoryFile(record, parts[2]!);
      if (!file) return send(response, 404, 'not found');
      if (parts[0] === 'file') return serveFile(request, response, record, file);
      const thumbnail = await thumbnails.get(file);
      if (!thumbnail) return send(response, 404, 'not an image');
      return send(response, 200, thumbnail.data, thumbnail.mimeType);
    }
    return send(response, 404, 'not found');
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(error => {
      if (!response.headersSent) send(response, 500, `error: ${(error as Error).message}`);
      else response.destroy();
    });
  });
  try {
    await new Promise<void>((resolvePromise, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolvePromise();
      });
    });
  } catch (error) {
    // A bind error (port taken, address not here) leaves nothing running: the watchers and the
    // poll would otherwise keep the process alive for ever.
    if (timer) clearTimeout(timer);
    if (poll) clearInterval(poll);
    for (const watcher of watchers) watcher.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${urlHost}:${address.port}/`,
    host: address.address,
    port: address.port,
    get version() {
      return version;
    },
    get tree() {
      return tree;
    },
    refresh,
    async close() {
      if (timer) clearTimeout(timer);
      if (poll) clearInterval(poll);
      for (const watcher of watchers) watcher.close();
      for (const client of clients) client.end();
      clients.clear();
      await new Promise<void>(resolvePromise => {
        server.close(() => resolvePromise());
        server.closeAllConnections();
      });
      await reading;
    },
  };
}

function indexTree(tree: ResultsTree): Map<string, TrajectoryRecord> {
  return new Map(tree.trajectories.map(record => [record.id, record]));
}
