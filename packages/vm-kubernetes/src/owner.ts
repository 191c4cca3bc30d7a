// Which process owns a desktop pod: `host:pid:starttime` in an annotation (label values cannot
// hold colons). The crash sweep deletes the pods of this host whose owner process is gone.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** Annotation holding the owner (see {@link ownerId}). */
export const OWNER_ANNOTATION = 'osharm.org/owner';

function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime), counted after the command name in parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** `host:pid:starttime` of this process: a pid reused after a crash does not match. */
export function ownerId(pid = process.pid): string {
  return `${hostname()}:${pid}:${processStartTime(pid) ?? '?'}`;
}

/**
 * False only when the owner is a process of this host that is gone; another host's owner (another
 * runner, another Job pod) is not ours to judge and counts as alive.
 */
export function ownerAlive(owner: string | undefined): boolean {
  if (!owner) return true;
  const [host, pidText] = owner.split(':');
  if (host !== hostname()) return true;
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  return ownerId(pid) === owner;
}
