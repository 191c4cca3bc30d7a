// Bounded transfers (issue 24, finding 1): the harness's peak memory (VmHWM of this process) while
// an agent offers a 100 GiB sparse file. Three cases, each printed with its figures:
//  A. the embedded desktop: the agent makes a 100 GiB sparse file in its home and tries to replace
//     the recording with one; the harness fetches the file (as the evaluators' `vm_file`) and ends
//     the real recording, streamed to disk.
//  B. a guest that sends it anyway (a guest server without the sparse check, a compromised VM
//     image): a loopback server answering /end_recording and /file with 100 GiB of bytes; the
//     client streams to disk and stops at the cap (2 GiB recording, 1 GiB file by default).
// Run:  pnpm --filter @osharm/vm-local bench:transfer   [-- --skip-desktop]
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createGuestClient } from '@osharm/desktop-env';
import { createLocalProvider } from '../dist/index.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter(argument => argument !== '--'),
  options: { 'skip-desktop': { type: 'boolean', default: false } },
});
const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const peakMb = () => {
  const line = readFileSync('/proc/self/status', 'utf8').match(/^VmHWM:\s+(\d+) kB/m);
  return Number(line?.[1] ?? 0) / 1024;
};
const rssMb = () => process.memoryUsage().rss / MiB;
const scratch = mkdtempSync(join(tmpdir(), 'osharm-transfer-bench-'));
const report = (label: string, started: number, detail: string) =>
  console.log(
    `${label.padEnd(58)} ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s  rss ${rssMb().toFixed(0).padStart(4)} MB  peak ${peakMb().toFixed(0).padStart(4)} MB  ${detail}`,
  );

console.log(`harness at start: rss ${rssMb().toFixed(0)} MB, peak ${peakMb().toFixed(0)} MB`);

if (!values['skip-desktop']) {
  const provider = createLocalProvider();
  const endpoint = await provider.start();
  const client = createGuestClient(endpoint);
  try {
    let started = Date.now();
    await client.startRecording();
    const offer = await client.execute(
      [
        '/bin/bash',
        '-c',
        'truncate -s 100G ~/recording.mp4 && ls -ls ~/recording.mp4; truncate -s 100G "$XDG_RUNTIME_DIR/osharm/recording.mp4" 2>&1; ls -A "$XDG_RUNTIME_DIR/osharm" | wc -l',
      ],
      { timeoutMs: 60_000 },
    );
    report(
      'A. agent offers 100 GiB sparse files',
      started,
      offer.output.trim().replace(/\n/g, ' | '),
    );
    started = Date.now();
    const fetched = await client
      .downloadFile('/home/user/recording.mp4', join(scratch, 'fetched.mp4'))
      .then(
        result => JSON.stringify(result),
        (error: Error) => error.message.slice(0, 90),
      );
    report("A. harness fetches it (evaluators' vm_file path)", started, fetched);
    await new Promise(resolve => setTimeout(resolve, 3_000));
    started = Date.now();
    const recording = await client.endRecordingTo(join(scratch, 'recording.mp4'));
    report(
      'A. harness ends the real recording (streamed to disk)',
      started,
      `${JSON.stringify(recording)}, file ${(statSync(join(scratch, 'recording.mp4')).size / 1024).toFixed(0)} KiB`,
    );
  } finally {
    await client.close();
    await provider.stop();
  }
}

// B. A guest that sends 100 GiB whatever it is asked.
const chunk = Buffer.alloc(4 * MiB, 0x42);
const hostile = createServer((request, response) => {
  request.resume();
  response.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-length': String(100 * GiB),
  });
  let sent = 0;
  const pump = () => {
    while (sent < 100 * GiB) {
      sent += chunk.length;
      if (!response.write(chunk)) {
        response.once('drain', pump);
        return;
      }
    }
    response.end();
  };
  response.on('close', () => (sent = 100 * GiB));
  pump();
});
await new Promise<void>(resolve => hostile.listen(0, '127.0.0.1', resolve));
const port = (hostile.address() as AddressInfo).port;
const client = createGuestClient({
  baseUrl: `http://127.0.0.1:${port}`,
  host: '127.0.0.1',
  serverPort: port,
});
try {
  let started = Date.now();
  const recording = await client.endRecordingTo(join(scratch, 'hostile.mp4'));
  report(
    'B. hostile guest: /end_recording of 100 GiB, default cap',
    started,
    `${JSON.stringify(recording)}`,
  );
  rmSync(join(scratch, 'hostile.mp4'), { force: true });
  started = Date.now();
  const file = await client.downloadFile('/x', join(scratch, 'hostile.bin'));
  report('B. hostile guest: /file of 100 GiB, default cap', started, JSON.stringify(file));
  rmSync(join(scratch, 'hostile.bin'), { force: true });
  started = Date.now();
  const inMemory = await client.getFile('/x').then(
    data => `${data?.length} bytes`,
    (error: Error) => error.message.slice(0, 80),
  );
  report('B. hostile guest: /file of 100 GiB read into memory', started, inMemory);
} finally {
  await client.close();
  hostile.close();
  hostile.closeAllConnections();
  rmSync(scratch, { recursive: true, force: true });
}
console.log(`harness peak over the whole bench: ${peakMb().toFixed(0)} MB (target ≤ 300 MB)`);
