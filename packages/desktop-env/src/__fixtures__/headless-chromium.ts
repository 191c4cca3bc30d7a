// Starts a real headless Chromium with a DevTools port on loopback, for the chrome_*_tabs tests.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM_PATH = process.env.OSHARM_CHROMIUM_PATH ?? '/usr/bin/chromium';

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH);
}

export interface HeadlessChromium {
  /** `http://127.0.0.1:PORT`, the DevTools HTTP endpoint. */
  readonly cdpUrl: string;
  /** URLs of the open tabs, from DevTools' `/json/list`. */
  tabUrls(): Promise<string[]>;
  close(): Promise<void>;
}

export async function startHeadlessChromium(): Promise<HeadlessChromium> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'osharm-chromium-'));
  const child: ChildProcess = spawn(
    CHROMIUM_PATH,
    [
      '--headless',
      // port 0: Chromium picks a free port and prints it, so there is no race for a port
      '--remote-debugging-port=0',
      '--remote-debugging-address=127.0.0.1',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      `--user-data-dir=${userDataDir}`,
      'about:blank',
    ],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const stop = async () => {
    if (child.pid !== undefined && child.exitCode === null) {
      const exited = new Promise(resolve => child.once('exit', resolve));
      try {
        // the process group of the Chromium we started (browser, renderers, crashpad)
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await Promise.race([exited, new Promise(resolve => setTimeout(resolve, 3_000))]);
    }
    await rm(userDataDir, { recursive: true, force: true });
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(
        () => reject(new Error(`Chromium printed no DevTools port within 20 s:\n${output}`)),
        20_000,
      );
      child.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
      child.once('exit', code => {
        clearTimeout(timer);
        reject(new Error(`Chromium exited with ${code}:\n${output}`));
      });
    });
    child.stderr?.resume();
    const cdpUrl = `http://127.0.0.1:${port}`;
    return {
      cdpUrl,
      async tabUrls() {
        const response = await fetch(`${cdpUrl}/json/list`);
        const targets = (await response.json()) as Array<{ type: string; url: string }>;
        return targets.filter(target => target.type === 'page').map(target => target.url);
      },
      close: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
