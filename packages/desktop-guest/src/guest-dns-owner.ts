import { readFileSync } from 'node:fs';
import { socketOwners } from './guest-net-tables';

// Which process sent a DNS query: the client's socket is found by its local port in the network
// namespace's socket tables (/proc/net/udp, /proc/net/tcp and their IPv6 twins), then its owner by
// the descriptor that links to that socket's inode. Read while the query waits for its answer (the
// client's socket is still open then). Best effort: a process the server may not inspect, or one
// gone meanwhile, leaves the lookup without an owner.

/** The process that made a lookup. */
export interface LookupOwner {
  readonly pid: number;
  /** Its command line, joined by spaces, at most 300 characters. */
  readonly command: string;
}

function socketInode(transport: 'udp' | 'tcp', localPort: number, serverPort: number) {
  const port = localPort.toString(16).toUpperCase().padStart(4, '0');
  const server = serverPort.toString(16).toUpperCase().padStart(4, '0');
  for (const table of [transport, `${transport}6`]) {
    let text: string;
    try {
      text = readFileSync(`/proc/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      const remote = fields[2];
      if (!local?.endsWith(`:${port}`)) continue;
      // The client's socket (connected to the server's port) rather than the server's own end.
      if (remote !== undefined && !remote.endsWith(`:${server}`) && transport === 'tcp') continue;
      const inode = fields[9];
      if (inode && inode !== '0') return inode;
    }
  }
  return undefined;
}

/**
 * The owner of the client socket bound to `localPort` that queried the server on `serverPort`;
 * undefined when it cannot be told. Scans every process's descriptors once (bounded by the caller).
 */
export function lookupOwner(
  transport: 'udp' | 'tcp',
  localPort: number,
  serverPort: number,
): LookupOwner | undefined {
  const inode = socketInode(transport, localPort, serverPort);
  if (!inode) return undefined;
  const pid = socketOwners(new Set([inode])).get(inode);
  if (pid === undefined) return undefined;
  let command = '';
  try {
    command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    // gone meanwhile: the pid still says who
  }
  return { pid, command: command.slice(0, 300) };
}
