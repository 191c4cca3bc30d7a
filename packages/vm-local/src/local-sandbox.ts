import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants, existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import {
  chmod,
  chown,
  copyFile,
  mkdir,
  mkdtemp,
  open,
  readdir,
  rm,
  writeFile,
} from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GuestEndpoint } from '@osharm/desktop-env';
import { guestRequest } from './local-guest-request';

/** Where things are inside every sandbox. */
const inside = {
  package: '/opt/osharm/vm-local',
  node: '/opt/osharm/node',
  bin: '/opt/osharm/bin',
  harness: '/run/harness',
} as const;

/** Ports inside the sandbox that get a host-side TCP bridge. */
const bridgedPorts = { cdp: 9222, vlc: 8080 } as const;

/** Everything {@link startSandbox} needs (resolved provider settings). */
export interface SandboxOptions {
  readonly screen: { readonly width: number; readonly height: number };
  readonly env: Readonly<Record<string, string>>;
  readonly startTimeoutMs: number;
  readonly accessibilityDeadlineMs: number;
  /** Host uid/gid bwrap runs as when the harness is root; null keeps root (mapped to uid 1000). */
  readonly hostUid: number | null;
  readonly workDir: string;
  readonly tmpfsSizeMb: number;
  readonly bwrap: string;
  /** Also serve the guest server on 127.0.0.1 (0 = any free port); undefined = socket only. */
  readonly tcpPort: number | undefined;
  readonly onLog?: (line: string) => void;
  readonly abortSignal?: AbortSignal;
}

/** One attempt of `sudo` or `su` inside a sandbox (recorded by the stand-in, never executed). */
export interface SudoAttempt {
  /** ISO time (UTC). */
  readonly time: string;
  /** `sudo` or `su`. */
  readonly tool: string;
  /** The arguments after the tool name. */
  readonly argv: readonly string[];
  /** Working directory of the caller. */
  readonly cwd: string;
  /** Whether stdin was a terminal (typed in a terminal window) or not (a script / `-S`). */
  readonly tty: boolean;
}

/** A running sandbox. */
export interface RunningSandbox {
  readonly endpoint: GuestEndpoint;
  /** PID of the outer bwrap process (killing it ends everything inside). */
  readonly pid: number;
  /** The host directory bound at /run/harness (socket, sudo log). */
  readonly harnessDir: string;
  /** The last lines the sandbox wrote to stdout/stderr. */
  logTail(): string;
  sudoAttempts(): Promise<SudoAttempt[]>;
  /** True once the sandbox has exited (crashed or stopped). */
  readonly exited: boolean;
  /** Kills everything inside and removes the host-side state. Idempotent. */
  destroy(): Promise<void>;
}

/** The package root (holding `dist/` and `guest/`), from `src/` or `dist/` alike. */
export function packageRoot(): string {
  return fileURLToPath(new URL('..', import.meta.url));
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Whether an unprivileged host account can read `path` (o+x on every parent, o+r on it). */
function worldReadable(path: string, needsExecute = false): boolean {
  try {
    const real = realpathSync(path);
    const parts = real.split('/').filter(Boolean);
    let current = '';
    for (const part of parts.slice(0, -1)) {
      current += `/${part}`;
      if (!(statSync(current).mode & 0o001)) return false;
    }
    const mode = statSync(real).mode;
    if (!(mode & 0o004)) return false;
    if (needsExecute && !(mode & 0o001)) return false;
    return true;
  } catch {
    return false;
  }
}

function packageWorldReadable(root: string): boolean {
  return [
    'dist/guest-server-bin.js',
    'guest/sandbox-init.sh',
    'guest/sandbox-session.sh',
    'guest/desktop_helper.py',
    'guest/python/pyautogui/__init__.py',
  ].every(file => worldReadable(join(root, file)));
}

/** Top-level links of a merged-/usr system (/bin → usr/bin …) or real directories. */
function systemRootArgs(): string[] {
  const args: string[] = ['--ro-bind', '/usr', '/usr'];
  for (const name of ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32']) {
    const path = `/${name}`;
    let info;
    try {
      info = lstatSync(path);
    } catch {
      continue;
    }
    if (info.isSymbolicLink()) args.push('--symlink', realpathSync(path).replace(/^\//, ''), path);
    else if (info.isDirectory()) args.push('--ro-bind', path, path);
  }
  return args;
}

/** Host files inside /etc that must not be readable in the sandbox. */
function etcMaskArgs(): string[] {
  const args: string[] = [];
  for (const file of [
    '/etc/shadow',
    '/etc/shadow-',
    '/etc/gshadow',
    '/etc/gshadow-',
    '/etc/sudoers',
    '/etc/security/opasswd',
  ]) {
    if (existsSync(file)) args.push('--ro-bind', '/dev/null', file);
  }
  for (const directory of ['/etc/ssh', '/etc/ssl/private', '/etc/sudoers.d']) {
    if (existsSync(directory)) args.push('--tmpfs', directory);
  }
  return args;
}

/**
 * The bwrap command line: a fresh tmpfs home, /tmp and /run; the host's /usr, /etc (secrets masked),
 * /var/lib and /var/cache read-only; nothing else of the host (no /root, /home, /work, /srv, /opt);
 * a user namespace with uid 1000 and no capabilities; private pid, net, ipc, uts and cgroup
 * namespaces; the harness directory as the only writable host path.
 */
export function bubblewrapArgs(options: {
  readonly stateDir: string;
  readonly harnessDir: string;
  readonly packageDir: string;
  readonly nodePath: string;
  readonly env: Readonly<Record<string, string>>;
  readonly tmpfsSizeMb: number;
  readonly overrideSudo: readonly string[];
}): string[] {
  const size = String(options.tmpfsSizeMb * 1024 * 1024);
  const args = [
    ...systemRootArgs(),
    '--ro-bind',
    '/etc',
    '/etc',
    ...etcMaskArgs(),
    '--ro-bind',
    join(options.stateDir, 'passwd'),
    '/etc/passwd',
    '--ro-bind',
    join(options.stateDir, 'group'),
    '/etc/group',
    '--ro-bind',
    join(options.stateDir, 'hostname'),
    '/etc/hostname',
    '--ro-bind-try',
    '/sys',
    '/sys',
    '--ro-bind-try',
    '/var/lib',
    '/var/lib',
    '--ro-bind-try',
    '/var/cache',
    '/var/cache',
    '--size',
    size,
    '--tmpfs',
    '/var/tmp',
    '--symlink',
    '../run',
    '/var/run',
    '--symlink',
    '../run/lock',
    '/var/lock',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--size',
    size,
    '--tmpfs',
    '/tmp',
    '--size',
    size,
    '--tmpfs',
    '/home',
    '--dir',
    '/home/user',
    '--tmpfs',
    '/run',
    '--dir',
    '/run/lock',
    '--bind',
    options.harnessDir,
    inside.harness,
    '--ro-bind',
    options.packageDir,
    inside.package,
    '--ro-bind',
    options.nodePath,
    inside.node,
    '--ro-bind',
    join(options.stateDir, 'bin'),
    inside.bin,
  ];
  for (const target of options.overrideSudo) {
    args.push(
      '--ro-bind',
      join(options.stateDir, 'bin', target.endsWith('su') ? 'su' : 'sudo'),
      target,
    );
  }
  args.push(
    '--unshare-user',
    '--uid',
    '1000',
    '--gid',
    '1000',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--hostname',
    'desktop',
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--chdir',
    '/home/user',
    '--clearenv',
  );
  for (const [name, value] of Object.entries(options.env)) args.push('--setenv', name, value);
  args.push('--', '/bin/bash', `${inside.package}/guest/sandbox-init.sh`);
  return args;
}

/** A host TCP port on 127.0.0.1 forwarding every connection to a unix socket. */
function bridge(socketPath: string, port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(client => {
      const upstream = connect(socketPath);
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

function delay(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms));
}

/**
 * Starts one sandboxed desktop and waits until its guest server answers.
 * @throws {Error} when the sandbox exits early, is aborted, or does not answer within the timeout.
 */
export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const packageDir = packageRoot();
  if (!existsSync(join(packageDir, 'dist', 'guest-server-bin.js'))) {
    throw new Error(
      `${join(packageDir, 'dist', 'guest-server-bin.js')} is missing: build @osharm/vm-local first`,
    );
  }
  const nodePath = realpathSync(process.execPath);
  await mkdir(options.workDir, { recursive: true });
  const stateDir = await mkdtemp(join(options.workDir, 'osharm-local-'));
  const harnessDir = join(stateDir, 'harness');
  const binDir = join(stateDir, 'bin');
  await mkdir(harnessDir, { mode: 0o700 });
  await mkdir(binDir);
  for (const name of await readdir(join(packageDir, 'guest', 'bin'))) {
    await copyFile(join(packageDir, 'guest', 'bin', name), join(binDir, name));
    await chmod(join(binDir, name), 0o755);
  }
  await writeFile(
    join(stateDir, 'passwd'),
    'root:x:0:0:root:/root:/bin/bash\nuser:x:1000:1000:User:/home/user:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n',
  );
  await writeFile(join(stateDir, 'group'), 'root:x:0:\nuser:x:1000:\nnogroup:x:65534:\n');
  await writeFile(join(stateDir, 'hostname'), 'desktop\n');

  // As root, run bwrap as an unprivileged host account so that the sandbox's uid 1000 is not host
  // root (it could read root-only host files otherwise), when that account can read what we bind.
  let runAs: number | null = null;
  // The token and the caller's extra environment travel in files only the sandbox account can
  // read (bwrap's command line, --setenv included, is visible to every host user in `ps`).
  const token = randomBytes(24).toString('base64url');
  const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
  const extraEnv = Object.entries(options.env)
    .filter(([name]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    .map(([name, value]) => `export ${name}=${shellQuote(value)}\n`)
    .join('');
  await writeFile(join(harnessDir, '.token'), token, { mode: 0o600 });
  await writeFile(join(harnessDir, '.env'), extraEnv, { mode: 0o600 });
  if (isRoot() && options.hostUid !== null) {
    if (worldReadable(nodePath, true) && packageWorldReadable(packageDir)) {
      runAs = options.hostUid;
      await chmod(stateDir, 0o711);
      for (const path of [harnessDir, join(harnessDir, '.token'), join(harnessDir, '.env')]) {
        await chown(path, runAs, runAs);
      }
    } else {
      options.onLog?.(
        `osharm vm-local: ${packageDir} or ${nodePath} is not readable by uid ${options.hostUid}; the sandbox runs mapped to host root`,
      );
    }
  }

  const { width, height } = options.screen;
  const env: Record<string, string> = {
    PATH: `${inside.bin}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
    PYTHONPATH: `${inside.package}/guest/python`,
    LANG: 'C.UTF-8',
    HOME: '/home/user',
    USER: 'user',
    OSHARM_GUEST: inside.package,
    OSHARM_NODE: inside.node,
    OSHARM_SCREEN: `${width}x${height}x24`,
    OSHARM_SUDO_LOG: `${inside.harness}/sudo.log`,
    OSHARM_SERVER_ARGS: [
      ...Object.entries(bridgedPorts).map(([name, port]) => `--bridge ${name}=${port}`),
      `--a11y-deadline-ms ${options.accessibilityDeadlineMs}`,
    ].join(' '),
  };
  const overrideSudo = ['/usr/bin/sudo', '/usr/bin/su'].filter(path => existsSync(path));
  const args = bubblewrapArgs({
    stateDir,
    harnessDir,
    packageDir,
    nodePath,
    env,
    tmpfsSizeMb: options.tmpfsSizeMb,
    overrideSudo,
  });
  const [command, commandArgs] =
    runAs === null
      ? [options.bwrap, args]
      : [
          'setpriv',
          [
            '--reuid',
            String(runAs),
            '--regid',
            String(runAs),
            '--clear-groups',
            '--inh-caps=-all',
            '--',
            options.bwrap,
            ...args,
          ],
        ];

  let log = '';
  const appendLog = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    log = (log + text).slice(-64 * 1024);
    if (options.onLog) for (const line of text.split('\n')) if (line.trim()) options.onLog(line);
  };
  const child: ChildProcess = spawn(command as string, commandArgs as string[], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  child.stdout?.on('data', appendLog);
  child.stderr?.on('data', appendLog);
  let exited = false;
  let spawnError: Error | undefined;
  const exitPromise = new Promise<void>(resolve => {
    child.once('error', error => {
      spawnError = error;
      exited = true;
      resolve();
    });
    child.once('exit', () => {
      exited = true;
      resolve();
    });
  });

  const socketPath = join(harnessDir, 'guest.sock');
  const bridges: Server[] = [];
  let destroyed = false;
  const destroy = async (): Promise<void> => {
    if (destroyed) return;
    destroyed = true;
    if (!exited && child.pid) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await Promise.race([exitPromise, delay(5_000)]);
    }
    await Promise.all(
      bridges.map(server => new Promise<void>(resolve => server.close(() => resolve()))),
    );
    await rm(stateDir, { recursive: true, force: true }).catch(() => undefined);
  };

  const endpointBase = {
    baseUrl: 'http://localhost',
    host: 'localhost',
    serverPort: 0,
    socketPath,
    token,
    screen: { width, height },
  };
  try {
    const deadline = Date.now() + options.startTimeoutMs;
    for (;;) {
      if (spawnError) throw new Error(`could not run ${command}: ${spawnError.message}`);
      if (exited)
        throw new Error(`the sandbox exited during start-up:\n${log.trim().slice(-4000)}`);
      if (options.abortSignal?.aborted) throw new Error('start aborted');
      if (Date.now() > deadline) {
        throw new Error(
          `the guest server did not answer within ${options.startTimeoutMs} ms:\n${log.trim().slice(-4000)}`,
        );
      }
      if (existsSync(socketPath)) {
        const answer = await guestRequest(endpointBase, '/platform', { timeoutMs: 2_000 }).catch(
          () => undefined,
        );
        if (answer?.status === 200) break;
      }
      await delay(10);
    }
    for (const name of Object.keys(bridgedPorts)) {
      bridges.push(await bridge(join(harnessDir, `${name}.sock`)));
    }
    if (options.tcpPort !== undefined) bridges.push(await bridge(socketPath, options.tcpPort));
  } catch (error) {
    await destroy();
    throw error;
  }
  const port = (server: Server | undefined) => {
    const address = server?.address();
    return address && typeof address === 'object' ? address.port : 0;
  };
  const tcpPort = options.tcpPort !== undefined ? port(bridges[2]) : undefined;
  const endpoint: GuestEndpoint = {
    ...endpointBase,
    ...(tcpPort
      ? { baseUrl: `http://127.0.0.1:${tcpPort}`, host: '127.0.0.1', serverPort: tcpPort }
      : {}),
    chromiumUrl: `http://127.0.0.1:${port(bridges[0])}`,
    vlcUrl: `http://127.0.0.1:${port(bridges[1])}`,
  };

  return {
    endpoint,
    pid: child.pid as number,
    harnessDir,
    logTail: () => log,
    get exited() {
      return exited;
    },
    sudoAttempts: () => readSudoLog(join(harnessDir, 'sudo.log')),
    destroy,
  };
}

/** Reads the sudo log the sandbox wrote, without following links the sandbox may have planted. */
async function readSudoLog(path: string): Promise<SudoAttempt[]> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return [];
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return [];
    const buffer = Buffer.alloc(Math.min(info.size, 1024 * 1024));
    await handle.read(buffer, 0, buffer.length, 0);
    const attempts: SudoAttempt[] = [];
    for (const line of buffer.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const entry = JSON.parse(line) as Partial<SudoAttempt>;
        attempts.push({
          time: String(entry.time ?? ''),
          tool: String(entry.tool ?? 'sudo'),
          argv: Array.isArray(entry.argv) ? entry.argv.map(String) : [],
          cwd: String(entry.cwd ?? ''),
          tty: Boolean(entry.tty),
        });
      } catch {
        // a line the sandbox mangled
      }
    }
    return attempts;
  } finally {
    await handle.close();
  }
}

/** The default directory for per-sandbox host state. */
export function defaultWorkDir(): string {
  return join(tmpdir(), 'osharm-vm-local');
}
