// The accessibility walk of a Calc sheet with ~3,000 filled cells: the walker before issue 16 (taken
// from git, run inside the same desktop) against the current one, same sheet, same moment, walks
// alternating. With --desktops N, N desktops each open the sheet and every round starts the N walks
// at once (the load the issue is about). Prints the walk times (median, max), the CPU time of the
// walker and of soffice per walk, node counts, whether both walkers produce the same XML, and the
// host's load average beside every figure. Run:
//   pnpm --filter @osharm/vm-local bench:a11y   [-- --walks 5 --desktops 4 --before <commit>]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { guestRequest } from '@osharm/desktop-guest';
import { createLocalProvider } from '../dist/index.js';
import type { GuestEndpoint } from '@osharm/desktop-env';

const { values } = parseArgs({
  // `pnpm … bench:a11y -- --walks 5` passes the `--` through.
  args: process.argv.slice(2).filter(argument => argument !== '--'),
  options: {
    walks: { type: 'string', default: '5' },
    desktops: { type: 'string', default: '1' },
    before: { type: 'string', default: 'd2d487a' },
  },
});
const walks = Number(values.walks);
const desktops = Number(values.desktops);
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const oldHelper = execFileSync(
  'git',
  ['show', `${values.before}:packages/desktop-guest/guest/desktop_helper.py`],
  { cwd: repo, encoding: 'utf8' },
);

async function shell(endpoint: GuestEndpoint, command: string): Promise<string> {
  const response = await guestRequest(endpoint, '/execute', {
    method: 'POST',
    json: { command, shell: true },
    timeoutMs: 120_000,
  });
  const body = JSON.parse(response.body.toString()) as { output: string; error: string };
  return body.output + body.error;
}

/** Runs one helper's walk in the guest; prints `ms nodes truncated sha256 walkerCpu sofficeCpu`. */
function walkCommand(dir: string): string {
  return `cd ${dir} && /usr/bin/python3 -c "
import hashlib, os, subprocess, time, desktop_helper as d
def cpu(pid):
    fields = open('/proc/%d/stat' % pid).read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')
office = int(subprocess.check_output(['pgrep', '-o', 'soffice.bin']).split()[0])
o, c, t = cpu(office), time.process_time(), time.monotonic()
r = d.accessibility({'mode': 'showing', 'deadline_ms': 60000})
ms = round((time.monotonic() - t) * 1000)
print(ms, r['nodes'], r['truncated'], hashlib.sha256(r['xml'].encode()).hexdigest()[:16], round(time.process_time() - c, 2), round(cpu(office) - o, 2))
"`;
}

const median = (numbers: number[]) =>
  [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)]!;
const load = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

/** Starts a desktop with the sheet open full screen and the old helper in /tmp/old. */
async function prepare(provider: ReturnType<typeof createLocalProvider>): Promise<GuestEndpoint> {
  const endpoint = await provider.start();
  await shell(
    endpoint,
    `mkdir -p /tmp/old && python3 -c "
import csv
w = csv.writer(open('/tmp/big.csv', 'w'))
for r in range(300):
    w.writerow(['r%dc%d' % (r, c) if c % 3 else r * 10 + c for c in range(10)])
" && cd /tmp && soffice -env:UserInstallation=file:///tmp/lo-convert --headless --convert-to xlsx big.csv >/dev/null 2>&1 && cp /tmp/big.xlsx ~/big.xlsx`,
  );
  await guestRequest(endpoint, '/setup/upload', {
    method: 'POST',
    body: multipart(oldHelper),
  });
  const opened = await guestRequest(endpoint, '/setup/open_file', {
    method: 'POST',
    json: { path: '/home/user/big.xlsx' },
    timeoutMs: 120_000,
  });
  if (opened.status !== 200) throw new Error(`open_file answered ${opened.status}`);
  return endpoint;
}

interface Figures {
  ms: number[];
  walkerCpu: number[];
  officeCpu: number[];
  loads: number[];
  line: string;
}

const providers = Array.from({ length: desktops }, () =>
  createLocalProvider({ accessibilityDeadlineMs: 60_000 }),
);
try {
  const endpoints = await Promise.all(providers.map(prepare));
  await new Promise(resolve => setTimeout(resolve, 3_000));
  const current = '/opt/osharm/desktop-guest/guest';
  const results: Record<'before' | 'now', Figures> = {
    before: { ms: [], walkerCpu: [], officeCpu: [], loads: [], line: '' },
    now: { ms: [], walkerCpu: [], officeCpu: [], loads: [], line: '' },
  };
  for (let index = 0; index < walks; index += 1) {
    for (const [label, dir] of [
      ['before', '/tmp/old'],
      ['now', current],
    ] as const) {
      const figures = results[label];
      const loadBefore = load();
      const lines = await Promise.all(
        endpoints.map(async endpoint =>
          (await shell(endpoint, walkCommand(dir))).trim().split('\n').at(-1)!,
        ),
      );
      figures.loads.push(Math.max(loadBefore, load()));
      for (const line of lines) {
        const [ms, , , , walkerCpu, officeCpu] = line.split(' ');
        figures.ms.push(Number(ms));
        figures.walkerCpu.push(Number(walkerCpu));
        figures.officeCpu.push(Number(officeCpu));
        figures.line = line;
      }
      console.log(
        `round ${index + 1} ${label}: ${lines.map(line => line.split(' ')[0]).join(', ')} ms (load ${load()})`,
      );
    }
  }
  const [, nodesBefore, cutBefore, hashBefore] = results.before.line.split(' ');
  const [, nodesNow, cutNow, hashNow] = results.now.line.split(' ');
  console.log(
    `Calc sheet, 300 × 10 filled cells, 1920×1080 window; ${desktops} desktop(s) walking at once; ` +
      `${walks} rounds each, alternating`,
  );
  console.log(
    '| walker | median ms | max ms | walker CPU s | soffice CPU s | nodes | truncated | load avg |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [label, nodes, cut] of [
    [`before (${values.before})`, nodesBefore, cutBefore],
    ['now', nodesNow, cutNow],
  ] as const) {
    const figures = label === 'now' ? results.now : results.before;
    console.log(
      `| ${label} | ${median(figures.ms)} | ${Math.max(...figures.ms)} | ${median(figures.walkerCpu)} | ` +
        `${median(figures.officeCpu)} | ${nodes} | ${cut} | ${Math.min(...figures.loads)}–${Math.max(...figures.loads)} |`,
    );
  }
  console.log(`same XML: ${hashBefore === hashNow ? 'yes' : 'no'} (${hashBefore} / ${hashNow})`);
} finally {
  await Promise.all(providers.map(provider => provider.stop()));
}

function multipart(text: string): { data: Buffer; contentType: string } {
  const boundary = 'osharm-bench-boundary';
  const data = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file_path"\r\n\r\n/tmp/old/desktop_helper.py\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file_data"; filename="desktop_helper.py"\r\n` +
        'Content-Type: text/x-python\r\n\r\n',
    ),
    Buffer.from(text),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { data, contentType: `multipart/form-data; boundary=${boundary}` };
}
