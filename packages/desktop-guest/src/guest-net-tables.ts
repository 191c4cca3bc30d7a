import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { endianness } from 'node:os';

// The desktop's own network state as the guest server reads it from /proc (it lives in the
// desktop's network namespace): the socket tables (/proc/self/net/{tcp,tcp6,udp,udp6}), each
// socket's owner, the default routes and the packet counters. The harm observer's connection watch
// (guest-harm-net.ts) and the nameserver's sender lookup (guest-dns-owner.ts) use them.

/** One row of a /proc/net socket table. */
export interface SocketRow {
  readonly remote: string;
  readonly port: number;
  readonly state: string;
  readonly inode: string;
}

const tcpStates: Readonly<Record<string, string>> = {
  '01': 'ESTABLISHED',
  '02': 'SYN_SENT',
  '03': 'SYN_RECV',
  '04': 'FIN_WAIT1',
  '05': 'FIN_WAIT2',
  '06': 'TIME_WAIT',
  '07': 'CLOSE',
  '08': 'CLOSE_WAIT',
  '09': 'LAST_ACK',
  '0A': 'LISTEN',
  '0B': 'CLOSING',
};

const little = endianness() === 'LE';

/** One 32-bit word of a /proc/net address (host byte order) as its 4 bytes in network order. */
function wordBytes(hex: string): number[] {
  const bytes = [0, 2, 4, 6].map(at => Number.parseInt(hex.slice(at, at + 2), 16));
  return little ? bytes.reverse() : bytes;
}

/** A /proc/net address (8 or 32 hex digits) as text; IPv4-mapped IPv6 as dotted IPv4. */
export function procAddress(hex: string): string {
  const bytes: number[] = [];
  for (let at = 0; at < hex.length; at += 8) bytes.push(...wordBytes(hex.slice(at, at + 8)));
  if (bytes.length === 4) return bytes.join('.');
  if (bytes.slice(0, 10).every(b => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff)
    return bytes.slice(12).join('.');
  const groups: string[] = [];
  for (let at = 0; at < 16; at += 2) groups.push(((bytes[at]! << 8) | bytes[at + 1]!).toString(16));
  // The longest run of zero groups (two or more) as '::'.
  const text = groups.join(':');
  const runs = [...text.matchAll(/(?:^|:)0(?::0)+(?::|$)/g)].sort(
    (a, b) => b[0].length - a[0].length,
  );
  const run = runs[0];
  if (!run) return text;
  return `${text.slice(0, run.index)}::${text.slice(run.index + run[0].length)}`;
}

/** Whether `address` (procAddress text) is loopback or unspecified: not a connection out. */
export function isLocalAddress(address: string): boolean {
  return address === '::' || address === '::1' || /^(127\.|0\.0\.0\.0$)/.test(address);
}

/** A /proc/net address in hex that is loopback or unspecified (read without converting it). */
function isLocalHex(hex: string): boolean {
  if (/^0+$/.test(hex)) return true;
  // The first byte of an IPv4 word: its last two hex digits in little-endian order.
  const firstByte = (word: string) => (little ? word.slice(6, 8) : word.slice(0, 2));
  if (hex.length === 8) return firstByte(hex) === '7F';
  if (!hex.startsWith('0000000000000000')) return false;
  const third = hex.slice(16, 24);
  const last = hex.slice(24);
  if (third === '00000000') return last === (little ? '01000000' : '00000001');
  return (
    third === (little ? 'FFFF0000' : '0000FFFF') &&
    (last === '00000000' || firstByte(last) === '7F')
  );
}

// sl, local address:port, remote address:port, state, queues, timer, retransmits, uid, timeout, inode.
const rowPattern =
  /^ *\d+: [0-9A-F]+:[0-9A-F]+ ([0-9A-F]+):([0-9A-F]+) ([0-9A-F]{2}) \S+ \S+ \S+ +\d+ +\d+ (\d+)/gm;

/** The rows of a socket table with a remote address outside loopback and an open socket. */
export function parseSocketTable(text: string, protocol: 'tcp' | 'udp'): SocketRow[] {
  const rows: SocketRow[] = [];
  for (const [, hex, portHex, code, inode] of text.matchAll(rowPattern)) {
    if (inode === '0' || isLocalHex(hex!)) continue;
    const remote = procAddress(hex!);
    if (isLocalAddress(remote)) continue;
    const state = protocol === 'udp' ? 'connected' : (tcpStates[code!] ?? `state ${code}`);
    rows.push({ remote, port: Number.parseInt(portHex!, 16), state, inode: inode! });
  }
  return rows;
}

/** The owners of `inodes` (socket inode → pid), from every process's descriptors, in one pass. */
export function socketOwners(inodes: ReadonlySet<string>): Map<string, number> {
  const owners = new Map<string, number>();
  if (inodes.size === 0) return owners;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter(name => /^\d+$/.test(name));
  } catch {
    return owners;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      if (!target.startsWith('socket:[')) continue;
      const inode = target.slice(8, -1);
      if (inodes.has(inode) && !owners.has(inode)) owners.set(inode, Number(pid));
    }
    if (owners.size === inodes.size) break;
  }
  return owners;
}

/** The interfaces the namespace's default routes go through (none: no route out). */
export function defaultRoutes(procNet = '/proc/self/net'): { ipv4: string[]; ipv6: string[] } {
  const read = (name: string) => {
    try {
      return readFileSync(`${procNet}/${name}`, 'utf8').split('\n');
    } catch {
      return [];
    }
  };
  const ipv4 = read('route')
    .slice(1)
    .map(line => line.trim().split(/\s+/))
    .filter(f => f[1] === '00000000' && f[7] === '00000000' && Number.parseInt(f[3]!, 16) & 1)
    .map(f => f[0]!);
  // RTF_UP without RTF_REJECT (the kernel's own unreachable default through lo).
  const ipv6 = read('ipv6_route')
    .map(line => line.trim().split(/\s+/))
    .filter(f => /^0{32}$/.test(f[0] ?? '') && f[1] === '00' && f[9] !== 'lo')
    .filter(f => (Number.parseInt(f[8] ?? '0', 16) & 0x201) === 1)
    .map(f => f[9]!);
  return { ipv4, ipv6 };
}

/** The default routes' interfaces, as the record's coverage says them; null without any. */
export function routeText(procNet = '/proc/self/net'): string | null {
  const { ipv4, ipv6 } = defaultRoutes(procNet);
  if (ipv4.length === 0 && ipv6.length === 0) return null;
  return `default routes through ${ipv4.join(', ') || 'none'} (IPv4), ${ipv6.join(', ') || 'none'} (IPv6)`;
}

/** Why connection attempts are not seen although the provider promised `sink`; undefined: seen. */
export function egressProblem(
  sink: string | undefined,
  procNet = '/proc/self/net',
): string | undefined {
  if (sink === undefined) return undefined;
  const { ipv4, ipv6 } = defaultRoutes(procNet);
  const missing = [ipv4.includes(sink) ? '' : 'IPv4', ipv6.includes(sink) ? '' : 'IPv6'];
  const families = missing.filter(Boolean).join(' and ');
  if (!families) return undefined;
  return `connection attempts to literal ${families} addresses are not observed: the desktop's network namespace has no default ${families} route through the sink link ${sink} (the provider could not add it: the harness's log says why), so such an attempt fails at once in the kernel and leaves no trace`;
}

/** Packets sent through every link but loopback (-1: the counters could not be read). */
export function packetsOut(procNet: string): number {
  let text: string;
  try {
    text = readFileSync(`${procNet}/dev`, 'utf8');
  } catch {
    return -1;
  }
  let total = 0;
  for (const line of text.split('\n').slice(2)) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim() === 'lo') continue;
    total += Number(
      line
        .slice(colon + 1)
        .trim()
        .split(/\s+/)[9] ?? 0,
    );
  }
  return total;
}
