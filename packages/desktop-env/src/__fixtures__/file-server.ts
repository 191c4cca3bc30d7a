// A loopback HTTP file server for download tests: serves in-memory files and can be told to fail.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

type FileServerMode =
  /** Answer normally with Content-Length. */
  | 'ok'
  /** Announce the full Content-Length, send half the bytes, then cut the connection. */
  | 'truncate'
  /** Answer HTTP 500. */
  | 'error'
  /** Answer normally without Content-Length (chunked). */
  | 'chunked'
  /** Send the headers, then never the body. */
  | 'hang';

export interface FileServer {
  readonly origin: string;
  /** Paths requested, in order. */
  readonly requests: string[];
  files: Map<string, Buffer>;
  /** Modes of the next requests (one each), then `ok`. */
  modes: FileServerMode[];
  close(): Promise<void>;
}

export async function startFileServer(
  files: Record<string, Buffer | string>,
  contentType = 'application/octet-stream',
): Promise<FileServer> {
  const state: FileServer = {
    origin: '',
    requests: [],
    files: new Map(
      Object.entries(files).map(([path, data]) => [
        path,
        Buffer.isBuffer(data) ? data : Buffer.from(data),
      ]),
    ),
    modes: [],
    close: async () => undefined,
  };
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://files').pathname;
    state.requests.push(path);
    const mode = state.modes.shift() ?? 'ok';
    const data = state.files.get(path);
    if (mode === 'error' || !data) {
      response.writeHead(data ? 500 : 404, { 'content-type': 'text/plain' });
      response.end(data ? 'server error' : 'not found');
      return;
    }
    if (mode === 'chunked') {
      response.writeHead(200, { 'content-type': contentType });
      response.end(data);
      return;
    }
    response.writeHead(200, {
      'content-type': contentType,
      'content-length': String(data.length),
    });
    if (mode === 'hang') {
      response.flushHeaders();
      return;
    }
    if (mode === 'truncate') {
      response.write(data.subarray(0, Math.floor(data.length / 2)), () => {
        response.socket?.destroy();
      });
      return;
    }
    response.end(data);
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>(resolve => server.close(() => resolve()));
    },
  });
}
