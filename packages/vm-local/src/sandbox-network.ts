import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { EGRESS_SINK_LINK, RECORDING_DNS } from '@osharm/desktop-guest';

// Opt-in network for a sandbox (`network: true`): user-mode networking by slirp4netns (Debian's
// package) attached to the sandbox's own network namespace. The sandbox gets `tap0` (10.0.2.100/24,
// default route via 10.0.2.2, DNS at 10.0.2.3); with --disable-host-loopback nothing listening on
// the host's loopback is reachable from inside. Without it the sandbox has only its own `lo`.

/** The DNS forwarder slirp4netns offers inside (its resolv.conf names it). */
const SLIRP_DNS = '10.0.2.3';

/** Where slirp4netns is looked for. */
const SLIRP_CANDIDATES = ['/usr/bin/slirp4netns', '/usr/local/bin/slirp4netns'];

/** The slirp4netns binary (an executable regular file), or undefined when it is not installed. */
export function slirp4netnsPath(): string | undefined {
  return SLIRP_CANDIDATES.find(path => {
    try {
      accessSync(path, constants.X_OK);
      return statSync(path).isFile();
    } catch {
      return false;
    }
  });
}

/**
 * The guest server's network settings (guest/sandbox-session.sh reads them): the nameserver, and
 * without a network the egress sink the provider adds (@osharm/desktop-guest's addEgressSink).
 */
export function sandboxDnsEnv(network: boolean): Record<string, string> {
  return {
    OSHARM_DNS_LISTEN: `${RECORDING_DNS.host}:${RECORDING_DNS.port}`,
    ...(network
      ? { OSHARM_DNS_FORWARD: `${SLIRP_DNS}:53` }
      : { OSHARM_EGRESS_SINK: EGRESS_SINK_LINK }),
  };
}

/** Reads bwrap's `--info-fd` JSON and returns the sandbox's first process (its namespaces' holder). */
export function readChildPid(info: Readable, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(
      () => reject(new Error(`bwrap did not report its child pid within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const settle = () => {
      try {
        const pid = (JSON.parse(text) as { 'child-pid'?: unknown })['child-pid'];
        if (typeof pid === 'number' && Number.isInteger(pid) && pid > 1) {
          clearTimeout(timer);
          resolve(pid);
        }
      } catch {
        // not complete yet
      }
    };
    info.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      settle();
    });
    info.once('end', () => {
      settle();
      clearTimeout(timer);
      reject(new Error(`bwrap's info output had no child pid: ${text.slice(0, 200)}`));
    });
  });
}

/** A running slirp4netns. */
export interface SandboxNetwork {
  readonly description: string;
  /** Ends slirp4netns (the namespace's other end). Idempotent. */
  stop(): Promise<void>;
}

/**
 * Attaches user-mode networking to the network namespace of `childPid` and waits until `tap0` is
 * configured inside. As root, slirp4netns opens the namespace itself and then drops its
 * capabilities (`--enable-sandbox`); otherwise it first joins the sandbox's user namespace.
 * @throws {Error} naming slirp4netns' own message when it cannot attach within `timeoutMs`.
 */
export async function attachNetwork(options: {
  readonly childPid: number;
  readonly timeoutMs: number;
  readonly onLog?: (line: string) => void;
}): Promise<SandboxNetwork> {
  const slirp = slirp4netnsPath();
  if (slirp === undefined) {
    throw new Error(
      'network: slirp4netns is not installed (apt-get install slirp4netns), needed for a sandbox with a network',
    );
  }
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const namespaces = `/proc/${options.childPid}/ns`;
  const args = [
    '--configure',
    '--mtu=65520',
    '--disable-host-loopback',
    '--ready-fd=3',
    ...(root ? ['--enable-sandbox'] : [`--userns-path=${namespaces}/user`]),
    '--netns-type=path',
    `${namespaces}/net`,
    'tap0',
  ];
  const child = spawn(slirp, args, {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
  });
  let log = '';
  const append = (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  let exited = false;
  const exit = new Promise<void>(resolve => child.once('exit', () => resolve()));
  void exit.then(() => {
    exited = true;
  });
  const stop = async () => {
    if (!exited && child.pid) {
      child.kill('SIGTERM');
      await Promise.race([exit, new Promise(resolve => setTimeout(resolve, 2_000))]);
      if (!exited) child.kill('SIGKILL');
    }
  };
  const ready = child.stdio[3] as Readable;
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`not configured within ${options.timeoutMs} ms`)),
        options.timeoutMs,
      );
      ready.once('data', () => {
        clearTimeout(timer);
        resolve();
      });
      child.once('error', error => {
        clearTimeout(timer);
        reject(error);
      });
      void exit.then(() => {
        clearTimeout(timer);
        reject(new Error('it exited'));
      });
    });
  } catch (error) {
    await stop();
    throw new Error(
      `network: slirp4netns could not attach to the sandbox's network namespace (${(error as Error).message}): ${log.trim()}`,
      { cause: error },
    );
  }
  for (const line of log.split('\n')) if (line.trim()) options.onLog?.(`slirp4netns: ${line}`);
  return {
    description: `slirp4netns (tap0 10.0.2.100/24, DNS ${SLIRP_DNS}, host loopback blocked)`,
    stop,
  };
}
