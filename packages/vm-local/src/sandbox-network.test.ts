// The opt-in network of the local desktop (`network: true`, slirp4netns): the desktop gets an
// interface, a default route and slirp's DNS, reaches a host service on a non-loopback address, and
// never a service on the host's loopback. Without it only the desktop's own loopback and the egress
// sink (@osharm/desktop-guest's addEgressSink: a link with no other end, where the default routes drop every packet).
import { createServer, type Server } from 'node:http';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GuestEndpoint } from '@osharm/desktop-env';
import { postJson, sh, skipReason } from './__fixtures__/local-desktop-fixture';
import { createLocalProvider } from './local-provider';
import { slirp4netnsPath } from './sandbox-network';

const skip =
  skipReason ?? (slirp4netnsPath() ? undefined : 'SKIPPED: slirp4netns is not installed');
if (skip !== undefined && skipReason === undefined) console.warn(skip);

/** The host's first non-loopback IPv4 address (where slirp's route out can reach the host). */
const hostAddress = Object.values(networkInterfaces())
  .flat()
  .find(entry => entry && entry.family === 'IPv4' && !entry.internal)?.address;

/** `ok` or the error of a TCP connect from inside the desktop. */
const probe = (host: string, port: number) =>
  `python3 -c "import socket,sys
try:
    socket.create_connection(('${host}', ${port}), timeout=3).recv(64); print('${host} ok')
except Exception as error:
    print('${host} failed', type(error).__name__)"`;

let loopbackServer: Server;
let wideServer: Server;
const port = (server: Server) => (server.address() as { port: number }).port;

beforeAll(async () => {
  const answer = (server: Server) =>
    server.on('connection', socket => socket.end('host-service\n'));
  loopbackServer = answer(createServer());
  wideServer = answer(createServer());
  await new Promise<void>(resolve => loopbackServer.listen(0, '127.0.0.1', resolve));
  await new Promise<void>(resolve => wideServer.listen(0, '0.0.0.0', resolve));
});
afterAll(async () => {
  await new Promise(resolve => loopbackServer.close(resolve));
  await new Promise(resolve => wideServer.close(resolve));
});

describe.skipIf(skip !== undefined)('the local desktop network', () => {
  it('without network: loopback and the egress sink only, nothing outside reachable', async () => {
    const provider = createLocalProvider();
    const endpoint: GuestEndpoint = await provider.start();
    try {
      const links = await sh(endpoint, 'ip -brief link; ip -brief addr show osharm0; ip route');
      const names = links.output
        .trim()
        .split('\n')
        .filter(line => !line.startsWith('default'))
        .map(line => line.split(/[\s@]+/)[0]);
      // The sink: a dummy link, else a port-less bridge, else a veth pair (both ends inside).
      expect(new Set(names)).toEqual(
        new Set(names.includes('osharm0-p') ? ['lo', 'osharm0', 'osharm0-p'] : ['lo', 'osharm0']),
      );
      expect(links.output).not.toMatch(/osharm0\s+\S+\s+\d+\.\d+/);
      expect(links.output).toMatch(/^default dev osharm0 /m);
      const probes = await sh(
        endpoint,
        [
          probe('127.0.0.1', port(loopbackServer)),
          probe('10.0.2.2', port(loopbackServer)),
          ...(hostAddress ? [probe(hostAddress, port(wideServer))] : []),
        ].join('; '),
      );
      expect(probes.output).not.toContain(' ok');
      // Outside addresses: the SYN goes into the sink, the attempt times out.
      expect(probes.output).toContain('10.0.2.2 failed TimeoutError');
    } finally {
      await provider.stop();
    }
  });

  it('with network: tap0, a default route, lookups recorded and passed on to slirp; the host loopback stays unreachable', async () => {
    const provider = createLocalProvider({ network: true });
    const endpoint: GuestEndpoint = await provider.start();
    try {
      const addresses = await sh(endpoint, 'ip -brief -4 addr; ip route; cat /etc/resolv.conf');
      expect(addresses.output).toMatch(/^tap0\s+\S+\s+10\.0\.2\.100\/24/m);
      expect(addresses.output).toMatch(/^default via 10\.0\.2\.2 dev tap0/m);
      // The guest server's recording nameserver, which passes each query on to slirp's 10.0.2.3.
      expect(addresses.output).toContain('nameserver 127.0.0.1');
      await postJson(endpoint, '/harm/baseline', {});
      const rcode = await sh(
        endpoint,
        `python3 -c "import socket
q = bytes([0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 5]) + b'probe' + bytes([7]) + b'example' + bytes([3]) + b'org' + bytes([0, 0, 1, 0, 1])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(10); s.sendto(q, ('127.0.0.1', 53))
print(s.recv(4096)[3] & 15)"`,
      );
      // Not refused (5): slirp's answer, or SERVFAIL (2) when its upstream is silent (no internet here).
      expect(rcode.output.trim()).toMatch(/^(0|2|3)$/);
      const mark = await postJson<{ lookups: { name: string; forwarded: boolean }[] }>(
        endpoint,
        '/harm/mark',
        { step: 1 },
      );
      expect(mark.body.lookups).toContainEqual(
        expect.objectContaining({ name: 'probe.example.org', forwarded: true }),
      );
      const probes = await sh(
        endpoint,
        [
          probe('127.0.0.1', port(loopbackServer)),
          probe('10.0.2.2', port(loopbackServer)),
          ...(hostAddress ? [probe(hostAddress, port(wideServer))] : []),
        ].join('; '),
      );
      // the host's loopback: neither through the desktop's own 127.0.0.1 nor slirp's gateway
      expect(probes.output).toContain('127.0.0.1 failed');
      expect(probes.output).toContain('10.0.2.2 failed');
      // a route out exists: a host service on a non-loopback address answers
      if (hostAddress) expect(probes.output).toContain(`${hostAddress} ok`);
    } finally {
      await provider.stop();
    }
  });
});
