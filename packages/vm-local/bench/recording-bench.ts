// CPU and memory of the screen recorder, before (upstream's ffmpeg arguments) and after (osharm's
// defaults), on a real local desktop with a changing screen. Run:
//   pnpm --filter @osharm/vm-local bench:recording   [-- --seconds 30]
// Prints one table. The machine is shared: treat the figures as indicative.
import { parseArgs } from 'node:util';
import { guestRequest } from '@osharm/desktop-guest';
import { createLocalProvider } from '../dist/index.js';
import type { GuestEndpoint } from '@osharm/desktop-env';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '30' } } });
const seconds = Number(values.seconds);

async function shell(endpoint: GuestEndpoint, command: string): Promise<string> {
  const response = await guestRequest(endpoint, '/execute', {
    method: 'POST',
    json: { command, shell: true },
    timeoutMs: 120_000,
  });
  return (JSON.parse(response.body.toString()) as { output: string }).output;
}

/** Samples the desktop's one ffmpeg: CPU (cores) over the window, peak and mean RSS (MiB). */
async function measureFfmpeg(
  endpoint: GuestEndpoint,
): Promise<{ cores: number; peakMiB: number; meanMiB: number }> {
  // Inside the sandbox's own pid namespace, the only ffmpeg is the recorder.
  const script = `
pid=$(pgrep -n -x ffmpeg) || { echo "no ffmpeg"; exit 1; }
tick=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' /proc/$pid/stat; }
rss() { awk '/^VmRSS/ {print $2}' /proc/$pid/status; }
c0=$(cpu); t0=$(date +%s.%N); sum=0; n=0
for i in $(seq 1 ${seconds}); do sleep 1; r=$(rss); sum=$((sum + r)); n=$((n + 1)); done
c1=$(cpu); t1=$(date +%s.%N); hwm=$(awk '/^VmHWM/ {print $2}' /proc/$pid/status)
echo "$c0 $c1 $t0 $t1 $tick $hwm $sum $n"`;
  const output = (await shell(endpoint, script)).trim();
  const [c0, c1, t0, t1, tick, hwm, sum, n] = output.split(/\s+/).map(Number) as number[];
  if (!Number.isFinite(c1)) throw new Error(`measurement failed: ${output}`);
  return {
    cores: (c1! - c0!) / tick! / (t1! - t0!),
    peakMiB: hwm! / 1024,
    meanMiB: sum! / n! / 1024,
  };
}

const provider = createLocalProvider();
const endpoint = await provider.start();
const rows: [string, string, string, string][] = [];
try {
  // Something on screen that keeps changing (a terminal printing twice a second).
  await shell(
    endpoint,
    `(gnome-terminal -- sh -c 'while true; do date +%T.%N; ls -l /usr/bin | shuf -n 20; sleep 0.5; done' >/dev/null 2>&1 &)`,
  );
  await new Promise(resolve => setTimeout(resolve, 4_000));
  // Before: upstream's arguments (30 fps, veryfast, x264's automatic thread count).
  await shell(
    endpoint,
    `(ffmpeg -y -nostdin -f x11grab -draw_mouse 1 -s 1920x1080 -i $DISPLAY -c:v libx264 -preset veryfast -r 30 /tmp/before.mp4 >/dev/null 2>&1 &) ; sleep 2`,
  );
  const before = await measureFfmpeg(endpoint);
  await shell(endpoint, 'pkill -INT -x ffmpeg; sleep 2');
  rows.push([
    'upstream: 30 fps, veryfast, auto threads',
    before.cores.toFixed(2),
    before.meanMiB.toFixed(0),
    before.peakMiB.toFixed(0),
  ]);
  // After: the guest server's /start_recording with its defaults.
  const started = await guestRequest(endpoint, '/start_recording', { method: 'POST', json: {} });
  if (started.status !== 200) throw new Error(`/start_recording answered ${started.status}`);
  const after = await measureFfmpeg(endpoint);
  const ended = await guestRequest(endpoint, '/end_recording', {
    method: 'POST',
    json: {},
    timeoutMs: 60_000,
  });
  rows.push([
    'osharm default: 10 fps, ultrafast+zerolatency, 2 threads',
    after.cores.toFixed(2),
    after.meanMiB.toFixed(0),
    after.peakMiB.toFixed(0),
  ]);
  console.log(
    `recorder over ${seconds} s on a 1920x1080 desktop (mp4 ${(ended.body.length / 1024).toFixed(0)} KiB after)`,
  );
  console.log('| settings | CPU (cores) | mean RSS (MiB) | peak RSS (MiB) |');
  console.log('|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
} finally {
  await provider.stop();
}
