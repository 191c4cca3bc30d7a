import { spawn } from 'node:child_process';
import { DESKTOP_SITE_HOSTS } from '@osharm/desktop-env';

// Upstream's web addresses inside the sandbox (guest/site-tls.sh serves them): the host names
// resolve to the sandbox's own loopback through its own /etc/hosts (bound read-only over the
// host's, which is never touched), and HTTPS on port 443 of the sandbox's own network namespace
// is forwarded to a plain-HTTP backend port there.

/** Host names served inside every local desktop: desktop-env's DESKTOP_SITE_HOSTS. */
export const SANDBOX_SITE_HOSTS: readonly string[] = DESKTOP_SITE_HOSTS;

/** The port inside the sandbox that HTTPS for {@link SANDBOX_SITE_HOSTS} is forwarded to (plain HTTP). */
export const SANDBOX_SITE_BACKEND_PORT = 18080;

/** The sandbox's /etc/hosts: loopback, its own host name, and the site hosts. */
export function sandboxHostsFile(hostname: string, sites: readonly string[]): string {
  return [
    '127.0.0.1\tlocalhost',
    `127.0.1.1\t${hostname}`,
    '::1\tlocalhost ip6-localhost ip6-loopback',
    ...sites.map(site => `127.0.0.1\t${site}`),
    '',
  ].join('\n');
}

// Opens the network namespace of a sandbox process and sets its unprivileged port start. As root
// the namespace is joined directly; otherwise first its owning user namespace (NS_GET_USERNS),
// which the caller created through bwrap and so holds every capability in.
const LOWER_PORTS = String.raw`
import ctypes, fcntl, os, sys
libc = ctypes.CDLL(None, use_errno=True)
net = os.open("/proc/%s/ns/net" % sys.argv[1], os.O_RDONLY)
if os.geteuid() != 0:
    owner = fcntl.ioctl(net, 0xB701)
    if libc.setns(owner, 0x10000000) != 0:
        raise OSError(ctypes.get_errno(), "setns(user namespace)")
if libc.setns(net, 0x40000000) != 0:
    raise OSError(ctypes.get_errno(), "setns(network namespace)")
with open("/proc/sys/net/ipv4/ip_unprivileged_port_start", "w") as handle:
    handle.write(sys.argv[2])
`;

/**
 * Lets unprivileged processes of the sandbox whose first process is `childPid` bind ports from
 * `start` up, in the sandbox's own network namespace only (the host's setting is unchanged).
 * @throws {Error} naming the helper's message when the namespace cannot be changed.
 */
export async function lowerSandboxPortStart(childPid: number, start: number): Promise<void> {
  const child = spawn(
    '/usr/bin/python3',
    ['-I', '-c', LOWER_PORTS, String(childPid), String(start)],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: '/usr/bin:/bin' },
    },
  );
  let error = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    error = (error + chunk.toString('utf8')).slice(-2000);
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve); // after stderr is read whole ('exit' can come first)
  });
  if (code !== 0) {
    throw new Error(
      `could not open port ${start} in the sandbox's network namespace: ${error.trim().split('\n').pop() ?? `exit ${code}`}`,
    );
  }
}
