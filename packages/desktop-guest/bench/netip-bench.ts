// The connection watch's cost (guest-harm-net.ts): CPU per 100 ms poll with no new socket (the
// steady state: packet counters, the four socket tables every 10th poll) and per forced table read,
// beside the process watch's own poll (guest-harm-procs.ts),
// and the poll that finds a burst of new SYN_SENT sockets and looks up their owners. Run in a
// throwaway network namespace (unshare -rn) given the desktop's egress sink and a desktop's worth of
// loopback connections. Printed, not asserted.
// Run:  pnpm --filter @osharm/desktop-guest bench:netip   [-- --loopback 300 --burst 50 --polls 1000]
// (the sources themselves, through --experimental-transform-types: no build needed)
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { ConnectionWatch } from '../src/guest-harm-net.ts';
import { ProcessWatch } from '../src/guest-harm-procs.ts';
import { addEgressSink } from '../dist/index.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter(argument => argument !== '--'),
  options: {
    loopback: { type: 'string', default: '300' },
    burst: { type: 'string', default: '50' },
    polls: { type: 'string', default: '1000' },
  },
});
const [loopback, burst, polls] = [values.loopback, values.burst, values.polls].map(Number);
if (![loopback, burst, polls].every(n => Number.isInteger(n) && n! >= 1 && n! <= 5000)) {
  console.error('netip-bench: --loopback, --burst and --polls want integers from 1 to 5000');
  process.exit(2);
}
const script = String.raw`
import socket, sys
listener = socket.socket(); listener.bind(("127.0.0.1", 0)); listener.listen(4096)
held = []
for _ in range(${loopback}):
    client = socket.create_connection(listener.getsockname()); server, _ = listener.accept()
    held += [client, server]
print("ready", flush=True)
sys.stdin.readline()
for i in range(${burst}):
    s = socket.socket(); s.setblocking(False); s.connect_ex(("192.0.2.%d" % (i % 250 + 1), 8443)); held.append(s)
print("burst", flush=True)
sys.stdin.read()
`;
const child = spawn(
  'unshare',
  ['-rn', 'sh', '-c', 'ip link set lo up && exec python3 -c "$0"', script],
  {
    stdio: ['pipe', 'pipe', 'inherit'],
  },
);
const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
try {
  if ((await lines.next()).value !== 'ready') throw new Error('the socket holder did not start');
  const sink = await addEgressSink(child.pid!);
  const procNet = `/proc/${child.pid}/net`;
  const cpu = (run: () => void) => {
    const start = process.cpuUsage();
    for (let i = 0; i < polls!; i++) run();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / polls!;
  };
  const sockets = new ConnectionWatch({ exclude: () => false, procNet });
  sockets.begin();
  const processes = new ProcessWatch(100, 20_000, () => false);
  processes.start();
  processes.stop();
  const steadyNet = cpu(() => sockets.poll());
  const fullNet = cpu(() => sockets.poll(true));
  const steadyProc = cpu(() => processes.poll());
  child.stdin!.write('go\n');
  if ((await lines.next()).value !== 'burst') throw new Error('no burst');
  const start = process.cpuUsage();
  const wall = performance.now();
  sockets.poll();
  const used = process.cpuUsage(start);
  const found = sockets.take();
  const rows =
    (await import('node:fs')).readFileSync(`${procNet}/tcp`, 'utf8').split('\n').length - 2;
  console.log(
    `sink: ${sink.kind}; ${rows} rows in the namespace's /proc/net/tcp; this machine's /proc: ${(await import('node:fs')).readdirSync('/proc').filter(n => /^\d+$/.test(n)).length} processes`,
  );
  console.log(`CPU per poll, mean of ${polls}:`);
  console.log(`  process watch (existing)                        ${steadyProc.toFixed(0)} µs`);
  console.log(`  connection watch, the four tables read (forced) ${fullNet.toFixed(0)} µs`);
  console.log(`  connection watch as run, no packet out (added)  ${steadyNet.toFixed(0)} µs`);
  console.log(
    `  added share at one poll per 100 ms              ${(steadyNet / 1000).toFixed(2)} % of one core`,
  );
  console.log(
    `the poll finding ${burst} new SYN_SENT sockets (${found.length} records, owners looked up): ${((used.user + used.system) / 1000).toFixed(1)} ms CPU, ${(performance.now() - wall).toFixed(1)} ms wall`,
  );
} finally {
  child.kill('SIGKILL');
}
