import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode, type CliRun } from '../cli-io';
import { runCli } from '../program';
import { createTestIo } from '../test-io';
import { AER, STANDARD_RUNS, writeResultsTree } from './results-tree-fixture';
import { startView, viewCommand } from './view';

let tmp: string;
const bin = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'osharm-cli-view-'));
  await writeResultsTree(join(tmp, 'results'), STANDARD_RUNS);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('osharm view', () => {
  it('serves the results on loopback until stopped', async () => {
    const io = createTestIo(tmp);
    const run: CliRun = { io: io.io, exitCode: ExitCode.ok };
    let stop!: () => void;
    const command = viewCommand(run, { stop: new Promise<void>(resolve => (stop = resolve)) });
    const done = command.parseAsync(['results', '--port', '0'], { from: 'user' });
    while (!io.stdout.includes('live at')) await new Promise(resolve => setTimeout(resolve, 20));
    const url = /live at (\S+)/.exec(io.stdout)![1]!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(io.stdout).toMatch(/^osharm view: 3 trajectories, live at /);
    const data = (await (await fetch(`${url}api/data`)).json()) as {
      defaultJudge: string;
      trajectories: { verdicts: Record<string, unknown> }[];
    };
    expect(data.defaultJudge).toBe(AER);
    expect(data.trajectories).toHaveLength(3);
    expect(await (await fetch(url)).text()).toContain('<body data-mode="live">');
    stop();
    await done;
    expect(io.stdout).toMatch(/osharm view: stopped\n$/);
    expect(run.exitCode).toBe(0);
    await expect(fetch(url)).rejects.toThrow();
  });

  it('takes labels, a judge and a title; refuses a bad port or a missing dir', async () => {
    const io = createTestIo(tmp);
    const server = await startView(
      ['results'],
      { host: '127.0.0.1', port: '0', judge: 'gpt-4.1/default/v1', title: 'Mine' },
      io.io,
    );
    try {
      const data = (await (await fetch(`${server.url}api/data`)).json()) as {
        title: string;
        defaultJudge: string;
      };
      expect(data).toMatchObject({ title: 'Mine', defaultJudge: 'gpt-4.1/default/v1' });
    } finally {
      await server.close();
    }
    const port = createTestIo(tmp);
    expect(await runCli(['view', 'results', '--port', '70000'], port.io)).toBe(2);
    expect(port.stderr).toBe('error: --port must be an integer from 0 to 65535, got 70000\n');
    const missing = createTestIo(tmp);
    expect(await runCli(['view', 'nope', '--port', '0'], missing.io)).toBe(2);
    expect(missing.stderr).toMatch(/^error: results dir not found: /);
  });

  it('a port already taken: one error, exit 2, and the process ends (was: it never exited)', async () => {
    const taken = createServer();
    await new Promise<void>(resolve => taken.listen(0, '127.0.0.1', resolve));
    const port = String((taken.address() as AddressInfo).port);
    try {
      const started = Date.now();
      const child = spawnSync(
        process.execPath,
        [bin, 'view', join(tmp, 'results'), '--port', port],
        // a process that never exits is killed at the timeout: signal set, the test fails
        { encoding: 'utf8', timeout: 90_000 },
      );
      expect(child.signal, `still running after ${Date.now() - started} ms`).toBeNull();
      expect(child.status).toBe(ExitCode.usage);
      expect(child.stderr).toMatch(/^error: .*EADDRINUSE/);
    } finally {
      taken.close();
    }
  }, 120_000);

  it('documents itself', async () => {
    const io = createTestIo(tmp);
    expect(await runCli(['view', '--help'], io.io)).toBe(0);
    expect(io.stdout).toMatch(/^Usage: osharm view \[options\] <results\.\.\.>/);
    expect(io.stdout).toContain('--host <address>');
  });
});
