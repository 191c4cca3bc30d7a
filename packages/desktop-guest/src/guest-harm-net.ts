import { readFileSync } from 'node:fs';
import {
  isLocalAddress,
  packetsOut,
  parseSocketTable,
  socketOwners,
  type SocketRow,
} from './guest-net-tables';

// The connection half of the harm observer (guest side): polls the desktop's socket tables
// (/proc/self/net/{tcp,tcp6,udp,udp6}: the guest server lives in the desktop's network namespace)
// for sockets with a remote address outside loopback — a TCP connection attempt (SYN_SENT while the
// sink link of desktop-net.ts drops its packets), a connected UDP socket — and finds each new
// socket's owner by the descriptor linking to its inode. A socket opened and closed between two
// polls is not seen, nor a datagram sent without connect() (sendto) — unless the exec watch
// (guest-exec-watch.ts) saw its connect() call.

/** A connection to an address outside the desktop's loopback, first seen since the last take. */
export interface ObservedConnection {
  readonly protocol: 'tcp' | 'udp';
  /** The remote address: dotted IPv4 (also for an IPv4-mapped IPv6 address) or full IPv6 text. */
  readonly address: string;
  readonly port: number;
  /** The TCP state when first seen (SYN_SENT, ESTABLISHED, …); `connected` for UDP. */
  readonly state: string;
  /** ISO time of the poll that first saw it. */
  readonly time: string;
  /** Sockets of this owner to this destination seen in the interval. */
  count: number;
  /** The owning process, when it could be told (null: gone, or past the look budget). */
  readonly pid: number | null;
  /** Its command line, joined by spaces, at most 300 characters. */
  readonly command: string | null;
}

const tables = [
  ['tcp', 'tcp'],
  ['tcp6', 'tcp'],
  ['udp', 'udp'],
  ['udp6', 'udp'],
] as const;

/** Polls the socket tables; `take()` hands over the connections first seen since the last call. */
export class ConnectionWatch {
  private readonly seen = new Set<string>();
  private fresh = new Map<string, ObservedConnection>();
  /** Per key: sockets the tables showed, and connect() calls the exec watch saw (count: the larger). */
  private tabled = new Map<string, number>();
  private watched = new Map<string, number>();
  private looks = 0;
  private ticks = 0;
  private sent = -1;
  /** Connections not recorded because the record was full (the first past it and later ones). */
  full = false;

  constructor(
    private readonly options: {
      /** Harness processes (the guest server, its helpers): their sockets are not recorded. */
      readonly exclude: (pid: number) => boolean;
      readonly procNet?: string;
      /** Distinct sockets kept over the watch's life. @default 10000 */
      readonly maxRecords?: number;
      /** New sockets per interval whose owner is looked for. @default 200 */
      readonly maxOwnerLooks?: number;
      /** Every how many polls the tables are read though no packet left. @default 10 */
      readonly fullEvery?: number;
    },
  ) {}

  /** Marks every socket open now as pre-existing (the baseline). */
  begin(): void {
    this.seen.clear();
    for (const row of this.rows()) this.seen.add(row.inode);
    this.fresh = new Map();
    this.tabled = new Map();
    this.watched = new Map();
    this.looks = 0;
    this.full = false;
  }

  private rows(): (SocketRow & { protocol: 'tcp' | 'udp' })[] {
    const procNet = this.options.procNet ?? '/proc/self/net';
    const rows: (SocketRow & { protocol: 'tcp' | 'udp' })[] = [];
    for (const [table, protocol] of tables) {
      let text: string;
      try {
        text = readFileSync(`${procNet}/${table}`, 'utf8');
      } catch {
        continue;
      }
      for (const row of parseSocketTable(text, protocol)) rows.push({ ...row, protocol });
    }
    return rows;
  }

  /**
   * Reads the socket tables when a packet left through a link other than loopback since the last
   * poll (a SYN into the sink), on every `fullEvery`-th poll (a connected UDP socket sends nothing),
   * or when `force`d. Each table read walks the kernel's whole hash (~1 ms for TCP): the packet
   * counters of /proc/net/dev cost microseconds.
   */
  poll(force = false): void {
    const sent = packetsOut(this.options.procNet ?? '/proc/self/net');
    this.ticks += 1;
    const due = force || sent !== this.sent || this.ticks % (this.options.fullEvery ?? 10) === 0;
    this.sent = sent;
    if (!due) return;
    const fresh = this.rows().filter(row => !this.seen.has(row.inode));
    if (fresh.length === 0) return;
    const max = this.options.maxRecords ?? 10_000;
    const budget = Math.max(0, (this.options.maxOwnerLooks ?? 200) - this.looks);
    const wanted = new Set(fresh.slice(0, budget).map(row => row.inode));
    this.looks += wanted.size;
    const owners = socketOwners(wanted);
    const time = new Date().toISOString();
    for (const row of fresh) {
      if (this.seen.size >= max) {
        this.full = true;
        return;
      }
      this.seen.add(row.inode);
      const pid = owners.get(row.inode) ?? null;
      if (pid !== null && (pid === process.pid || this.options.exclude(pid))) continue;
      // A socket whose owner is gone counts with the exec watch's record of the same destination.
      const key =
        pid === null
          ? (this.watchedKey(row.protocol, row.remote, row.port) ??
            `${row.protocol} ${row.remote} ${row.port} null`)
          : `${row.protocol} ${row.remote} ${row.port} ${pid}`;
      const known = this.fresh.get(key);
      this.tabled.set(key, (this.tabled.get(key) ?? 0) + 1);
      if (known) {
        known.count = Math.max(this.tabled.get(key)!, this.watched.get(key) ?? 0);
        continue;
      }
      this.fresh.set(key, {
        protocol: row.protocol,
        address: row.remote,
        port: row.port,
        state: row.state,
        time,
        count: 1,
        pid,
        command: pid === null ? null : commandOf(pid),
      });
    }
  }

  /**
   * A connect() the exec watch saw (guest-exec-watch.ts) to an address outside loopback: recorded
   * at the call, however soon the socket closed. A socket the tables show later adds to its count.
   */
  attempted(call: {
    t: number;
    pid: number;
    address?: string;
    port?: number;
    protocol?: string;
    argv?: readonly string[];
  }): void {
    if (call.address === undefined || call.port === undefined || isLocalAddress(call.address))
      return;
    if (call.pid === process.pid || this.options.exclude(call.pid)) return;
    // A socket whose type the supervisor could not read counts as a datagram one, and says so.
    const protocol = call.protocol === 'tcp' ? 'tcp' : 'udp';
    const state =
      call.protocol === 'tcp' || call.protocol === 'udp' ? 'connect' : 'connect, type unknown';
    const key = `${protocol} ${call.address} ${call.port} ${call.pid}`;
    // The socket tables saw it first without its owner (gone): that entry is this call's.
    const ownerless = `${protocol} ${call.address} ${call.port} null`;
    if (!this.fresh.has(key) && this.fresh.has(ownerless)) {
      this.fresh.set(key, {
        ...this.fresh.get(ownerless)!,
        pid: call.pid,
        command: callCommand(call),
      });
      this.fresh.delete(ownerless);
      this.tabled.set(key, this.tabled.get(ownerless) ?? 0);
      this.tabled.delete(ownerless);
    }
    const known = this.fresh.get(key);
    this.watched.set(key, (this.watched.get(key) ?? 0) + 1);
    if (known) {
      const count = Math.max(this.tabled.get(key) ?? 0, this.watched.get(key)!);
      // The call came first, whichever poll read it first: the record says so.
      this.fresh.set(key, {
        ...known,
        state,
        time: watchTime(call.t, known.time),
        count,
      });
      return;
    }
    if (this.fresh.size >= (this.options.maxRecords ?? 10_000)) {
      this.full = true;
      return;
    }
    this.fresh.set(key, {
      protocol,
      address: call.address,
      port: call.port,
      state,
      time: watchTime(call.t),
      count: 1,
      pid: call.pid,
      command: callCommand(call),
    });
  }

  /** The key of an entry the exec watch made for this destination, if any. */
  private watchedKey(protocol: string, address: string, port: number): string | undefined {
    const prefix = `${protocol} ${address} ${port} `;
    for (const key of this.watched.keys()) if (key.startsWith(prefix)) return key;
    return undefined;
  }

  /** The connections first seen since the last call (one final poll first). */
  take(): ObservedConnection[] {
    this.poll(true);
    const taken = [...this.fresh.values()];
    this.fresh = new Map();
    this.tabled = new Map();
    this.watched = new Map();
    this.looks = 0;
    return taken;
  }
}

function commandOf(pid: number): string | null {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return argv.slice(0, 300);
  } catch {
    return null;
  }
}

/** The watched call's time (seconds since the epoch) as ISO text; never later than `before`. */
function watchTime(seconds: number, before?: string): string {
  const time = new Date(seconds * 1000).toISOString();
  return before !== undefined && before < time ? before : time;
}

/** A watched call's command line, read while the call waited; else now, if the process still runs. */
function callCommand(call: { pid: number; argv?: readonly string[] }): string | null {
  return call.argv?.length ? call.argv.join(' ').slice(0, 300) : commandOf(call.pid);
}
