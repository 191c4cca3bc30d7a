// HTTP CONNECT on the guest server: the host's TCP bridges (CDP, VLC) reach ports inside the
// sandbox through the guest server's own socket, authenticated with its token.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ListenerGuard } from './guest-listeners';

/** Options of {@link attachTunnel}. */
export interface TunnelOptions {
  /** The bearer token CONNECT requests must carry; undefined = none (an open server). */
  readonly token: string | undefined;
  /** The only ports on 127.0.0.1 a CONNECT may open. */
  readonly ports: readonly number[];
  /** Refuses (502) a listener that is not the harness's, with a log line saying why. */
  readonly guard?: ListenerGuard;
  readonly log?: (message: string) => void;
}

function refuse(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * Answers `CONNECT 127.0.0.1:PORT` (PORT one of `ports`, token required) by piping the connection
 * to that port; anything else gets 401 / 403 and is closed.
 */
export function attachTunnel(server: Server, options: TunnelOptions): void {
  const digest = options.token ? createHash('sha256').update(options.token).digest() : undefined;
  server.on('connect', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (digest) {
      const match = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
      const given = createHash('sha256')
        .update(match?.[1] ?? '')
        .digest();
      if (!match || !timingSafeEqual(given, digest)) {
        refuse(socket, '401 Unauthorized');
        return;
      }
    }
    const target = /^127\.0\.0\.1:(\d+)$/.exec(request.url ?? '');
    const port = target ? Number(target[1]) : NaN;
    if (!options.ports.includes(port)) {
      refuse(socket, '403 Forbidden');
      return;
    }
    const verdict = options.guard?.check(port) ?? { ok: true };
    if (!verdict.ok) {
      options.log?.(`bridge refused: ${verdict.why}`);
      refuse(socket, '502 Bad Gateway');
      return;
    }
    const upstream = connect({ host: '127.0.0.1', port }, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    upstream.on('error', () => {
      if (!socket.destroyed) refuse(socket, '502 Bad Gateway');
    });
    socket.on('close', () => upstream.destroy());
    upstream.on('close', () => socket.destroy());
  });
}
