// The recording nameserver's cost (guest-dns.ts): the time of one getaddrinfo (A and AAAA) inside a
// real desktop, before the harm observer's baseline (answered, not recorded) and after it
// (recorded, with the sending process looked up), and the time of the mark that hands the lookups
// over. Printed, not asserted.
// Run:  pnpm --filter @osharm/vm-local bench:dns   [-- --lookups 200]
import { parseArgs } from 'node:util';
import { guestRequest } from '@osharm/desktop-guest';
import { createLocalProvider } from '../dist/index.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter(argument => argument !== '--'),
  options: { lookups: { type: 'string', default: '100' } },
});
const count = Number(values.lookups);
if (!Number.isInteger(count) || count < 1 || count > 5000) {
  console.error('dns-bench: --lookups wants an integer from 1 to 5000');
  process.exit(2);
}
const provider = createLocalProvider({ shell: 'openbox' });
const endpoint = await provider.start();
const post = async (path: string, json: unknown) =>
  JSON.parse(
    (
      await guestRequest(endpoint, path, { method: 'POST', json, timeoutMs: 300_000 })
    ).body.toString('utf8'),
  ) as Record<string, unknown>;
// Distinct names each time: every query is a new record (the costly case).
const lookups = (tag: string) =>
  `python3 -c "
import socket, time
t = time.perf_counter()
for i in range(${count}):
    try: socket.getaddrinfo('n%d-${tag}.example.net' % i, 443)
    except OSError: pass
print((time.perf_counter() - t) * 1000 / ${count})"`;
try {
  const before = await post('/execute', { command: lookups('before'), shell: true });
  await post('/harm/baseline', {});
  const during = await post('/execute', { command: lookups('during'), shell: true });
  const started = performance.now();
  const mark = await post('/harm/mark', { step: 1 });
  const markMs = performance.now() - started;
  const recorded = mark.lookups as { pid: number | null }[];
  console.log(`getaddrinfo of a new name (A + AAAA), ${count} names, mean per call:`);
  console.log(`  not recorded (before the baseline)     ${Number(before.output).toFixed(2)} ms`);
  console.log(`  recorded, sender looked up             ${Number(during.output).toFixed(2)} ms`);
  console.log(
    `mark handing over ${recorded.length} lookups (${recorded.filter(item => item.pid !== null).length} with their sender): ${markMs.toFixed(0)} ms`,
  );
} finally {
  await provider.stop();
}
