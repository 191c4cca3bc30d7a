// Host-side TCP bridges on 127.0.0.1 into a desktop: every connection is carried over the guest
// channel (the guest server's CONNECT tunnel, with the token) or another carrier a provider gives
// (a pinned socket, a port-forward). The host never connects to anything the desktop could plant.
import type { Server, Socket } from 'node:net';
import { connect, createServer } from 'node:net';
import { tunnelToGuestPort, type GuestAddress } from '../guest-tunnel';

const connections = new WeakMap<Server, Set<Socket>>();

/**
 * A server on 127.0.0.1 (`port`, default any free one) handing each connection to `onConnection`;
 * its connections are tracked so {@link closeBridge} cuts them.
 */
export function listenBridge(onConnection: (client: Socket) => void, port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const open = new Set<Socket>();
    const server = createServer(client => {
      open.add(client);
      client.on('close', () => open.delete(client));
      onConnection(client);
    });
    connections.set(server, open);
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** The port a bridge listens on. */
export function bridgePort(server: Server): number {
  const address = server.address();
  return address && typeof address === 'object' ? address.port : 0;
}

/** Closes a bridge; its open connections are cut. */
export function closeBridge(server: Server): Promise<void> {
  return new Promise(resolve => {
    server.close(() => resolve());
    for (const client of connections.get(server) ?? []) client.destroy();
  });
}

/**
 * A port on 127.0.0.1 whose every connection is tunnelled to `127.0.0.1:<port>` inside the desktop
 * by the guest server at `guest` (HTTP CONNECT with the token; the guest server opens only the
 * ports it was told to allow).
 */
export function tunnelBridge(guest: GuestAddress, token: string, port: number): Promise<Server> {
  return listenBridge(client => tunnelToGuestPort(client, guest, token, port));
}

/** A port on 127.0.0.1 (`port`, default any free one) forwarding to a pinned guest socket. */
export function socketBridge(socketPath: string, port = 0): Promise<Server> {
  return listenBridge(client => {
    const upstream = connect(socketPath);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  }, port);
}
