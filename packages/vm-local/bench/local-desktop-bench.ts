// Measures the local desktop against the issue's targets. Run: pnpm --filter @osharm/vm-local bench
// (builds first; needs the Debian packages of docs/packages/vm-local.md). Prints one table.
import { guestRequest } from '@osharm/desktop-guest';
import { createLocalProvider } from '../dist/index.js';
import type { GuestEndpoint } from '@osharm/desktop-env';

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const round = (ms: number) => `${Math.round(ms)} ms`;

async function timed<T>(action: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await action();
  return [value, performance.now() - started];
}

async function shell(endpoint: GuestEndpoint, command: string): Promise<string> {
  const response = await guestRequest(endpoint, '/execute', {
    method: 'POST',
    json: { command, shell: true },
    timeoutMs: 120_000,
  });
  return (JSON.parse(response.body.toString()) as { output: string }).output;
}

async function screenshot(endpoint: GuestEndpoint): Promise<void> {
  const response = await guestRequest(endpoint, '/screenshot');
  if (response.status !== 200) throw new Error(`/screenshot answered ${response.status}`);
}

async function accessibility(
  endpoint: GuestEndpoint,
  mustContain: string,
): Promise<{ ms: number; nodes: number }> {
  const [response, ms] = await timed(() =>
    guestRequest(endpoint, '/accessibility', { timeoutMs: 60_000 }),
  );
  const xml = (JSON.parse(response.body.toString()) as { AT: string }).AT;
  if (!xml.includes(mustContain)) throw new Error(`accessibility tree lacks ${mustContain}`);
  return { ms, nodes: (xml.match(/<[a-z]/g) ?? []).length };
}

/** Opens an office document made inside the desktop (throw-away LibreOffice profile) and waits for it. */
async function openDocument(
  endpoint: GuestEndpoint,
  source: string,
  content: string,
  format: string,
): Promise<void> {
  await shell(
    endpoint,
    `mkdir -p /tmp/bench && printf '${content}' > /tmp/bench/${source} && cd /tmp/bench && ` +
      `soffice -env:UserInstallation=file:///tmp/lo-convert --headless --convert-to ${format} ${source} >/dev/null 2>&1 && ` +
      `cp /tmp/bench/${source.replace(/\.\w+$/, `.${format}`)} ~/`,
  );
  const opened = await guestRequest(endpoint, '/setup/open_file', {
    method: 'POST',
    json: { path: `~/${source.replace(/\.\w+$/, `.${format}`)}` },
    timeoutMs: 90_000,
  });
  if (opened.status !== 200)
    throw new Error(`open_file answered ${opened.status}: ${opened.body.toString()}`);
  await new Promise(resolve => setTimeout(resolve, 2_000)); // let the document finish loading
}

const rows: [string, string, string][] = [];
const provider = createLocalProvider();
try {
  // start → first /screenshot, and teardown, over 5 fresh sandboxes
  const starts: number[] = [];
  const teardowns: number[] = [];
  for (let run = 0; run < 5; run += 1) {
    const [, ms] = await timed(async () => screenshot(await provider.start()));
    starts.push(ms);
    teardowns.push((await timed(() => provider.stop()))[1]);
  }
  rows.push(['start → first /screenshot (median of 5)', round(median(starts)), '< 1000 ms']);
  rows.push(['teardown: stop() (median of 5)', round(median(teardowns)), '≈ 30 ms (probe)']);

  // revert: throw away + start clean, until /screenshot answers
  let endpoint = await provider.start();
  const reverts: number[] = [];
  for (let run = 0; run < 5; run += 1) {
    const [fresh, ms] = await timed(async () => {
      const next = await provider.revert();
      await screenshot(next);
      return next;
    });
    endpoint = fresh;
    reverts.push(ms);
  }
  rows.push(['revert() → first /screenshot (median of 5)', round(median(reverts)), '< 1000 ms']);

  // screenshot round trip
  await screenshot(endpoint);
  const shots: number[] = [];
  for (let run = 0; run < 20; run += 1) shots.push((await timed(() => screenshot(endpoint)))[1]);
  rows.push(['/screenshot round trip (median of 20)', round(median(shots)), '< 100 ms']);

  // accessibility with a Writer document open
  await openDocument(
    endpoint,
    'report.txt',
    'Quarterly Report\\n\\nRevenue grew in every region.\\n',
    'docx',
  );
  await accessibility(endpoint, 'Quarterly Report');
  const writer: { ms: number; nodes: number }[] = [];
  for (let run = 0; run < 5; run += 1)
    writer.push(await accessibility(endpoint, 'Quarterly Report'));
  rows.push([
    `/accessibility, Writer document open (median of 5, ${median(writer.map(w => w.nodes))} nodes)`,
    round(median(writer.map(w => w.ms))),
    '< 1500 ms',
  ]);

  // accessibility with a Calc sheet open (one soffice per task: a fresh desktop)
  endpoint = await provider.revert();
  await openDocument(endpoint, 'fruit.csv', 'Name,Qty\\nApple,3\\nPear,5\\n', 'xlsx');
  await accessibility(endpoint, '>Apple<');
  const calc: { ms: number; nodes: number }[] = [];
  for (let run = 0; run < 5; run += 1) calc.push(await accessibility(endpoint, '>Apple<'));
  rows.push([
    `/accessibility, Calc sheet open (median of 5, ${median(calc.map(c => c.nodes))} nodes)`,
    round(median(calc.map(c => c.ms))),
    '< 3000 ms',
  ]);
} finally {
  await provider.stop();
}

const width = Math.max(...rows.map(row => row[0].length));
console.log(
  `@osharm/vm-local bench (${new Date().toISOString()}, load average ${(await import('node:os')).loadavg()[0]?.toFixed(2)})`,
);
console.log(`${'measure'.padEnd(width)}  ${'measured'.padStart(9)}  target`);
for (const [name, value, target] of rows)
  console.log(`${name.padEnd(width)}  ${value.padStart(9)}  ${target}`);
