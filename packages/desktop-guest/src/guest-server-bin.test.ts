import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GuestEndpoint } from '@osharm/desktop-env';
import { guestRequest } from './guest-request';
import { guestPackageDir } from './package-dir';

const children: ChildProcess[] = [];

function freePort(): Promise<number> {
  return new Promise(resolve => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Starts the built bin on TCP, as inside a VM image, and waits until it listens. */
async function startBin(args: string[]): Promise<GuestEndpoint> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(guestPackageDir(), 'dist', 'guest-server-bin.js'), '--port', String(port), ...args],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      // No __pycache__ inside the package directory.
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    },
  );
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) resolve();
    });
    child.once('exit', code => reject(new Error(`bin exited with ${code}`)));
  });
  return { baseUrl: `http://127.0.0.1:${port}`, host: '127.0.0.1', serverPort: port };
}

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

describe('osharm-guest-server bin over TCP (for custom VM images)', () => {
  it('serves without a token when none is given (upstream host code works unchanged)', async () => {
    const endpoint = await startBin(['--pyautogui', 'shim']);
    const platform = await guestRequest(endpoint, '/platform');
    expect([platform.status, platform.body.toString()]).toEqual([200, 'Linux']);
    const executed = await guestRequest(endpoint, '/execute', {
      method: 'POST',
      json: {
        command: ['/usr/bin/python3', '-c', 'import pyautogui, os; print(pyautogui.__version__)'],
      },
    });
    expect(JSON.parse(executed.body.toString())).toMatchObject({
      status: 'success',
      output: '0.9.54-osharm\n',
    });
  });

  it('requires the bearer token when given one', async () => {
    const endpoint = await startBin(['--token', 'sekret']);
    expect((await guestRequest(endpoint, '/platform')).status).toBe(401);
    expect((await guestRequest({ ...endpoint, token: 'sekret' }, '/platform')).status).toBe(200);
    const lowercase = await guestRequest(endpoint, '/platform', {
      headers: { authorization: 'bearer sekret' },
    });
    expect(lowercase.status).toBe(200);
  });
});
