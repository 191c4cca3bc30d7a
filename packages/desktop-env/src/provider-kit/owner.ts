// Which harness process owns a desktop (a container label, a pod annotation): `host:pid:starttime`.
// A crash sweep removes the desktops of this host whose owner process is gone; the start time makes
// a pid reused after a crash not match.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime), counted after the command name in parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** `host:pid:starttime` of a process of this host (default: this one). */
export function ownerId(pid = process.pid): string {
  return `${hostname()}:${pid}:${processStartTime(pid) ?? '?'}`;
}

/**
 * False only when `owner` (an {@link ownerId}) names a process of this host that is gone; no owner,
 * or another host's (another runner, another Job pod), is not ours to judge and counts as alive.
 */
export function ownerAlive(owner: string | undefined): boolean {
  if (!owner) return true;
  const [host, pidText] = owner.split(':');
  if (host !== hostname()) return true;
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  return ownerId(pid) === owner;
}
