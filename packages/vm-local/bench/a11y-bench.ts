// The accessibility walk of a Calc sheet with ~3,000 filled cells: the walker before issue 16 (taken
// from git, run inside the same desktop) against the current one, same sheet, same moment. Prints
// the walk times (median of N), node counts, and whether both produce the same XML. Run:
//   pnpm --filter @osharm/vm-local bench:a11y   [-- --walks 5 --before <commit>]
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createLocalProvider, guestRequest } from '../dist/index.js';
import type { GuestEndpoint } from '@osharm/desktop-env';

const { values } = parseArgs({
  options: {
    walks: { type: 'string', default: '5' },
    before: { type: 'string', default: 'd2d487a' },
  },
});
const walks = Number(values.walks);
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const oldHelper = execFileSync(
  'git',
  ['show', `${values.before}:packages/vm-local/guest/desktop_helper.py`],
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

/** Runs one helper's walk in the guest; prints `ms nodes truncated sha256`. */
function walkCommand(dir: string): string {
  return `cd ${dir} && /usr/bin/python3 -c "
import hashlib, time, desktop_helper as d
t = time.monotonic()
r = d.accessibility({'mode': 'showing', 'deadline_ms': 60000})
print(round((time.monotonic() - t) * 1000), r['nodes'], r['truncated'], hashlib.sha256(r['xml'].encode()).hexdigest()[:16])
"`;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const provider = createLocalProvider({ accessibilityDeadlineMs: 60_000 });
const endpoint = await provider.start();
try {
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
  await new Promise(resolve => setTimeout(resolve, 3_000));
  const current = '/opt/osharm/vm-local/guest';
  const results: Record<string, { ms: number[]; line: string }> = {
    before: { ms: [], line: '' },
    now: { ms: [], line: '' },
  };
  for (let index = 0; index < walks; index += 1) {
    for (const [label, dir] of [
      ['before', '/tmp/old'],
      ['now', current],
    ] as const) {
      const line = (await shell(endpoint, walkCommand(dir))).trim().split('\n').at(-1)!;
      results[label]!.ms.push(Number(line.split(' ')[0]));
      results[label]!.line = line;
    }
  }
  const [, nodesBefore, cutBefore, hashBefore] = results.before!.line.split(' ');
  const [, nodesNow, cutNow, hashNow] = results.now!.line.split(' ');
  console.log(
    `Calc sheet, 300 × 10 filled cells, 1920×1080 window; ${walks} walks each, alternating`,
  );
  console.log('| walker | median ms | min ms | nodes | truncated |');
  console.log('|---|---|---|---|---|');
  console.log(
    `| before (${values.before}) | ${median(results.before!.ms)} | ${Math.min(...results.before!.ms)} | ${nodesBefore} | ${cutBefore} |`,
  );
  console.log(
    `| now | ${median(results.now!.ms)} | ${Math.min(...results.now!.ms)} | ${nodesNow} | ${cutNow} |`,
  );
  console.log(`same XML: ${hashBefore === hashNow ? 'yes' : 'no'} (${hashBefore} / ${hashNow})`);
} finally {
  await provider.stop();
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
