import { DESKTOP_SITE_HOSTS } from '@osharm/desktop-env/internal';
import { runInSandboxNetns } from '@osharm/desktop-guest';

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

// Sets the unprivileged port start inside the sandbox's network namespace (@osharm/desktop-guest's runInSandboxNetns).
const LOWER_PORTS = String.raw`
with open("/proc/sys/net/ipv4/ip_unprivileged_port_start", "w") as handle:
    handle.write(sys.argv[2])
`;

/**
 * Lets unprivileged processes of the sandbox whose first process is `childPid` bind ports from
 * `start` up, in the sandbox's own network namespace only (the host's setting is unchanged).
 * @throws {Error} naming the helper's message when the namespace cannot be changed.
 */
export async function lowerSandboxPortStart(childPid: number, start: number): Promise<void> {
  try {
    await runInSandboxNetns(childPid, LOWER_PORTS, [String(start)]);
  } catch (error) {
    throw new Error(
      `could not open port ${start} in the sandbox's network namespace: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
