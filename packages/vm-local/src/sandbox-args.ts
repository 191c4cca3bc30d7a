import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Where things are inside every sandbox. */
export const inside = {
  package: '/opt/osharm/desktop-guest',
  node: '/opt/osharm/node',
  /** Debian's python3, execute-only, for the guest server's desktop helpers. */
  python: '/opt/osharm/python3',
  bin: '/opt/osharm/bin',
  /** The host directory bound read-write (the guest server's socket only; sealed after start). */
  harness: '/run/harness',
  /** Sandbox state the desktop user shares (sudo's root namespace, shell record), on /run's tmpfs. */
  state: '/run/osharm',
  /** The append-only records (sudo log, system log): the guest server's, hidden from the agent. */
  records: '/run/user/1000/osharm/records',
  /** The server's private directory ($XDG_RUNTIME_DIR/osharm), masked in the agent's namespace. */
  private: '/run/user/1000/osharm',
  /** The record socket's directory (read-only in the agent's namespace). */
  recordSocketDir: '/run/osharm-log',
} as const;

/** Size of the tmpfs mounts that only mask a host directory (they stay empty and read-only). */
const maskSizeBytes = 64 * 1024;

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

/** Host files inside /etc that must not be readable in the sandbox; returns the masked dirs too. */
function etcMaskArgs(): { args: string[]; maskedDirs: string[] } {
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
  const maskedDirs = ['/etc/ssh', '/etc/ssl/private', '/etc/sudoers.d'].filter(directory =>
    existsSync(directory),
  );
  for (const directory of maskedDirs) {
    args.push('--size', String(maskSizeBytes), '--tmpfs', directory);
  }
  return { args, maskedDirs };
}

/**
 * Where the sandbox's resolv.conf is bound so that /etc/resolv.conf reads it: /etc/resolv.conf
 * itself, or, when the host's is a link (systemd-resolved's stub under /run), the link's target on
 * the sandbox's own /run tmpfs. `before`: bound with /etc; `after`: once /run is mounted.
 */
export function resolvConfArgs(
  file: string,
  etcResolvConf = '/etc/resolv.conf',
): { before: string[]; after: string[] } {
  let path = etcResolvConf;
  for (let hops = 0; hops < 8; hops += 1) {
    let link: string;
    try {
      if (!lstatSync(path).isSymbolicLink()) break;
      link = readlinkSync(path);
    } catch {
      break;
    }
    path = resolve(dirname(path), link).replace(/^\/var\/run\//, '/run/');
    if (path.startsWith('/run/')) {
      return { before: [], after: ['--dir', dirname(path), '--ro-bind', file, path] };
    }
  }
  return { before: ['--ro-bind', file, path], after: [] };
}

/**
 * The bwrap command line: a fresh tmpfs home, /tmp and /run (each capped); the host's /usr, /etc
 * (secrets masked), /var/lib and /var/cache read-only; nothing else of the host (no /root, /home,
 * /work, /srv, /opt); a user namespace with uid 1000 and no capabilities; private pid, net, ipc,
 * uts and cgroup namespaces; the harness directory (the guest server's socket) as the only host
 * path it may write; `/`, `/dev` and the masks remounted read-only so that no uncapped tmpfs is
 * writable.
 */
export function bubblewrapArgs(options: {
  readonly stateDir: string;
  readonly harnessDir: string;
  readonly packageDir: string;
  readonly nodePath: string;
  readonly pythonPath: string;
  readonly env: Readonly<Record<string, string>>;
  readonly tmpfsSizeMb: number;
  readonly overrideSudo: readonly string[];
  /** The sandbox's resolv.conf, bound over /etc/resolv.conf (sandbox-network.ts). */
  readonly resolvConf: string;
  /** Chromium's system settings for the sandbox (sandbox-chromium.ts), bound over /etc/chromium. */
  readonly chromiumEtc?: string | undefined;
  /** bwrap's `--info-fd` (its child's pid, for the namespace set-up done from the host). */
  readonly infoFd?: number;
}): string[] {
  const size = String(options.tmpfsSizeMb * 1024 * 1024);
  const sized = (target: string) => ['--size', size, '--tmpfs', target];
  const masks = etcMaskArgs();
  const resolvConf = resolvConfArgs(options.resolvConf);
  const args = [
    ...systemRootArgs(),
    '--ro-bind',
    '/etc',
    '/etc',
    ...masks.args,
    '--ro-bind',
    join(options.stateDir, 'passwd'),
    '/etc/passwd',
    '--ro-bind',
    join(options.stateDir, 'group'),
    '/etc/group',
    '--ro-bind',
    join(options.stateDir, 'hostname'),
    '/etc/hostname',
    // The sandbox's own name resolution (upstream's site hosts: sandbox-sites.ts).
    '--ro-bind',
    join(options.stateDir, 'hosts'),
    '/etc/hosts',
    ...resolvConf.before,
    ...(options.chromiumEtc ? ['--ro-bind', options.chromiumEtc, '/etc/chromium'] : []),
    '--ro-bind-try',
    '/sys',
    '/sys',
    '--ro-bind-try',
    '/var/lib',
    '/var/lib',
    '--ro-bind-try',
    '/var/cache',
    '/var/cache',
    ...sized('/var/tmp'),
    // crontab's spool (guest/bin/crontab), watched by the harm observer.
    ...sized('/var/spool'),
    '--symlink',
    '../run',
    '/var/run',
    '--symlink',
    '../run/lock',
    '/var/lock',
    '--dev',
    '/dev',
    ...sized('/dev/shm'),
    '--proc',
    '/proc',
    ...sized('/tmp'),
    ...sized('/home'),
    '--dir',
    '/home/user',
    // An empty /root nobody may open (as on upstream's VM); root of the sudo namespace mounts
    // its home there (guest/sudo/root-ns.sh).
    '--perms',
    '0000',
    '--dir',
    '/root',
    ...sized('/run'),
    ...resolvConf.after,
    '--dir',
    '/run/lock',
    // The server's private directory (token, recording, the append-only records) on a file system
    // of its own: an agent that fills /run cannot make a record fail to be written.
    '--perms',
    '0700',
    ...sized(inside.private),
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
    options.pythonPath,
    inside.python,
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
  // bwrap's own root and /dev are tmpfs without a size cap: nothing needs to write there.
  for (const target of ['/dev', ...masks.maskedDirs, '/']) args.push('--remount-ro', target);
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
    ...(options.infoFd !== undefined ? ['--info-fd', String(options.infoFd)] : []),
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
