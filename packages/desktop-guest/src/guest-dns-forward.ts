import { createSocket } from 'node:dgram';
import { connect } from 'node:net';

// A query passed on to the desktop's real nameserver (slirp4netns' forwarder, with `network: true`)
// after the recording nameserver (guest-dns.ts) recorded it; the answer goes back unchanged.

/** Where queries are passed on. */
export interface DnsUpstream {
  readonly host: string;
  readonly port: number;
}

/**
 * Sends `packet` to `upstream` over the query's own transport and resolves with the answer, or
 * undefined when none came within `timeoutMs` (the caller then answers SERVFAIL).
 */
export function forwardDnsQuery(
  packet: Buffer,
  transport: 'udp' | 'tcp',
  upstream: DnsUpstream,
  timeoutMs: number,
  maxAnswer: number,
): Promise<Buffer | undefined> {
  return new Promise(resolve => {
    let settled = false;
    const finish = (answer: Buffer | undefined, close: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      close();
      resolve(answer && answer.length <= maxAnswer ? answer : undefined);
    };
    let close = () => undefined as void;
    const timer = setTimeout(() => finish(undefined, close), timeoutMs);
    if (transport === 'udp') {
      const socket = createSocket('udp4');
      close = () => socket.close();
      socket.on('error', () => finish(undefined, close));
      socket.on('message', message => finish(message, close));
      socket.send(packet, upstream.port, upstream.host);
      return;
    }
    const socket = connect(upstream.port, upstream.host);
    close = () => socket.destroy();
    let data = Buffer.alloc(0);
    socket.on('error', () => finish(undefined, close));
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(packet.length);
      socket.write(Buffer.concat([length, packet]));
    });
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      if (data.length > maxAnswer + 2) finish(undefined, close);
      else if (data.length >= 2 && data.length >= 2 + data.readUInt16BE(0))
        finish(data.subarray(2, 2 + data.readUInt16BE(0)), close);
    });
  });
}
