// Host-side TCP bridges on 127.0.0.1: to the guest port of a pod through the API server's
// port-forward (one WebSocket per connection, the client's PortForward), and to Chromium's / VLC's
// ports inside the pod through the guest server's CONNECT tunnel (token required).
import type { Server, Socket } from 'node:net';
import { createServer } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { PortForward } from '@kubernetes/client-node';
import { tunnelToGuestPort } from '@osharm/desktop-env';

const connections = new WeakMap<Server, Set<Socket>>();

function listen(onConnection: (client: Socket) => void): Promise<Server> {
  return new Promise((resolve, reject) => {
    const open = new Set<Socket>();
    const server = createServer(client => {
      open.add(client);
      client.on('close', () => open.delete(client));
      onConnection(client);
    });
    connections.set(server, open);
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
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
 * A port on 127.0.0.1 whose every connection is carried to `port` of pod `namespace/name` by the
 * API server's port-forward (`pods/portforward`, a WebSocket per connection).
 */
export function portForwardBridge(
  config: KubeConfig,
  namespace: string,
  name: string,
  port: number,
): Promise<Server> {
  const forward = new PortForward(config);
  return listen(client => {
    client.on('error', () => client.destroy());
    forward
      .portForward(namespace, name, [port], client, null, client)
      .then(ws => {
        if (typeof ws === 'function') return; // only with retries, which are not asked for
        ws.on('close', () => client.destroy());
        ws.on('error', () => client.destroy());
        client.on('close', () => ws.close());
      })
      .catch(() => client.destroy());
  });
}

/**
 * A port on 127.0.0.1 whose every connection is tunnelled to `127.0.0.1:<port>` inside the pod by
 * the guest server at `guestHost:guestPort` (desktop-env's `tunnelToGuestPort`: HTTP CONNECT with
 * the token; the guest server opens only the ports it was told to allow).
 */
export function tunnelBridge(
  guestHost: string,
  guestPort: number,
  token: string,
  port: number,
): Promise<Server> {
  return listen(client =>
    tunnelToGuestPort(client, { host: guestHost, port: guestPort }, token, port),
  );
}
