// The host-side bridge to the guest port of a pod through the API server's port-forward (one
// WebSocket per connection, the client's PortForward). The other bridges (Chromium's / VLC's ports
// through the guest server's CONNECT tunnel) are desktop-env's provider kit's.
import type { Server } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { PortForward } from '@kubernetes/client-node';
import { listenBridge } from '@osharm/desktop-env/provider-kit';

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
  return listenBridge(client => {
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
