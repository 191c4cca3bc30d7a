// How long until VS Code's window appears on the local desktop. Run: pnpm --filter @osharm/vm-local
// bench:vscode (builds first; needs scripts/install-vscode.sh's build or a real VS Code). Prints one table.
//   cold:  fresh desktop, `launch code <file>` (as OS-Harm's setup) → a window titled
//          "<file> - Visual Studio Code" in `wmctrl -l` (server start + Chromium + workbench)
//   folder: VS Code running, `code <folder>` → its new window
//   file:  VS Code running, `code <file>` → the open window shows it
import { guestRequest } from '@osharm/desktop-guest';
import { createLocalProvider, localVscode } from '../dist/index.js';
import type { GuestEndpoint } from '@osharm/desktop-env';

const runs = Number(process.env.RUNS ?? 5);

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function post(endpoint: GuestEndpoint, path: string, json: unknown): Promise<string> {
  const response = await guestRequest(endpoint, path, { method: 'POST', json, timeoutMs: 120_000 });
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
  return response.body.toString();
}

async function shell(endpoint: GuestEndpoint, command: string): Promise<string> {
  const body = await post(endpoint, '/execute', { command, shell: true });
  return (JSON.parse(body) as { output: string }).output;
}

/** Milliseconds from `start()` until a `wmctrl -l` line matches `title`. */
async function untilWindow(
  endpoint: GuestEndpoint,
  title: RegExp,
  start: () => Promise<unknown>,
): Promise<number> {
  const started = performance.now();
  await start();
  const deadline = started + 60_000;
  for (;;) {
    const lines = (await shell(endpoint, 'wmctrl -l')).split('\n');
    if (lines.some(line => title.test(line))) return performance.now() - started;
    if (performance.now() > deadline) throw new Error(`no window ${title} after 60 s`);
    await new Promise(resolve => setTimeout(resolve, 50));
  }
}

const vscode = localVscode();
if (vscode.kind === 'stand-in') {
  console.error(`No VS Code on this machine: ${vscode.installCommand}`);
  process.exit(1);
}
const provider = createLocalProvider();
const cold: number[] = [];
const folder: number[] = [];
const file: number[] = [];
try {
  let endpoint = await provider.start();
  for (let run = 0; run < runs; run += 1) {
    if (run > 0) endpoint = await provider.revert();
    await shell(
      endpoint,
      'mkdir -p ~/project ~/other && echo "x = 1" > ~/project/main.py && echo "y = 2" > ~/project/util.py',
    );
    cold.push(
      await untilWindow(endpoint, / main\.py - Visual Studio Code$/, () =>
        post(endpoint, '/setup/launch', { command: ['code', '/home/user/project/main.py'] }),
      ),
    );
    folder.push(
      await untilWindow(endpoint, / other - Visual Studio Code$/, () =>
        post(endpoint, '/setup/launch', { command: ['code', '/home/user/other'] }),
      ),
    );
    file.push(
      await untilWindow(endpoint, / util\.py - .*Visual Studio Code$/, () =>
        shell(endpoint, 'code ~/project/util.py'),
      ),
    );
  }
} finally {
  await provider.stop();
}
const row = (name: string, values: number[]) =>
  `| ${name.padEnd(44)} | ${seconds(median(values)).padStart(7)} | ${seconds(Math.min(...values)).padStart(7)} | ${seconds(Math.max(...values)).padStart(7)} |`;
console.log(`VS Code: ${vscode.kind} (${vscode.version ?? vscode.path}), ${runs} runs`);
console.log('| measure                                      |  median |     min |     max |');
console.log('| -------------------------------------------- | ------- | ------- | ------- |');
console.log(row('cold: launch code FILE → its window', cold));
console.log(row('running: code FOLDER → a new window', folder));
console.log(row('running: code FILE → shown in the window', file));
