import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { chmod, chown, copyFile, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:net';
import type { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { GuestEndpoint } from '@osharm/desktop-env';
import {
  bridgePort,
  closeBridge,
  pinGuestSocket,
  sealHarnessDir,
  socketBridge,
  tunnelBridge,
} from '@osharm/desktop-env/provider-kit';
import {
  addEgressSink,
  guestPackageDir,
  guestRequest,
  RECORDING_DNS,
  readDesktopShell,
  sandboxResolvConf,
} from '@osharm/desktop-guest';
import type { DesktopShell, DesktopShellName, RecordingSettings } from '@osharm/desktop-guest';
import { bubblewrapArgs, inside } from './sandbox-args';
import { createSandboxLimits, removeStaleCgroups, type CpuWeight } from './sandbox-limits';
import type { LimitUsage, ResourceLimits } from './sandbox-limits';
import { assertReadableBy, executeOnlyCopy } from './sandbox-runtime';
import { attachNetwork, readChildPid, sandboxDnsEnv } from './sandbox-network';
import type { SandboxNetwork } from './sandbox-network';
import {
  lowerSandboxPortStart,
  SANDBOX_SITE_BACKEND_PORT,
  SANDBOX_SITE_HOSTS,
  sandboxHostsFile,
} from './sandbox-sites';
import { createStateDir, reapStaleStateDirs } from './sandbox-state';
import { writeChromiumEtc } from './sandbox-chromium';
import { readSudoLog } from './sandbox-sudo-log';
import type { SudoAttempt } from './sandbox-sudo-log';
import { readSystemLog } from './sandbox-system-log';
import type { SystemServiceCall } from './sandbox-system-log';

/** Ports inside the sandbox that get a host-side TCP bridge. */
const bridgedPorts = { cdp: 9222, vlc: 8080 } as const;

/** Everything {@link startSandbox} needs (resolved provider settings). */
export interface SandboxOptions {
  readonly screen: { readonly width: number; readonly height: number };
  readonly env: Readonly<Record<string, string>>;
  readonly startTimeoutMs: number;
  readonly accessibilityDeadlineMs: number;
  /** How the guest server records the screen (validated). */
  readonly recording: RecordingSettings;
  /** Host uid/gid bwrap runs as when the harness is root; null keeps root (mapped to uid 1000). */
  readonly hostUid: number | null;
  readonly workDir: string;
  readonly tmpfsSizeMb: number;
  readonly limits: ResourceLimits;
  readonly bwrap: string;
  /** Also serve the guest server on 127.0.0.1 (0 = any free port); undefined = socket only. */
  readonly tcpPort: number | undefined;
  /** The Node binary to run the guest server with. @default process.execPath */
  readonly nodePath?: string;
  /** The guest package directory to bind (dist/ and guest/). @default @osharm/desktop-guest's */
  readonly packageDir?: string;
  /** User-mode networking (slirp4netns); default: no network, only the sandbox's own loopback. */
  readonly network?: boolean;
  /** The shell to start (openbox runs instead when GNOME Shell cannot start). @default 'gnome-shell' */
  readonly shell?: DesktopShellName;
  /** Its share of contended CPU from the start (`background`: a warm spare). @default 'normal' */
  readonly cpuWeight?: CpuWeight;
  readonly onLog?: (line: string) => void;
  readonly abortSignal?: AbortSignal;
}

/** A running sandbox. */
export interface RunningSandbox {
  readonly endpoint: GuestEndpoint;
  /** PID of the outer bwrap process (killing it ends everything inside). */
  readonly pid: number;
  /** Which shell the desktop runs (read from the desktop before anything else ran in it). */
  readonly shell: DesktopShell;
  /** The host directory bound at /run/harness (the guest server's socket; read-only once started). */
  readonly harnessDir: string;
  /** What enforces the resource limits (`cgroup v1 (memory, pids, cpu)`, …). */
  readonly limitMechanism: string;
  /** The limits' counters (peak memory, OOM kills, refused forks). */
  limitUsage(): LimitUsage;
  /** Sets its share of contended CPU (a warm spare taken over goes back to `normal`); false when the limits have no CPU weight. */
  setCpuWeight(weight: CpuWeight): Promise<boolean>;
  /** The last lines the sandbox wrote to stdout/stderr. */
  logTail(): string;
  sudoAttempts(): Promise<SudoAttempt[]>;
  systemCalls(): Promise<SystemServiceCall[]>;
  /** True once the sandbox has exited (crashed or stopped). */
  readonly exited: boolean;
  /** Kills everything inside and removes the host-side state. Idempotent. */
  destroy(): Promise<void>;
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Writes the files bwrap binds (passwd, group, hostname, the shims) into the state directory. */
async function writeStateFiles(stateDir: string, packageDir: string): Promise<void> {
  const binDir = join(stateDir, 'bin');
  await mkdir(binDir);
  for (const name of await readdir(join(packageDir, 'guest', 'bin'))) {
    await copyFile(join(packageDir, 'guest', 'bin', name), join(binDir, name));
    await chmod(join(binDir, name), 0o755);
  }
  await writeFile(
    join(stateDir, 'passwd'),
    'root:x:0:0:root:/root:/bin/bash\nuser:x:1000:1000:User:/home/user:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n',
  );
  await writeFile(
    join(stateDir, 'group'),
    'root:x:0:\nsudo:x:27:user\nuser:x:1000:\nnogroup:x:65534:\n',
  );
  await writeFile(join(stateDir, 'hostname'), 'desktop\n');
  await writeFile(join(stateDir, 'hosts'), sandboxHostsFile('desktop', SANDBOX_SITE_HOSTS));
  await writeFile(join(stateDir, 'resolv.conf'), sandboxResolvConf());
}

/**
 * Starts one sandboxed desktop and waits until its guest server answers.
 * @throws {Error} when the sandbox exits early, is aborted, does not answer within the timeout,
 *   or (as root) the unprivileged host account cannot read the package.
 */
export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const packageDir = options.packageDir ?? realpathSync(guestPackageDir());
  if (!existsSync(join(packageDir, 'dist', 'guest-server-bin.js'))) {
    throw new Error(
      `${join(packageDir, 'dist', 'guest-server-bin.js')} is missing: build @osharm/desktop-guest first`,
    );
  }
  await mkdir(options.workDir, { recursive: true });
  const reaped = await reapStaleStateDirs(options.workDir);
  if (reaped.length > 0) {
    await removeStaleCgroups(reaped);
    options.onLog?.(
      `osharm vm-local: removed ${reaped.length} state dir(s) of harness processes that are gone`,
    );
  }
  // As root, bwrap runs as an unprivileged host account so that the sandbox's uid 1000 is not host
  // root (it could read root-only host files otherwise). Never silently otherwise: the package
  // must be readable by that account, and Node is copied where it can run it.
  const runAs = isRoot() && options.hostUid !== null ? options.hostUid : null;
  if (runAs !== null) assertReadableBy(runAs, packageDir, options.workDir);
  const nodePath = await executeOnlyCopy(
    options.workDir,
    realpathSync(options.nodePath ?? process.execPath),
    'node',
  );
  const pythonPath = await executeOnlyCopy(options.workDir, '/usr/bin/python3', 'python3');

  const stateDir = await createStateDir(options.workDir);
  const harnessDir = join(stateDir, 'harness');
  const controlDir = join(stateDir, 'control');
  await mkdir(harnessDir, { mode: 0o700 });
  await mkdir(controlDir, { mode: 0o700 });
  await writeStateFiles(stateDir, packageDir);
  const chromiumEtc = await writeChromiumEtc(stateDir, packageDir);
  const resolvConf = join(stateDir, 'resolv.conf');

  // The token and the caller's extra environment travel in files only the sandbox account can
  // read (bwrap's command line, --setenv included, is visible to every host user in `ps`); the
  // init script moves them out of the harness directory before anything else runs.
  const token = randomBytes(24).toString('base64url');
  const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
  const extraEnv = Object.entries(options.env)
    .filter(([name]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    .map(([name, value]) => `export ${name}=${shellQuote(value)}\n`)
    .join('');
  await writeFile(join(harnessDir, '.token'), token, { mode: 0o600 });
  await writeFile(join(harnessDir, '.env'), extraEnv, { mode: 0o600 });
  if (runAs !== null) {
    await chmod(stateDir, 0o711);
    for (const path of [harnessDir, join(harnessDir, '.token'), join(harnessDir, '.env')]) {
      await chown(path, runAs, runAs);
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
    OSHARM_DESKTOP_SHELL: options.shell ?? 'gnome-shell',
    // GNOME Shell's start gets 75 % of the start timeout; openbox then runs in the time left.
    OSHARM_SHELL_START_TIMEOUT_S: String(Math.max(5, Math.floor(options.startTimeoutMs * 0.00075))),
    OSHARM_SITE_HOSTS: SANDBOX_SITE_HOSTS.join(' '),
    // The harm observer's exec watch (desktop-guest): on unless 0; python: not its C twin.
    OSHARM_EXEC_WATCH: /^(0|python)$/.exec(process.env.OSHARM_EXEC_WATCH ?? '')?.[0] ?? '1',
    OSHARM_SITE_BACKEND: String(SANDBOX_SITE_BACKEND_PORT),
    ...sandboxDnsEnv(options.network === true),
    OSHARM_SERVER_ARGS: [
      ...Object.values(bridgedPorts).map(port => `--tunnel-port ${port}`),
      `--helper-python ${inside.python}`,
      `--a11y-deadline-ms ${options.accessibilityDeadlineMs}`,
      `--recording-fps ${options.recording.fps}`,
      `--recording-preset ${options.recording.preset}`,
      `--recording-threads ${options.recording.threads}`,
      `--recording-crf ${options.recording.crf}`,
    ].join(' '),
  };
  const overrideSudo = ['/usr/bin/sudo', '/usr/bin/su'].filter(path => existsSync(path));
  const args = bubblewrapArgs({
    stateDir,
    harnessDir,
    packageDir,
    nodePath,
    pythonPath,
    env,
    tmpfsSizeMb: options.tmpfsSizeMb,
    overrideSudo,
    resolvConf,
    chromiumEtc,
    infoFd: 3,
  });
  const dropped: [string, string[]] =
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
  const limits = await createSandboxLimits(basename(stateDir), options.limits, options.onLog);
  // set before anything runs inside: every process of the desktop starts in its cgroup
  if (options.cpuWeight === 'background') await limits.setCpuWeight('background');
  const [command, commandArgs] = limits.wrap(...dropped);

  let log = '';
  const appendLog = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    log = (log + text).slice(-64 * 1024);
    if (options.onLog) for (const line of text.split('\n')) if (line.trim()) options.onLog(line);
  };
  const child: ChildProcess = spawn(command, commandArgs, {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
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

  const bridges: Server[] = [];
  let network: SandboxNetwork | undefined;
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
    await network?.stop();
    await limits.remove();
    await Promise.all(bridges.map(server => closeBridge(server)));
    await chmod(harnessDir, 0o700).catch(() => undefined);
    await rm(stateDir, { recursive: true, force: true }).catch(() => undefined);
  };

  let endpointBase: GuestEndpoint | undefined;
  let shell: DesktopShell;
  try {
    const childPid = await readChildPid(child.stdio[3] as Readable, options.startTimeoutMs).catch(
      (error: Error) => {
        throw exited
          ? new Error(`the sandbox exited during start-up:\n${log.trim().slice(-4000)}`)
          : error;
      },
    );
    // HTTPS for the site hosts on port 443 of the sandbox's own namespace (guest/site-tls.sh), the
    // recording nameserver on port 53 (guest-dns.ts) and, without a network, the egress sink
    // (@osharm/desktop-guest's addEgressSink): without them the desktop still starts; the harm record says so.
    const logError = (error: Error) =>
      appendLog(Buffer.from(`osharm vm-local: ${error.message}\n`));
    await lowerSandboxPortStart(childPid, RECORDING_DNS.port).catch(logError);
    if (!options.network) await addEgressSink(childPid).catch(logError);
    else network = await attachNetwork({ childPid, timeoutMs: 10_000, onLog: options.onLog });
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
      if (!endpointBase && existsSync(join(harnessDir, 'guest.sock'))) {
        // Pinned before the first request (and so before any agent code can run inside).
        const socketPath = await pinGuestSocket(harnessDir, controlDir);
        endpointBase = {
          baseUrl: 'http://localhost',
          host: 'localhost',
          serverPort: 0,
          socketPath,
          token,
          screen: { width, height },
        };
      }
      if (endpointBase) {
        const answer = await guestRequest(endpointBase, '/platform', { timeoutMs: 2_000 }).catch(
          () => undefined,
        );
        if (answer?.status === 200) break;
      }
      await delay(10);
    }
    await sealHarnessDir(harnessDir);
    shell = await readDesktopShell(endpointBase, options.shell ?? 'gnome-shell');
    const channel = { socketPath: endpointBase.socketPath as string, token };
    for (const port of Object.values(bridgedPorts))
      bridges.push(await tunnelBridge({ socketPath: channel.socketPath }, channel.token, port));
    if (options.tcpPort !== undefined)
      bridges.push(await socketBridge(channel.socketPath, options.tcpPort));
  } catch (error) {
    await destroy();
    throw error;
  }
  const port = (server: Server | undefined) => (server ? bridgePort(server) : 0);
  const tcpPort = options.tcpPort !== undefined ? port(bridges[2]) : undefined;
  const endpoint: GuestEndpoint = {
    ...endpointBase,
    ...(tcpPort
      ? { baseUrl: `http://127.0.0.1:${tcpPort}`, host: '127.0.0.1', serverPort: tcpPort }
      : {}),
    chromiumUrl: `http://127.0.0.1:${port(bridges[0])}`,
    vlcUrl: `http://127.0.0.1:${port(bridges[1])}`,
  };
  const channelEndpoint = endpointBase;

  return {
    endpoint,
    pid: child.pid as number,
    shell,
    harnessDir,
    limitMechanism: limits.mechanism,
    limitUsage: () => limits.usage(),
    setCpuWeight: weight => limits.setCpuWeight(weight),
    logTail: () => log,
    get exited() {
      return exited;
    },
    sudoAttempts: () => {
      if (exited || destroyed)
        return Promise.reject(new Error('the desktop has ended; its sudo record went with it'));
      return readSudoLog(channelEndpoint);
    },
    systemCalls: () => {
      if (exited || destroyed)
        return Promise.reject(new Error('the desktop has ended; its system log went with it'));
      return readSystemLog(channelEndpoint);
    },
    destroy,
  };
}

/** The default directory for per-sandbox host state. */
export function defaultWorkDir(): string {
  return join(tmpdir(), 'osharm-vm-local');
}
