import { spawn } from 'node:child_process';
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
});
