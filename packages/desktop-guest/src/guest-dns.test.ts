import { createSocket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDnsQuery, startDnsRecorder, type DnsRecorder } from './guest-dns';

// The recording nameserver over real loopback sockets: queries made by Node's resolver (c-ares)
// and by hand, over UDP and TCP; crafted packets neither crash it nor grow its record.

let recorder: DnsRecorder | undefined;
afterEach(async () => {
  await recorder?.close();
  recorder = undefined;
});

async function started(options: Parameters<typeof startDnsRecorder>[0] = {}) {
  recorder = startDnsRecorder({ port: 0, ...options });
  await recorder.ready;
  expect(recorder.problem).toBeUndefined();
  return { recorder, port: Number(recorder.address.split(':')[1]) };
}

/** A query for `name` of type `type` built by hand (RFC 1035 §4.1), with recursion desired. */
function query(id: number, name: string, type: number): Buffer {
  const labels = name.split('.').map(label => {
    const bytes = Buffer.from(label, 'latin1');
    return Buffer.concat([Buffer.from([bytes.length]), bytes]);
  });
  const header = Buffer.from([id >> 8, id & 0xff, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
  return Buffer.concat([header, ...labels, Buffer.from([0, type >> 8, type & 0xff, 0, 1])]);
}

function udpExchange(port: number, packet: Buffer, waitMs = 1_000): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      resolve(undefined);
    }, waitMs);
    socket.once('message', message => {
      clearTimeout(timer);
      socket.close();
      resolve(message);
    });
    socket.once('error', reject);
    socket.send(packet, port, '127.0.0.1');
  });
}

describe('the recording nameserver', () => {
  it("records Node's resolver's queries and refuses them (the desktop has no network)", async () => {
    const { recorder: dns, port } = await started({ siteHosts: ['agent-help.github.io'] });
    dns.begin();
    const resolver = new Resolver({ timeout: 2_000, tries: 1 });
    resolver.setServers([`127.0.0.1:${port}`]);
    await expect(resolver.resolve4('Exfil.Example.NET')).rejects.toMatchObject({
      code: 'EREFUSED',
    });
    await expect(resolver.resolveMx('mail.example.org')).rejects.toMatchObject({
      code: 'EREFUSED',
    });
    await expect(resolver.resolve4('agent-help.github.io')).rejects.toMatchObject({
      code: 'EREFUSED',
    });
    const taken = dns.take();
    expect(
      taken.map(({ name, type, transport, known }) => ({ name, type, transport, known })),
    ).toEqual([
      { name: 'exfil.example.net', type: 'A', transport: 'udp', known: null },
      { name: 'mail.example.org', type: 'MX', transport: 'udp', known: null },
      { name: 'agent-help.github.io', type: 'A', transport: 'udp', known: 'site' },
    ]);
    expect(Date.parse(taken[0]!.time)).toBeGreaterThan(Date.now() - 60_000);
    expect(taken[0]!.forwarded).toBe(false);
    // The sender: this process (its resolver's socket), found through the socket tables.
    expect(taken[0]).toMatchObject({ pid: process.pid });
    expect(taken[0]!.command).toContain('node');
    // Handed over once: the next interval starts empty.
    expect(dns.take()).toEqual([]);
  });

  it('answers a hand-built query over UDP with its id and question, and counts repeats', async () => {
    const { recorder: dns, port } = await started();
    // Before begin(): answered, not recorded (the desktop's start, before the baseline).
    expect(await udpExchange(port, query(7, 'before.example', 1))).toBeDefined();
    dns.begin();
    const packet = query(0x1234, 'exfil.example.net', 28);
    const first = await udpExchange(port, packet);
    await udpExchange(port, packet);
    expect(first).toBeDefined();
    expect(first!.readUInt16BE(0)).toBe(0x1234);
    expect(first!.readUInt16BE(2) & 0x8000).toBe(0x8000); // a response
    expect(first!.readUInt16BE(2) & 0x000f).toBe(5); // REFUSED
    expect(first!.readUInt16BE(4)).toBe(1);
    expect(first!.subarray(12).equals(packet.subarray(12))).toBe(true);
    const taken = dns.take();
    expect(taken).toHaveLength(1);
    expect(taken[0]).toMatchObject({ name: 'exfil.example.net', type: 'AAAA', count: 2 });
  });

  it('answers over TCP (length-prefixed) and records the transport', async () => {
    const { recorder: dns, port } = await started();
    dns.begin();
    const packet = query(9, 'tcp.example.net', 16);
    const framed = Buffer.concat([Buffer.from([packet.length >> 8, packet.length & 0xff]), packet]);
    const reply = await new Promise<Buffer>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(framed));
      let data = Buffer.alloc(0);
      socket.on('data', chunk => {
        data = Buffer.concat([data, chunk]);
        if (data.length >= 2 && data.length >= 2 + data.readUInt16BE(0)) {
          socket.destroy();
          resolve(data.subarray(2));
        }
      });
      socket.on('error', reject);
    });
    expect(reply.readUInt16BE(0)).toBe(9);
    expect(reply.readUInt16BE(2) & 0x000f).toBe(5);
    expect(dns.take()).toMatchObject([
      { name: 'tcp.example.net', type: 'TXT', transport: 'tcp', pid: process.pid },
    ]);
  });

  it('survives crafted packets: none is recorded, a bad question gets FORMERR, it keeps answering', async () => {
    const { recorder: dns, port } = await started();
    dns.begin();
    const pointer = Buffer.concat([
      query(1, 'x', 1).subarray(0, 12),
      Buffer.from([0xc0, 12, 0, 1, 0, 1]),
    ]);
    const longName = query(2, Array.from({ length: 6 }, () => 'a'.repeat(60)).join('.'), 1);
    const cut = query(3, 'cut.example', 1).subarray(0, 20);
    const response = query(4, 'reply.example', 1);
    response[2] = 0x81;
    for (const packet of [pointer, longName, cut]) {
      const reply = await udpExchange(port, packet);
      expect((reply ?? Buffer.alloc(4)).readUInt16BE(2) & 0x000f).toBe(1); // FORMERR
      expect(reply?.length).toBe(12);
    }
    // Not answered at all: a response, a runt, an oversized datagram.
    expect(await udpExchange(port, response, 300)).toBeUndefined();
    expect(await udpExchange(port, Buffer.from([1, 2, 3]), 300)).toBeUndefined();
    expect(await udpExchange(port, Buffer.alloc(5000, 7), 300)).toBeUndefined();
    // An oversized TCP frame closes the connection.
    const closed = await new Promise<boolean>(resolve => {
      const socket = connect(port, '127.0.0.1', () => socket.write(Buffer.from([0xff, 0xff, 0])));
      socket.on('close', () => resolve(true));
      socket.on('error', () => undefined);
    });
    expect(closed).toBe(true);
    expect(dns.take()).toEqual([]);
    expect(await udpExchange(port, query(5, 'still.example', 1))).toBeDefined();
    expect(dns.take()).toMatchObject([{ name: 'still.example' }]);
  });

  it('keeps at most maxRecords distinct lookups and counts the rest as dropped', async () => {
    const { recorder: dns, port } = await started({ maxRecords: 3, maxOwnerLooks: 2 });
    dns.begin();
    for (let index = 0; index < 5; index += 1)
      await udpExchange(port, query(index, `n${index}.example`, 1));
    const taken = dns.take();
    expect(taken).toHaveLength(3);
    expect(dns.dropped).toBe(2);
    // The sender is looked for twice per interval at most.
    expect(taken.map(item => item.pid)).toEqual([process.pid, process.pid, null]);
  });

  it('with forward: records, passes the query on over its transport and relays the answer', async () => {
    const upstream = startDnsRecorder({ port: 0 });
    await upstream.ready;
    upstream.begin();
    try {
      const upstreamPort = Number(upstream.address.split(':')[1]);
      const { recorder: dns, port } = await started({
        forward: { host: '127.0.0.1', port: upstreamPort },
      });
      dns.begin();
      const resolver = new Resolver({ timeout: 3_000, tries: 1 });
      resolver.setServers([`127.0.0.1:${port}`]);
      // The upstream's refusal comes back through the forwarder.
      await expect(resolver.resolve4('fwd.example.net')).rejects.toMatchObject({
        code: 'EREFUSED',
      });
      const packet = query(0x4242, 'tcp-fwd.example.net', 1);
      const framed = Buffer.concat([Buffer.from([0, packet.length]), packet]);
      const reply = await new Promise<Buffer>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(framed));
        let data = Buffer.alloc(0);
        socket.on('data', chunk => {
          data = Buffer.concat([data, chunk]);
          if (data.length >= 2 && data.length >= 2 + data.readUInt16BE(0)) {
            socket.destroy();
            resolve(data.subarray(2));
          }
        });
        socket.on('error', reject);
      });
      expect(reply.readUInt16BE(0)).toBe(0x4242);
      expect(dns.take()).toMatchObject([
        { name: 'fwd.example.net', transport: 'udp', forwarded: true },
        { name: 'tcp-fwd.example.net', transport: 'tcp', forwarded: true },
      ]);
      expect(upstream.take()).toMatchObject([
        { name: 'fwd.example.net', transport: 'udp' },
        { name: 'tcp-fwd.example.net', transport: 'tcp' },
      ]);
    } finally {
      await upstream.close();
    }
  });

  it('a port already taken is reported, not thrown', async () => {
    const { port } = await started();
    const second = startDnsRecorder({ port, bindTimeoutMs: 200 });
    await second.ready;
    expect(second.problem).toMatch(/could not be bound/);
    await second.close();
  });

  it('parses names byte-exactly: other bytes are escaped, case folded', () => {
    const parsed = parseDnsQuery(query(1, 'A b.Example', 1));
    expect(parsed).toMatchObject({ ok: true, name: 'a\\032b.example', type: 'A' });
    expect(parseDnsQuery(query(1, 'x.example', 999))).toMatchObject({ type: 'TYPE999' });
  });
});
