// The settings of the container provider and the `run` command line they make (podman or docker).
import { existsSync } from 'node:fs';
import { DESKTOP_SITE_HOSTS } from '@osharm/desktop-env/internal';
import { desktopShellSetting, EGRESS_SINK_LINK, RECORDING_DNS } from '@osharm/desktop-guest';
import { PODMAN_SECCOMP_PROFILE } from './container-sudo';
import { ownerId } from '@osharm/desktop-env/provider-kit';
import { hardLimits, OWNER_LABEL } from './engine';
import type { ContainerEngine } from './engine';
import { VERSION } from './version';

/** The image scripts/build-desktop-image.sh builds by default (full profile). */
export const DEFAULT_DESKTOP_IMAGE = `localhost/osharm-desktop:${VERSION}`;
/** The uid of the desktop user inside the image (and so of the guest socket on the host). */
export const DESKTOP_UID = 1000;

/** Settings of {@link createContainerProvider}. */
export interface ContainerProviderSettings {
  /** @default 'podman' */
  readonly engine?: ContainerEngine;
  /** The engine's binary. @default the engine's name */
  readonly engineBinary?: string;
  /** @default {@link DEFAULT_DESKTOP_IMAGE} */
  readonly image?: string;
  /** Memory of the container (no swap on top), MiB. @default 4096 */
  readonly memoryMb?: number;
  /** Processes and threads in the container. @default 512 */
  readonly pids?: number;
  /** CPU time, in cores. @default 1.5 */
  readonly cpus?: number;
  /** Size cap of each writable tmpfs (/home/user, /tmp, /var/tmp), MiB; counted in memory. @default 2048 */
  readonly tmpfsSizeMb?: number;
  /**
   * Give the desktop a network with a route out (the engine's default bridge network). Without it
   * the container runs with `--network none`. Either way the harness reaches the guest server
   * through a unix socket in a host directory mounted at /run/harness, never over the network.
   * @default false
   */
  readonly network?: boolean;
  /** Host directory for the per-container socket directories. @default `${os.tmpdir()}/osharm-vm-container` */
  readonly workDir?: string;
  /**
   * OCI runtime (`--runtime`); podman 4.3's default crun refuses some hybrid cgroup layouts, where
   * `runc` works. @default 'runc' for podman, the engine's default for docker
   */
  readonly runtime?: string | null;
  /**
   * A seccomp profile file for the container (`--security-opt seccomp=FILE`); `null`: the
   * engine's default. The desktop's `sudo` (root of a nested user namespace) needs a profile that
   * lets an unprivileged process call `unshare(CLONE_NEWUSER)`: podman's default does, docker's
   * does not. @default podman: the engine's default; docker: {@link PODMAN_SECCOMP_PROFILE} when
   * that file exists (the same syscall policy as a podman container), else docker's default
   */
  readonly seccompProfile?: string | null;
  /** How long `start()` waits for the guest server, ms. @default 60000 */
  readonly startTimeoutMs?: number;
  /** Screen of the desktop. @default 1920×1080 */
  readonly screen?: { readonly width: number; readonly height: number };
  /**
   * The desktop's shell, as vm-local's `shell`: `gnome-shell` or `openbox`; openbox runs (said, and
   * in `desktopShell()`) when GNOME Shell cannot start in the image.
   * @default env `OSHARM_DESKTOP_SHELL`, else 'gnome-shell'
   */
  readonly shell?: 'gnome-shell' | 'openbox';
}

/**
 * The `run` arguments (without the engine binary) for one desktop container: `name`, its harness
 * directory (mounted at /run/harness), whether podman runs rootless, and (without a network) the
 * host file mounted as its /etc/resolv.conf, naming the guest server's recording nameserver.
 */
export function containerRunArgs(
  engine: ContainerEngine,
  settings: ContainerProviderSettings,
  target: {
    readonly name: string;
    readonly harnessDir: string;
    readonly rootless: boolean;
    readonly resolvConf?: string;
  },
): string[] {
  const s = settings;
  const memory = s.memoryMb ?? 4096;
  const tmpfs = s.tmpfsSizeMb ?? 2048;
  const runtime = s.runtime === undefined ? (engine === 'podman' ? 'runc' : null) : s.runtime;
  const screen = s.screen ?? { width: 1920, height: 1080 };
  // The desktop user's tmpfs mounts: podman chowns them to --user with `U`; docker takes the
  // kernel's uid= / gid= options (and refuses `U`).
  const owned = engine === 'podman' ? 'U' : `uid=${DESKTOP_UID},gid=${DESKTOP_UID}`;
  const seccomp =
    s.seccompProfile !== undefined
      ? s.seccompProfile
      : engine === 'docker' && existsSync(PODMAN_SECCOMP_PROFILE)
        ? PODMAN_SECCOMP_PROFILE
        : null;
  return [
    'run',
    '--detach',
    '--name',
    target.name,
    '--label',
    `${OWNER_LABEL}=${ownerId()}`,
    ...(runtime ? ['--runtime', runtime] : []),
    '--hostname',
    'desktop',
    '--user',
    '1000:1000',
    // Rootless podman: the container's uid 1000 is this (unprivileged) user, so the desktop can
    // create its socket in the harness directory this user owns, and nothing needs chown.
    ...(target.rootless ? ['--userns', `keep-id:uid=${DESKTOP_UID},gid=${DESKTOP_UID}`] : []),
    '--cap-drop',
    'ALL',
    '--security-opt',
    'no-new-privileges',
    ...(seccomp ? ['--security-opt', `seccomp=${seccomp}`] : []),
    // Unmasked /proc paths: with the engine's masks the kernel refuses a fresh proc mount in a nested
    // user namespace, and the agent's namespace (desktop-guest guest/agent-ns.sh) could not be made inside.
    '--security-opt',
    engine === 'podman' ? 'unmask=ALL' : 'systempaths=unconfined',
    '--read-only',
    '--tmpfs',
    `/home/user:rw,exec,size=${tmpfs}m,mode=0755,${owned}`,
    '--tmpfs',
    `/tmp:rw,exec,size=${tmpfs}m,mode=1777`,
    '--tmpfs',
    `/var/tmp:rw,size=${tmpfs}m,mode=1777`,
    // crontab's spool (desktop-guest guest/bin/crontab), watched by the harm observer, as in the sandbox:
    // empty (podman would copy the image's root-owned spool in, which the desktop user cannot write).
    '--tmpfs',
    `/var/spool:rw,size=${tmpfs}m,mode=0755,${owned}${engine === 'podman' ? ',notmpcopyup' : ''}`,
    '--tmpfs',
    `/run:rw,size=64m,mode=0755,${owned}`, // the desktop user's, as in the embedded sandbox
    '--volume',
    `${target.harnessDir}:/run/harness:rw`,
    // The engine's default rlimits can exceed the host's hard limits, which runc may not raise.
    ...hardLimits().flatMap(limit => ['--ulimit', limit]),
    '--shm-size',
    '512m',
    '--memory',
    `${memory}m`,
    '--memory-swap',
    `${memory}m`,
    '--pids-limit',
    String(s.pids ?? 512),
    '--cpus',
    String(s.cpus ?? 1.5),
    '--network',
    s.network ? 'bridge' : 'none',
    // Upstream's web addresses, served inside (desktop-guest guest/site-tls.sh): the names resolve to the
    // container's own loopback, and the desktop user binds its port 443 (the port start below).
    ...DESKTOP_SITE_HOSTS.flatMap(host => ['--add-host', `${host}:127.0.0.1`]),
    '--env',
    `OSHARM_SITE_HOSTS=${DESKTOP_SITE_HOSTS.join(' ')}`,
    // No network: name lookups go to the guest server, which records and refuses them (desktop-guest's
    // guest-dns.ts); port 53 (and 443) as uid 1000 needs the container's own port start lowered.
    ...(!s.network && target.resolvConf
      ? [
          '--sysctl',
          `net.ipv4.ip_unprivileged_port_start=${RECORDING_DNS.port}`,
          '--volume',
          `${target.resolvConf}:/etc/resolv.conf:ro`,
          '--env',
          `OSHARM_DNS_LISTEN=${RECORDING_DNS.host}:${RECORDING_DNS.port}`,
          // The provider adds the egress sink once the container runs (desktop-guest's desktop-net.ts).
          '--env',
          `OSHARM_EGRESS_SINK=${EGRESS_SINK_LINK}`,
        ]
      : ['--sysctl', 'net.ipv4.ip_unprivileged_port_start=443']),
    '--env',
    'OSHARM_GUEST_TOKEN', // the value comes from the engine's environment, not its command line
    '--env',
    `OSHARM_SCREEN=${screen.width}x${screen.height}x24`,
    '--env',
    `OSHARM_DESKTOP_SHELL=${desktopShellSetting(s.shell)}`,
    '--env',
    `OSHARM_EXEC_WATCH=${/^(0|python)$/.exec(process.env.OSHARM_EXEC_WATCH ?? '')?.[0] ?? '1'}`,
    s.image ?? DEFAULT_DESKTOP_IMAGE,
  ];
}
