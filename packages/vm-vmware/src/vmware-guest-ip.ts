import { isIP } from 'node:net';

/**
 * The guest IP in the answer of `vmrun getGuestIPAddress <vmx> -wait`, or undefined when the answer
 * is not one valid address.
 *
 * Rejects a non-zero exit code, empty output, `unknown`, the unspecified addresses and any text that
 * is not an IPv4 / IPv6 address usable in a URL — in particular `Error: Unable to get the IP address`, which
 * upstream U25 returned as the IP (issue #151).
 */
export function parseGuestIpAddress(answer: {
  readonly exitCode: number | null;
  readonly stdout: string;
}): string | undefined {
  if (answer.exitCode !== 0) return undefined;
  const lines = answer.stdout
    .split(/\r?\n/)
    .map(line => line.trim())
    .filter(line => line !== '');
  if (lines.length !== 1) return undefined;
  const address = lines[0]!;
  if (isIP(address) === 0) return undefined;
  // A zone id (`fe80::1%ens33`) cannot be put in a URL (WHATWG URLs have no zone ids).
  if (address.includes('%')) return undefined;
  if (address === '0.0.0.0' || address === '::') return undefined;
  return address;
}

/** The host part of a URL for an address: IPv6 in brackets. */
export function urlHost(address: string): string {
  return isIP(address) === 6 ? `[${address}]` : address;
}
