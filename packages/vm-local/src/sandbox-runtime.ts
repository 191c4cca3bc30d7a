import { randomUUID } from 'node:crypto';
import { chmodSync, realpathSync, statSync } from 'node:fs';
import { chmod, copyFile, mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Whether an unprivileged host account can reach `path` (o+x on every parent, o+r on it). */
function worldReadable(path: string): boolean {
  try {
    const real = realpathSync(path);
    let current = '';
    for (const part of real.split('/').filter(Boolean).slice(0, -1)) {
      current += `/${part}`;
      if (!(statSync(current).mode & 0o001)) return false;
    }
    return (statSync(real).mode & 0o004) !== 0;
  } catch {
    return false;
  }
}

/** Whether an unprivileged host account can enter `directory` and everything above it. */
function worldTraversable(directory: string): boolean {
  try {
    let current = '';
    for (const part of realpathSync(directory).split('/').filter(Boolean)) {
      current += `/${part}`;
      if (!(statSync(current).mode & 0o001)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** The files of the package the sandbox reads (the guest server bundle and guest/). */
const packageFiles = [
  'dist/guest-server-bin.js',
  'guest/sandbox-init.sh',
  'guest/sandbox-session.sh',
  'guest/desktop_helper.py',
  'guest/a11y_walk.py',
  'guest/a11y_cells.py',
  'guest/a11y_tree.py',
  'guest/atspi_wire.py',
  'guest/dbus_codec.py',
  'guest/python/pyautogui/__init__.py',
  'guest/config/registrymodifications.xcu',
];

/**
 * Checks that the unprivileged account bwrap runs as (uid `hostUid`, when the harness is root) can
 * read the package and reach the state directory. Never falls back to running as root.
 * @throws {Error} naming what is not readable and how to fix it.
 */
export function assertReadableBy(hostUid: number, packageDir: string, workDir: string): void {
  const unreadable = packageFiles.filter(file => !worldReadable(join(packageDir, file)));
  if (unreadable.length > 0) {
    throw new Error(
      `${packageDir} is not readable by host uid ${hostUid}, which the sandbox runs as (${unreadable.join(', ')}); ` +
        `make it readable (chmod -R o+rX on it and o+x on its parents) or install osharm outside a private directory. ` +
        `(hostUid: null runs the sandbox mapped to host root instead; not recommended.)`,
    );
  }
  if (!worldTraversable(workDir)) {
    throw new Error(
      `the state directory ${workDir} is not reachable by host uid ${hostUid}, which the sandbox runs as; ` +
        `set workDir (or TMPDIR) to a directory whose parents are o+x`,
    );
  }
}

/**
 * An execute-only copy of a host binary (Node, Debian's Python) for the sandbox, shared by every
 * desktop started from `workDir`: `<workDir>/runtime/<name>-<dev>-<ino>-<size>-<mtime>`, mode 0111 in a
 * 0755 directory.
 *
 * - It is reachable by the unprivileged host account wherever the harness's Node lives (an nvm
 *   install under /root, a 0700 cache), so the sandbox never needs host root to start.
 * - Execute-only: a process that executes a file it cannot read is not dumpable from its first
 *   instruction on, so the guest server (Node) and its desktop helpers (Python) cannot be ptraced,
 *   nor their memory (the token), environment or file descriptors (the listening socket, the
 *   helpers' pipes) read, by the agent's processes of the same uid.
 */
export async function executeOnlyCopy(
  workDir: string,
  binary: string,
  name: string,
): Promise<string> {
  const real = realpathSync(binary);
  const info = statSync(real);
  const runtimeDir = join(workDir, 'runtime');
  await mkdir(runtimeDir, { recursive: true, mode: 0o755 });
  await chmod(runtimeDir, 0o755);
  const target = join(
    runtimeDir,
    `${name}-${info.dev}-${info.ino}-${info.size}-${Math.trunc(info.mtimeMs)}`,
  );
  try {
    const existing = statSync(target);
    if (existing.isFile() && existing.size === info.size && (existing.mode & 0o777) === 0o111)
      return target;
  } catch {
    // not there yet
  }
  // Copy under a private name, then rename: concurrent harnesses never see a partial binary. The
  // name is unique per call: desktops of one process start at once (same pid, same millisecond).
  const staging = `${target}.${process.pid}.${randomUUID()}.tmp`;
  try {
    await copyFile(real, staging);
    chmodSync(staging, 0o111);
    await rename(staging, target);
  } finally {
    await rm(staging, { force: true });
  }
  return target;
}
