import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkLocalDesktopRequirements } from '@osharm/vm-local';

const bin = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));
const canRun = checkLocalDesktopRequirements().ok;

describe.runIf(canRun)('osharm env up', () => {
  it('prints one JSON line with url and token, serves the protocol behind the token, stops on SIGINT', async () => {
    const child = spawn(process.execPath, [bin, 'env', 'up', '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)));
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', code => reject(new Error(`env up exited ${code} before printing`)));
    });
    const { url, token } = JSON.parse(line) as { url: string; token: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(token.length).toBeGreaterThanOrEqual(16);

    const denied = await fetch(`${url}/screenshot`);
    expect(denied.status).toBe(401);
    const screenshot = await fetch(`${url}/screenshot`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(screenshot.status).toBe(200);
    expect(
      Buffer.from(await screenshot.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    const size = await fetch(`${url}/screen_size`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await size.json()).toEqual({ width: 1920, height: 1080 });

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    await expect(
      fetch(`${url}/screenshot`, { headers: { authorization: `Bearer ${token}` } }),
    ).rejects.toThrow();
  });

  it('says so and exits 1 when its desktop dies (was: kept running silently)', async () => {
    const child = spawn(process.execPath, [bin, 'env', 'up', '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)));
    await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', code => reject(new Error(`env up exited ${code} before printing`)));
    });
    // The desktop's outermost process (bwrap, or the cgroup launcher running it) is a child of env
    // up: killing it ends the sandbox as a crash would.
    const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number)
      .filter(pid => pid > 0 && !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('slirp'));
    expect(children.length).toBeGreaterThan(0);
    for (const pid of children) process.kill(pid, 'SIGKILL');
    const code = await Promise.race([
      exited,
      new Promise(resolve => setTimeout(() => resolve('still running after 20 s'), 20_000)),
    ]);
    if (code !== 1) child.kill('SIGKILL');
    expect(code).toBe(1);
    expect(stderr).toContain('the local desktop ended');
  }, 120_000);
});
