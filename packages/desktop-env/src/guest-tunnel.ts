// The guest server's CONNECT route, from the host side: one TCP connection carried to a port
// inside the guest. Providers put a listening socket on 127.0.0.1 in front of it (their bridges).
import { request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';

/** Where the guest server listens: its (pinned) unix socket, or a host and port. */
export type GuestAddress =
  { readonly socketPath: string } | { readonly host: string; readonly port: number };

/**
 * Carries `client` to `127.0.0.1:<port>` inside the guest through the guest server's HTTP CONNECT
 * route (bearer token; the guest server opens only the ports it was told to allow). The client is
 * paused until the tunnel is up; a refused tunnel or an error on either side closes both.
 */
export function tunnelToGuestPort(
  client: Socket,
  guest: GuestAddress,
  token: string,
  port: number,
): void {
  client.pause();
  const tunnel = httpRequest({
    ...('socketPath' in guest
      ? { socketPath: guest.socketPath }
      : { host: guest.host, port: guest.port }),
    method: 'CONNECT',
    path: `127.0.0.1:${port}`,
    headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${token}` },
  });
  tunnel.on('connect', (response, upstream: Socket, head: Buffer) => {
    if (response.statusCode !== 200) {
      upstream.destroy();
      client.destroy();
      return;
    }
    if (head.length > 0) client.write(head);
    client.pipe(upstream).pipe(client);
    client.resume();
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  tunnel.on('error', () => client.destroy());
  client.on('error', () => tunnel.destroy());
  tunnel.end();
}
