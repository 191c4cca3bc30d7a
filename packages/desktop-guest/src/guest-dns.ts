import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import { forwardDnsQuery, type DnsUpstream } from './guest-dns-forward';
import { lookupOwner } from './guest-dns-owner';

// The desktop's nameserver, on the harness's side: the sandbox's /etc/resolv.conf names it
// (127.0.0.1:53), the guest server runs it (outside the agent's namespaces, bound before the agent's
// first step, so a listener of the agent's cannot take the port). Each query is recorded (name,
// type, transport, time) and answered REFUSED: the desktop still has no network, and a resolver
// sees the same "temporary failure" it saw without a nameserver. The harm observer hands what was
// recorded since the previous mark to the host (guest-harm.ts), which makes network_attempt events.

/** A name looked up since the previous mark (identical queries of one interval are counted). */
export interface ObservedLookup {
  /** The queried name, lower case, without the final dot; bytes outside [a-z0-9._-] as \DDD. */
  readonly name: string;
  /** The query type: A, AAAA, MX, … or TYPE<n>. */
  readonly type: string;
  readonly transport: 'udp' | 'tcp';
  /** ISO time of the first such query in the interval. */
  readonly time: string;
  count: number;
  /** `site`: a site host of the task (served inside); `local`: the desktop's own names; else null. */
  readonly known: 'site' | 'local' | null;
  /** The process that sent the first such query, when it could be told (guest-dns-owner.ts). */
  readonly pid: number | null;
  /** Its command line (at most 300 characters). */
  readonly command: string | null;
  /** Passed on to the real nameserver (`forward`) rather than refused. */
  readonly forwarded: boolean;
}

/** One question of a query, or why the packet is not one. */
export type DnsQuery =
  | {
      readonly ok: true;
      readonly id: number;
      readonly name: string;
      readonly type: string;
      /** End of the question section's first question (the bytes echoed in the answer). */
      readonly end: number;
    }
  | { readonly ok: false; readonly answer: boolean; readonly why: string };

const typeNames: Readonly<Record<number, string>> = {
  1: 'A',
  2: 'NS',
  5: 'CNAME',
  6: 'SOA',
  12: 'PTR',
  15: 'MX',
  16: 'TXT',
  28: 'AAAA',
  33: 'SRV',
  35: 'NAPTR',
  64: 'SVCB',
  65: 'HTTPS',
  255: 'ANY',
};

/** The largest message read (UDP datagram or TCP frame); queries are a few dozen bytes. */
const MAX_DNS_MESSAGE = 4096;

/**
 * Parses a DNS query's header and first question. Compression pointers, labels over 63 bytes,
 * names over 255 bytes and truncated packets are refused (`answer`: whether a FORMERR is due).
 */
export function parseDnsQuery(packet: Buffer): DnsQuery {
  if (packet.length < 12) return { ok: false, answer: false, why: 'shorter than a header' };
  if (packet.length > MAX_DNS_MESSAGE) return { ok: false, answer: false, why: 'too long' };
  const id = packet.readUInt16BE(0);
  const flags = packet.readUInt16BE(2);
  if (flags & 0x8000) return { ok: false, answer: false, why: 'a response, not a query' };
  if (packet.readUInt16BE(4) < 1) return { ok: false, answer: true, why: 'no question' };
  const labels: string[] = [];
  let offset = 12;
  let length = 0;
  for (;;) {
    if (offset >= packet.length) return { ok: false, answer: true, why: 'name runs past the end' };
    const size = packet[offset]!;
    offset += 1;
    if (size === 0) break;
    if (size > 63) return { ok: false, answer: true, why: 'compressed or oversized label' };
    length += size + 1;
    if (length > 255) return { ok: false, answer: true, why: 'name longer than 255 bytes' };
    if (offset + size > packet.length)
      return { ok: false, answer: true, why: 'label runs past the end' };
    let label = '';
    for (const byte of packet.subarray(offset, offset + size)) {
      const char = String.fromCharCode(byte).toLowerCase();
      label += /[a-z0-9_-]/.test(char) ? char : `\\${String(byte).padStart(3, '0')}`;
    }
    labels.push(label);
    offset += size;
  }
  if (offset + 4 > packet.length) return { ok: false, answer: true, why: 'question cut short' };
  const code = packet.readUInt16BE(offset);
  return {
    ok: true,
    id,
    name: labels.length ? labels.join('.') : '.',
    type: typeNames[code] ?? `TYPE${code}`,
    end: offset + 4,
  };
}

/**
 * The answer to `packet`: REFUSED (or `rcode`) echoing its question, or FORMERR without one.
 */
function dnsAnswer(packet: Buffer, query: DnsQuery, rcode = 5): Buffer {
  const header = Buffer.alloc(12);
  packet.copy(header, 0, 0, 4);
  const flags = packet.readUInt16BE(2);
  // QR, the query's opcode and RD kept, no recursion available; REFUSED (5) or FORMERR (1).
  header.writeUInt16BE(0x8000 | (flags & 0x7900) | (query.ok ? rcode : 1), 2);
  if (!query.ok) return header;
  header.writeUInt16BE(1, 4);
  return Buffer.concat([header, packet.subarray(12, query.end)]);
}

/** Options of {@link startDnsRecorder}. */
export interface DnsRecorderOptions {
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** @default 53 */
  readonly port?: number;
  /** Names served inside the desktop (the task's site hosts): recorded as `known: 'site'`. */
  readonly siteHosts?: readonly string[];
  /** The desktop's own names (its /etc/hosts): recorded as `known: 'local'`. @default localhost, desktop */
  readonly localNames?: readonly string[];
  /**
   * How long a bind refused for want of privilege is retried (the provider lowers the namespace's
   * unprivileged port start from outside while the desktop starts), ms. @default 10000
   */
  readonly bindTimeoutMs?: number;
  /** Distinct lookups kept over the recorder's life; past it they are counted as dropped. @default 10000 */
  readonly maxRecords?: number;
  /**
   * Distinct lookups per interval whose sending process is looked for (each look scans every
   * process's descriptors); past it `pid` is null. @default 200
   */
  readonly maxOwnerLooks?: number;
  /**
   * Pass each query on to this nameserver and relay its answer (the desktop with a network:
   * slirp4netns' forwarder) instead of refusing it. At most 64 at a time, 4 s each; past either,
   * SERVFAIL.
   */
  readonly forward?: DnsUpstream;
}

/** A running nameserver that records. */
export interface DnsRecorder {
  /** Resolves once bound (`problem` undefined) or given up (`problem` says why). */
  readonly ready: Promise<void>;
  /** Why lookups are not recorded (the port could not be bound); undefined while they are. */
  readonly problem: string | undefined;
  /** Where it answers (`127.0.0.1:53`; with port 0, the port given once bound). */
  readonly address: string;
  /** Lookups not recorded because the record was full. */
  readonly dropped: number;
  /** Drops what was recorded so far and records from now on (the harm observer's baseline). */
  begin(): void;
  /** The lookups recorded since `begin` or the previous `take`. */
  take(): ObservedLookup[];
  close(): Promise<void>;
}

const maxTcpConnections = 32;
const maxForwards = 64;
const forwardTimeoutMs = 4_000;
const tcpIdleMs = 5_000;

function delay(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms));
}

/**
 * Starts the recording nameserver on UDP and TCP `host:port`. Never throws: a port that cannot be
 * bound (taken, or refused past `bindTimeoutMs`) is said in `problem`.
 */
export function startDnsRecorder(options: DnsRecorderOptions = {}): DnsRecorder {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 53;
  const maxRecords = options.maxRecords ?? 10_000;
  const sites = new Set((options.siteHosts ?? []).map(name => name.toLowerCase()));
  const local = new Set((options.localNames ?? ['localhost', 'desktop']).map(n => n.toLowerCase()));
  let recording = false;
  let records = 0;
  let dropped = 0;
  let problem: string | undefined;
  let current = new Map<string, ObservedLookup>();
  let ownerLooks = 0;
  const maxOwnerLooks = options.maxOwnerLooks ?? 200;
  let udp: UdpSocket | undefined;
  let tcp: Server | undefined;
  let bound = port;
  let closed = false;
  const connections = new Set<Socket>();

  const known = (name: string): ObservedLookup['known'] => {
    if (sites.has(name)) return 'site';
    if (local.has(name) || name.endsWith('.localhost')) return 'local';
    if (/^(\d+\.)*127\.in-addr\.arpa$/.test(name) || /^1\.(0\.){31}ip6\.arpa$/.test(name))
      return 'local';
    return null;
  };
  let inFlight = 0;
  const forward = options.forward;
  /** Records `packet` and hands `send` its answer (undefined: none is due). */
  const respond = (
    packet: Buffer,
    transport: 'udp' | 'tcp',
    peerPort: number,
    send: (reply: Buffer | undefined) => void,
  ): void => {
    const query = parseDnsQuery(packet);
    if (query.ok && recording) {
      const key = `${transport} ${query.type} ${query.name}`;
      const seen = current.get(key);
      if (seen) seen.count += 1;
      else if (records >= maxRecords) dropped += 1;
      else {
        records += 1;
        const time = new Date().toISOString();
        // Looked for before the answer goes out, while the client's socket is still open.
        let owner: ReturnType<typeof lookupOwner>;
        if (ownerLooks < maxOwnerLooks) {
          ownerLooks += 1;
          owner = lookupOwner(transport, peerPort, bound);
        }
        current.set(key, {
          name: query.name,
          type: query.type,
          transport,
          time,
          count: 1,
          known: known(query.name),
          pid: owner?.pid ?? null,
          command: owner?.command ?? null,
          forwarded: forward !== undefined,
        });
      }
    }
    if (!query.ok || !forward) {
      send(query.ok || query.answer ? dnsAnswer(packet, query) : undefined);
      return;
    }
    if (inFlight >= maxForwards) {
      send(dnsAnswer(packet, query, 2));
      return;
    }
    inFlight += 1;
    void forwardDnsQuery(packet, transport, forward, forwardTimeoutMs, MAX_DNS_MESSAGE * 16).then(
      reply => {
        inFlight -= 1;
        send(reply ?? dnsAnswer(packet, query, 2));
      },
    );
  };

  const bindUdp = () =>
    new Promise<UdpSocket>((resolve, reject) => {
      const socket = createSocket({ type: 'udp4', reuseAddr: false });
      socket.once('error', error => {
        socket.close();
        reject(error);
      });
      socket.bind({ address: host, port, exclusive: true }, () => {
        socket.removeAllListeners('error');
        socket.on('error', () => undefined);
        resolve(socket);
      });
    });
  const bindTcp = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer({ pauseOnConnect: false }, socket => serveTcp(socket));
      server.maxConnections = maxTcpConnections;
      server.once('error', reject);
      server.listen({ host, port, exclusive: true }, () => {
        server.removeAllListeners('error');
        server.on('error', () => undefined);
        resolve(server);
      });
    });
  const serveTcp = (socket: Socket) => {
    connections.add(socket);
    socket.setTimeout(tcpIdleMs, () => socket.destroy());
    socket.on('close', () => connections.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2) {
        const size = buffered.readUInt16BE(0);
        if (size > MAX_DNS_MESSAGE) {
          socket.destroy();
          return;
        }
        if (buffered.length < 2 + size) return;
        const message = buffered.subarray(2, 2 + size);
        buffered = buffered.subarray(2 + size);
        respond(message, 'tcp', socket.remotePort ?? 0, reply => {
          if (!reply) {
            socket.destroy();
            return;
          }
          const length = Buffer.alloc(2);
          length.writeUInt16BE(reply.length);
          if (!socket.destroyed) socket.write(Buffer.concat([length, reply]));
        });
      }
    });
  };

  const ready = (async () => {
    const deadline = Date.now() + (options.bindTimeoutMs ?? 10_000);
    for (;;) {
      try {
        udp = await bindUdp();
        bound = udp.address().port;
        tcp = await bindTcp(bound);
        break;
      } catch (error) {
        udp?.close();
        udp = undefined;
        const code = (error as NodeJS.ErrnoException).code;
        if (closed) return;
        if (port === 0 && code === 'EADDRINUSE' && Date.now() < deadline) continue;
        if (code === 'EACCES' && Date.now() < deadline) {
          await delay(50);
          continue;
        }
        problem =
          code === 'EACCES'
            ? `port ${port} could not be bound (not permitted: the desktop's unprivileged port start was not lowered)`
            : `${host}:${bound} could not be bound (${(error as Error).message})`;
        return;
      }
    }
    udp.on('message', (packet, peer) => {
      if (packet.length > MAX_DNS_MESSAGE) return;
      respond(packet, 'udp', peer.port, reply => {
        try {
          if (reply) udp?.send(reply, peer.port, peer.address);
        } catch {
          // closed meanwhile (a forwarded answer after close())
        }
      });
    });
  })();

  return {
    ready,
    get problem() {
      return problem;
    },
    get address() {
      return `${host}:${bound}`;
    },
    get dropped() {
      return dropped;
    },
    begin() {
      recording = true;
      current = new Map();
      ownerLooks = 0;
    },
    take() {
      const taken = [...current.values()];
      current = new Map();
      ownerLooks = 0;
      return taken;
    },
    async close() {
      closed = true;
      recording = false;
      await ready;
      for (const socket of connections) socket.destroy();
      udp?.close();
      await new Promise<void>(resolve => (tcp ? tcp.close(() => resolve()) : resolve()));
    },
  };
}
