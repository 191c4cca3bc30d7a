// Bounded transfers out of a desktop (issue 24, finding 1), against the REAL guest server of
// @osharm/desktop-guest on an Xvfb display: the guest refuses sparse and special files, and the client
// reads every answer incrementally up to its cap (in memory: fails; to disk: keeps what came and
// says truncated). The harness-memory figure of a 100 GiB sparse recording is measured by
// packages/vm-local/bench/transfer-bench.ts, not here.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuestRequestError } from './desktop-env-errors';
import { createGuestClient } from './guest-client-undici';
import type { UndiciGuestClient } from './guest-client-undici';
import {
  missingForRealGuestServer,
  startRealGuestServer,
  type RealGuestServer,
} from './test/real-guest-server';

const missing = missingForRealGuestServer(['/usr/bin/mkfifo']);

describe.skipIf(missing.length > 0)('transfers out of the desktop are bounded', () => {
  let directory: string;
  let home: string;
  let server: RealGuestServer | undefined;
  let client: UndiciGuestClient;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'osharm-transfer-'));
    home = join(directory, 'home');
    await mkdir(home, { recursive: true });
    server = await startRealGuestServer({ home, socketPath: join(directory, 'guest.sock') });
    client = server.client;
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it('the guest refuses a sparse file (100 GiB in no disk space) with 422, at once', async () => {
    const sparse = join(home, 'recording.mp4');
    writeFileSync(sparse, '');
    truncateSync(sparse, 100 * 1024 ** 3);
    const started = Date.now();
    const error = await client.getFile(sparse).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GuestRequestError);
    expect((error as GuestRequestError).status).toBe(422);
    expect((error as Error).message).toMatch(/sparse file refused/);
    const destination = join(directory, 'fetched.mp4');
    await expect(client.downloadFile(sparse, destination)).rejects.toThrow(/422/);
    expect(existsSync(destination)).toBe(false);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('the guest refuses a FIFO and a device without blocking on them', async () => {
    const fifo = join(home, 'pipe');
    execFileSync('/usr/bin/mkfifo', [fifo]);
    const started = Date.now();
    for (const path of [fifo, '/dev/zero']) {
      const error = await client.getFile(path).catch((caught: unknown) => caught);
      expect((error as GuestRequestError).status).toBe(422);
      expect((error as Error).message).toMatch(/not a regular file/);
    }
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a file longer than the download cap is streamed to disk up to the cap, marked truncated', async () => {
    const big = join(home, 'big.bin');
    writeFileSync(big, Buffer.alloc(3 * 1024 * 1024, 7));
    const destination = join(directory, 'big-copy.bin');
    const cut = await client.downloadFile(big, destination, { maxBytes: 1024 * 1024 });
    expect(cut).toEqual({ bytes: 1024 * 1024, truncated: true });
    expect(statSync(destination).size).toBe(1024 * 1024);
    const whole = await client.downloadFile(big, destination, { maxBytes: 8 * 1024 * 1024 });
    expect(whole).toEqual({ bytes: 3 * 1024 * 1024, truncated: false });
    expect((await readFile(destination)).equals(Buffer.alloc(3 * 1024 * 1024, 7))).toBe(true);
    expect(await client.downloadFile(join(home, 'absent'), destination)).toBeNull();
  });

  it('an answer read into memory past its cap fails once (not retried), naming the cap', async () => {
    const big = join(home, 'big.bin');
    const capped = createGuestClient(client.endpoint, {
      answerLimits: { getFile: 512 * 1024 },
      maxRetryDelayMs: 10,
    });
    const events: string[] = [];
    const logged = createGuestClient(client.endpoint, {
      answerLimits: { getFile: 512 * 1024 },
      logger: event => events.push(event.type),
    });
    try {
      await expect(capped.getFile(big)).rejects.toThrow(/larger than its cap of 524288 bytes/);
      await expect(logged.getFile(big)).rejects.toThrow(GuestRequestError);
      expect(events).toEqual(['request-error']);
    } finally {
      await capped.close();
      await logged.close();
    }
  });

  it('the recording is streamed to disk and cut at its cap', async () => {
    await client.startRecording();
    await new Promise(resolve => setTimeout(resolve, 2_500));
    const destination = join(directory, 'recording.mp4');
    const result = await client.endRecordingTo(destination, { maxBytes: 1024 });
    expect(result).toEqual({ bytes: 1024, truncated: true });
    expect(statSync(destination).size).toBe(1024);
  }, 60_000);
});
