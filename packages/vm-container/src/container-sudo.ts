// sudo in the desktop container: root of a nested user namespace (desktop-guest's guest/bin/sudo), which
// needs the desktop user in group sudo and a seccomp profile that allows unprivileged user namespaces.
import type { GuestEndpoint, ProviderSudoMode } from '@osharm/desktop-env';
import { createGuestClient } from '@osharm/desktop-env';

/**
 * containers-common's seccomp profile (Debian: golang-github-containers-common, installed with
 * podman): podman's default, which allows unprivileged user namespaces.
 */
export const PODMAN_SECCOMP_PROFILE = '/usr/share/containers/seccomp.json';
/**
 * The desktop user is in group sudo in the image's /etc/group, which root's /etc copies (root's
 * sudoers, written by guest/sudo/root-ns.sh, lets %sudo run everything).
 */
const IN_GROUP_SUDO = `awk -F: -v me="$(id -un)" '$1 == "sudo" { n = split($4, m, ","); for (i = 1; i <= n; i++) if (m[i] == me) found = 1 } END { exit !found }' /etc/group`;
/** How the desktop's `sudo` works: root of a nested user namespace, or not at all. */
export type ContainerSudoMode = ProviderSudoMode;
/**
 * Whether the desktop's `sudo` can work: the desktop user is in group sudo (what guest/bin/sudo
 * asks of the accounts) and may make a user namespace (what its root is). Runs as the desktop user
 * before any agent code, so its answer is the image's and the engine's, not the agent's.
 */
export async function probeSudo(endpoint: GuestEndpoint): Promise<ContainerSudoMode> {
  const client = createGuestClient(endpoint, { maxRetries: 0 });
  try {
    const answer = await client.execute(
      ['/bin/sh', '-c', `${IN_GROUP_SUDO} && unshare --user --map-root-user /bin/true`],
      { timeoutMs: 10_000 },
    );
    return answer.returncode === 0 ? 'in-namespace' : 'unavailable';
  } catch {
    return 'unavailable';
  } finally {
    await client.close();
  }
}
