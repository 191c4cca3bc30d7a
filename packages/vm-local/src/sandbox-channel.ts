// The harness's channel to a sandbox: the guest server's socket, pinned outside the sandbox's reach,
// and the host's TCP bridges, which reach ports inside only through that channel.
import { lstatSync } from 'node:fs';
import { chmod, chown, link } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { join } from 'node:path';
import { tunnelToGuestPort } from '@osharm/desktop-env';

/**
 * Pins the guest server's listening socket: hard-links `<harnessDir>/guest.sock` (which the
 * sandbox created) to `<controlDir>/guest.sock` (a host directory the sandbox cannot see).
 * The link names the socket inode itself, so renaming, deleting or replacing the path in the
 * harness directory afterwards changes nothing for the harness, and no connection ever follows a
 * path the sandbox can write. Call it before any agent code runs (right after start-up).
 * @throws {Error} when the sandbox's path is not a socket (a planted link or file).
 */
export async function pinGuestSocket(harnessDir: string, controlDir: string): Promise<string> {
  const source = join(harnessDir, 'guest.sock');
  const target = join(controlDir, 'guest.sock');
  const before = lstatSync(source);
  if (!before.isSocket()) throw new Error(`${source} is not a socket`);
  await link(source, target); // link(2) does not follow a symlink at the source
  const pinned = lstatSync(target);
  if (!pinned.isSocket() || pinned.ino !== before.ino)
    throw new Error(`${source} changed while it was being pinned`);
  return target;
}

/**
 * Makes the harness directory read-only for the sandbox once the socket exists (owner: the
 * harness's uid, mode 0555): nothing more can be written to the host's disk through it, and the
 * socket's name cannot be moved. (When the sandbox maps to the harness's own uid — not root, or
 * `hostUid: null` — it owns the directory and could chmod it back; the pinned socket still holds.)
 */
export async function sealHarnessDir(harnessDir: string): Promise<void> {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  await chown(harnessDir, uid, gid).catch(() => undefined);
  await chmod(harnessDir, 0o555);
}

/** The guest channel: the pinned socket path and the bearer token. */
export interface GuestChannel {
  readonly socketPath: string;
  readonly token: string;
}

/**
 * A host TCP port on 127.0.0.1 whose every connection is tunnelled to `127.0.0.1:<port>` inside the
 * sandbox by the guest server (HTTP CONNECT over the pinned socket, with the token). The host never
 * connects to a socket the sandbox could have planted; the guest server only opens the ports it was
 * told to allow.
 */
export function tunnelBridge(channel: GuestChannel, port: number): Promise<Server> {
  return listen(client =>
    tunnelToGuestPort(client, { socketPath: channel.socketPath }, channel.token, port),
  );
}

/** A host TCP port on 127.0.0.1 forwarding to the pinned guest socket (`exposeTcp`). */
export function socketBridge(socketPath: string, port: number): Promise<Server> {
  return listen(client => {
    const upstream = connect(socketPath);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  }, port);
}

function listen(onConnection: (client: Socket) => void, port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(onConnection);
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}
