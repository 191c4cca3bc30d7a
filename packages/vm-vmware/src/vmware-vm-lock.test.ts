import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { VmProviderError } from '@osharm/desktop-env';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createVmrunStandIn } from './vmrun-stand-in';
import { createVmwareProvider } from './vmware-provider';
import {
  acquireVm,
  acquireVmLock,
  readVmLock,
  vmLockPath,
  type VmwareVmLock,
} from './vmware-vm-lock';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const distEntry = join(packageDir, 'dist/index.js');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

beforeAll(() => {
  // The child processes run the built package: build it when dist is missing or older than src.
  const newestSource = Math.max(
    ...sourceFiles(join(packageDir, 'src')).map(file => statSync(file).mtimeMs),
  );
  if (existsSync(distEntry) && statSync(distEntry).mtimeMs >= newestSource) return;
  const build = spawnSync('pnpm', ['run', 'build'], {
    cwd: packageDir,
    encoding: 'utf8',
    stdio: 'pipe',
  });
  if (build.status !== 0) throw new Error(`pnpm build failed:\n${build.stdout}${build.stderr}`);
}, 120_000);

let root: string;
let lockDir: string;
const children: ChildProcessWithoutNullStreams[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'osharm-vmware-lock-'));
  lockDir = join(root, 'locks');
});

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await rm(root, { recursive: true, force: true });
});

/**
 * Runs `code` as an ES module in a child node process, with the built package imported as `vm`.
 * The child's stdout lines are collected; `line(predicate)` waits for one.
 */
function child(code: string, env: Record<string, string> = {}) {
  const source = `import * as vm from ${JSON.stringify(pathToFileURL(distEntry).href)};\n${code}`;
  const process_ = spawn(process.execPath, ['--input-type=module', '-e', source], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(process_);
  const lines: string[] = [];
  let stderr = '';
  const waiters: Array<() => void> = [];
  let buffer = '';
  process_.stdout.setEncoding('utf8');
  process_.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    lines.push(...parts);
    for (const wake of waiters.splice(0)) wake();
  });
  process_.stderr.setEncoding('utf8');
  process_.stderr.on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<number | null>(resolve => process_.on('exit', code_ => resolve(code_)));
  const line = async (predicate: (line: string) => boolean): Promise<string> => {
    for (;;) {
      const found = lines.find(predicate);
      if (found !== undefined) return found;
      if (process_.exitCode !== null) {
        throw new Error(`child exited (${process_.exitCode}) without the line; stderr: ${stderr}`);
      }
      await Promise.race([new Promise<void>(resolve => waiters.push(resolve)), exit]);
    }
  };
  return { process: process_, lines, line, exit, stderr: () => stderr };
}

async function errorOf(promise: Promise<unknown>): Promise<VmProviderError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!VmProviderError.isInstance(error))
    throw new Error(`expected a VmProviderError: ${String(error)}`);
  return error;
}

describe('one VM, two processes', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createServer((_request, response) => response.end('png'));
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise(resolve => server.close(resolve));
  });

  it('a second provider in another process is refused while the first holds the VM', async () => {
    const vmxPath = join(root, 'vms', 'Ubuntu0', 'Ubuntu0.vmx');
    const standIn = await createVmrunStandIn({ dir: join(root, 'bin'), vms: { [vmxPath]: {} } });
    const settings = {
      vmxPath,
      vmrunPath: standIn.vmrunPath,
      serverPort: port,
      lockDir,
      pollIntervalMs: 10,
      env: {},
    };
    const first = createVmwareProvider(settings);
    await first.start();
    const callsBefore = (await standIn.calls()).length;

    const startInChild = `
      const provider = vm.createVmwareProvider(JSON.parse(process.env.SETTINGS));
      try {
        const endpoint = await provider.start();
        console.log('started ' + endpoint.baseUrl);
        await new Promise(resolve => process.stdin.once('data', resolve));
      } catch (error) {
        console.log('refused ' + error.name + ': ' + error.message);
      }
      process.exit(0);
    `;
    const second = child(startInChild, { SETTINGS: JSON.stringify(settings) });
    const refused = await second.line(line => line.startsWith('refused'));
    expect(refused).toBe(
      `refused OsharmVmProviderError: VM ${vmxPath} is in use by process ${process.pid}; lock file ${vmLockPath(vmxPath, lockDir)}`,
    );
    expect(await second.exit).toBe(0);
    expect((await standIn.calls()).length).toBe(callsBefore); // the child never touched vmrun

    // The same holds for a second provider in this process.
    const sameProcess = await errorOf(createVmwareProvider(settings).start());
    expect(sameProcess.message).toContain(`is in use by process ${process.pid} (this process)`);
    // …and a provider that does not hold the lock must not stop the VM.
    const stopper = await errorOf(createVmwareProvider(settings).stop());
    expect(stopper.message).toContain('is in use by process');
    expect((await standIn.state())[vmxPath]!.running).toBe(true);

    // Once the first stops, the other process gets the VM; its lock goes when it exits.
    await first.stop();
    const third = child(startInChild, { SETTINGS: JSON.stringify(settings) });
    expect(await third.line(line => line.startsWith('started'))).toBe(
      `started http://127.0.0.1:${port}`,
    );
    expect(await readVmLock(vmxPath, lockDir)).toMatchObject({ pid: third.process.pid });
    third.process.stdin.write('done\n');
    expect(await third.exit).toBe(0);
    expect(existsSync(vmLockPath(vmxPath, lockDir))).toBe(false);
    await standIn.cleanup();
  }, 30_000);

  it('lockTimeoutMs waits for the holder to let go', async () => {
    const vmxPath = join(root, 'a.vmx');
    const held = await acquireVmLock({ vmxPath, lockDir });
    setTimeout(() => void held.release(), 200);
    const startedAt = Date.now();
    const lock = await acquireVmLock({ vmxPath, lockDir, timeoutMs: 5000, pollIntervalMs: 20 });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(150);
    expect(lock.vmxPath).toBe(vmxPath);
    await lock.release();

    const again = await acquireVmLock({ vmxPath, lockDir });
    const error = await errorOf(
      acquireVmLock({ vmxPath, lockDir, timeoutMs: 100, pollIntervalMs: 20 }),
    );
    expect(error.message).toMatch(
      /is in use by process \d+ \(this process\) \(waited \d+(\.\d+)? s\)/,
    );
    expect(error.isRetryable).toBe(true);
    await again.release();
  });
});

describe('stale locks', () => {
  it('a lock left by a process killed with SIGKILL is taken over', async () => {
    const vmxPath = join(root, 'vms', 'Ubuntu1.vmx');
    const holder = child(
      `
      const lock = await vm.acquireVmLock({ vmxPath: process.env.VMX, lockDir: process.env.LOCKS });
      console.log('locked ' + lock.lockPath);
      setInterval(() => {}, 1000);
    `,
      { VMX: vmxPath, LOCKS: lockDir },
    );
    const locked = await holder.line(line => line.startsWith('locked'));
    const lockPath = locked.slice('locked '.length);
    expect(lockPath).toBe(vmLockPath(vmxPath, lockDir));
    const pid = holder.process.pid!;
    expect(await readVmLock(vmxPath, lockDir)).toMatchObject({ pid, vmxPath });
    await errorOf(acquireVmLock({ vmxPath, lockDir }));

    holder.process.kill('SIGKILL');
    await holder.exit;
    // No exit hook ran: the lock file is still there, naming a dead PID.
    expect(JSON.parse(await readFile(lockPath, 'utf8'))).toMatchObject({ pid });
    expect(await readVmLock(vmxPath, lockDir)).toBeUndefined();

    const lock = await acquireVmLock({ vmxPath, lockDir });
    expect(JSON.parse(await readFile(lockPath, 'utf8'))).toMatchObject({ pid: process.pid });
    await lock.release();
    expect(existsSync(lockPath)).toBe(false);
  }, 20_000);

  it('processes racing to take over one stale lock: exactly one wins', async () => {
    const vmxPath = join(root, 'vms', 'Ubuntu2.vmx');
    const lockPath = vmLockPath(vmxPath, lockDir);
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid!;
    const staleLock = JSON.stringify({
      pid: deadPid,
      hostname: hostname(),
      vmxPath,
      acquiredAt: new Date(0).toISOString(),
      token: 'stale',
    });
    const code = `
      try {
        const lock = await vm.acquireVmLock({ vmxPath: process.env.VMX, lockDir: process.env.LOCKS });
        console.log('locked');
        await new Promise(resolve => process.stdin.once('data', resolve));
        await lock.release();
      } catch (error) {
        console.log('refused ' + error.message);
      }
      process.exit(0);
    `;
    for (let round = 0; round < 2; round += 1) {
      await mkdir(lockDir, { recursive: true });
      await writeFile(lockPath, staleLock);
      const racers = [0, 1, 2, 3].map(() => child(code, { VMX: vmxPath, LOCKS: lockDir }));
      const outcomes = await Promise.all(
        racers.map(racer => racer.line(line => line === 'locked' || line.startsWith('refused'))),
      );
      expect(outcomes.filter(outcome => outcome === 'locked')).toHaveLength(1);
      const winner = racers[outcomes.indexOf('locked')]!;
      for (const outcome of outcomes.filter(line => line !== 'locked')) {
        expect(outcome).toContain(`is in use by process ${winner.process.pid}`);
      }
      winner.process.stdin.write('go\n');
      expect(await Promise.all(racers.map(racer => racer.exit))).toEqual([0, 0, 0, 0]);
      expect(existsSync(lockPath)).toBe(false);
    }

    // the same race inside one process
    await writeFile(lockPath, staleLock);
    const results = await Promise.allSettled(
      [0, 1, 2, 3].map(() => acquireVmLock({ vmxPath, lockDir })),
    );
    const won = results.filter(result => result.status === 'fulfilled');
    expect(won).toHaveLength(1);
    await (won[0] as PromiseFulfilledResult<VmwareVmLock>).value.release();
  }, 30_000);

  it('a lock naming this PID that this process never took is stale (container restarts)', async () => {
    const vmxPath = join(root, 'b.vmx');
    const lockPath = vmLockPath(vmxPath, lockDir);
    const lock = await acquireVmLock({ vmxPath, lockDir });
    await lock.release();
    await writeFile(
      lockPath,
      JSON.stringify({
        pid: process.pid,
        hostname: (await import('node:os')).hostname(),
        token: 'old',
      }),
    );
    const taken = await acquireVmLock({ vmxPath, lockDir });
    await taken.release();
  });

  it('an unreadable lock file is stale; release leaves a lock it no longer owns alone', async () => {
    const vmxPath = join(root, 'c.vmx');
    const lockPath = vmLockPath(vmxPath, lockDir);
    const first = await acquireVmLock({ vmxPath, lockDir });
    await writeFile(lockPath, 'garbage');
    const second = await acquireVmLock({ vmxPath, lockDir });
    await first.release(); // not its file any more
    expect(existsSync(lockPath)).toBe(true);
    expect(first.released).toBe(true);
    await second.release();
    expect(existsSync(lockPath)).toBe(false);
  });
});

describe('acquireVm (pools)', () => {
  const pool = () =>
    [0, 1, 2].map(index => join(root, 'vms', `Ubuntu${index}`, `Ubuntu${index}.vmx`));

  it('3 concurrent processes over a pool of 3 get 3 distinct VMs', async () => {
    const vmxPaths = pool();
    const code = `
      const lock = await vm.acquireVm({ vmxPaths: JSON.parse(process.env.POOL), lockDir: process.env.LOCKS });
      console.log('vm ' + lock.vmxPath);
      await new Promise(resolve => process.stdin.once('data', resolve));
      await lock.release();
      console.log('released');
      process.stdin.destroy();
    `;
    const env = { POOL: JSON.stringify(vmxPaths), LOCKS: lockDir };
    const workers = [child(code, env), child(code, env), child(code, env)];
    const picks = await Promise.all(
      workers.map(worker => worker.line(line => line.startsWith('vm '))),
    );
    expect(new Set(picks).size).toBe(3);
    expect(picks.map(pick => pick.slice(3)).sort()).toEqual([...vmxPaths].sort());

    const full = await errorOf(acquireVm({ vmxPaths, lockDir }));
    expect(full.message).toMatch(/^all 3 VMs of the pool are in use: /);
    for (const worker of workers) expect(full.message).toContain(`(process ${worker.process.pid})`);

    workers[1]!.process.stdin.write('go\n');
    await workers[1]!.line(line => line === 'released');
    const lock = await acquireVm({ vmxPaths, lockDir });
    expect(lock.vmxPath).toBe(picks[1]!.slice(3));
    await lock.release();
    for (const worker of workers) worker.process.stdin.write('go\n');
    expect(await Promise.all(workers.map(worker => worker.exit))).toEqual([0, 0, 0]);
  }, 30_000);

  it('concurrent calls in one process get distinct VMs too; the pool may name VMs not yet created', async () => {
    const vmxPaths = [...pool(), join(root, 'vms', 'Ubuntu3', 'Ubuntu3.vmx')];
    const locks = await Promise.all(vmxPaths.map(() => acquireVm({ vmxPaths, lockDir })));
    expect(new Set(locks.map(lock => lock.vmxPath)).size).toBe(4);
    await Promise.all(locks.map(lock => lock.release()));
  });

  it('waits for a VM to come free, and gives up after timeoutMs', async () => {
    const vmxPaths = pool().slice(0, 1);
    const held = await acquireVm({ vmxPaths, lockDir });
    const error = await errorOf(
      acquireVm({ vmxPaths, lockDir, timeoutMs: 100, pollIntervalMs: 20 }),
    );
    expect(error.message).toMatch(/^all 1 VMs of the pool are in use \(waited \d+(\.\d+)? s\)/);
    setTimeout(() => void held.release(), 100);
    const lock = await acquireVm({ vmxPaths, lockDir, timeoutMs: 5000, pollIntervalMs: 20 });
    await lock.release();
  });

  it('abort ends the wait; an empty pool is an error', async () => {
    const vmxPaths = pool().slice(0, 1);
    const held = await acquireVm({ vmxPaths, lockDir });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await errorOf(
      acquireVm({ vmxPaths, lockDir, timeoutMs: 60_000, abortSignal: controller.signal }),
    );
    expect(error.message).toBe('waiting for a free VM of the pool (1 VMs) was aborted');
    await held.release();
    expect((await errorOf(acquireVm({ vmxPaths: [], lockDir }))).message).toBe(
      'acquireVm: the pool of VMs is empty',
    );
  });

  it('a provider drives the VM of an acquired lock and releases it on stop', async () => {
    const [vmxPath] = pool();
    const standIn = await createVmrunStandIn({
      dir: join(root, 'bin'),
      vms: { [vmxPath!]: { running: true } },
    });
    const server = createServer((_request, response) => response.end('png'));
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    try {
      const lock = await acquireVm({ vmxPaths: [vmxPath!], lockDir });
      const provider = createVmwareProvider({
        lock,
        vmrunPath: standIn.vmrunPath,
        serverPort: (server.address() as AddressInfo).port,
        lockDir,
        pollIntervalMs: 10,
        env: {},
      });
      expect(provider.vmxPath).toBe(vmxPath);
      await provider.start();
      expect(provider.heldLock).toBe(lock);
      await provider.stop();
      expect(lock.released).toBe(true);
      expect(existsSync(lock.lockPath)).toBe(false);
    } finally {
      server.closeAllConnections();
      await new Promise(resolve => server.close(resolve));
      await standIn.cleanup();
    }
  });
});
