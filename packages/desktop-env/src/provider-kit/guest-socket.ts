// The guest server's socket as a provider hands it to the harness: pinned outside the desktop's
// reach, in a directory the desktop can no longer write.
import { lstatSync } from 'node:fs';
import { chmod, chown, link } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Pins the guest server's listening socket: hard-links `<harnessDir>/guest.sock` (which the
 * desktop created) to `<controlDir>/guest.sock` (a host directory the desktop cannot see).
 * The link names the socket inode itself, so renaming, deleting or replacing the path in the
 * harness directory afterwards changes nothing for the harness, and no connection ever follows a
 * path the desktop can write. Call it before any agent code runs (right after start-up).
 * @throws {Error} when the desktop's path is not a socket (a planted link or file).
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
 * Makes the harness directory read-only for the desktop once the socket exists (owner: the
 * harness's uid, mode 0555): nothing more can be written to the host's disk through it, and the
 * socket's name cannot be moved. (When the desktop maps to the harness's own uid — not root, or
 * `hostUid: null` — it owns the directory and could chmod it back; the pinned socket still holds.)
 */
export async function sealHarnessDir(harnessDir: string): Promise<void> {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  await chown(harnessDir, uid, gid).catch(() => undefined);
  await chmod(harnessDir, 0o555);
}
