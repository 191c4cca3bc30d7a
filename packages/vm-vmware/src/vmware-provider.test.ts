import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VmProviderError } from '@osharm/desktop-env';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createVmrunStandIn, type VmrunStandIn, type VmrunStandInVm } from './vmrun-stand-in';
import { createVmwareProvider } from './vmware-provider';
import type { VmwareProviderEvent, VmwareProviderSettings } from './vmware-provider-settings';
import { readVmLock, vmLockPath } from './vmware-vm-lock';

let root: string;
let lockDir: string;
let servers: Server[];
const standIns: VmrunStandIn[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'osharm-vmware-test-'));
  lockDir = join(root, 'locks');
  servers = [];
});

afterEach(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise(resolve => server.close(resolve));
  }
  for (const standIn of standIns.splice(0)) await standIn.cleanup();
  await rm(root, { recursive: true, force: true });
});

/** A loopback guest server: `/screenshot` answers `statuses[i]` to the i-th request, then 200. */
async function guestServer(statuses: number[] = []) {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    const status = statuses[requests.length - 1] ?? 200;
    response.writeHead(request.url === '/screenshot' ? status : 404, {
      'content-type': 'image/png',
    });
    response.end(Buffer.alloc(64 * 1024));
  });
  servers.push(server);
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, requests };
}

/** A closed loopback port: nothing answers there. */
async function closedPort() {
  const server = createServer();
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise(resolve => server.close(resolve));
  return port;
}

async function setup(vm: VmrunStandInVm = {}, statuses: number[] = []) {
  const vmxPath = join(root, 'vms', 'Ubuntu0', 'Ubuntu0.vmx');
  const standIn = await createVmrunStandIn({ dir: join(root, 'bin'), vms: { [vmxPath]: vm } });
  standIns.push(standIn);
  const server = await guestServer(statuses);
  const events: VmwareProviderEvent[] = [];
  const provider = (settings: VmwareProviderSettings = {}) =>
    createVmwareProvider({
      vmxPath,
      vmrunPath: standIn.vmrunPath,
      hostType: 'ws',
      serverPort: server.port,
      lockDir,
      pollIntervalMs: 10,
      // generous: a successful wait ends as soon as it can
      timeouts: {
        command: 15_000,
        start: 15_000,
        ip: 15_000,
        serverReady: 15_000,
        serverRequest: 5000,
      },
      logger: event => events.push(event),
      env: {},
      ...settings,
    });
  /** The recorded argv with the vmx path replaced by `<vmx>`. */
  const calls = async () =>
    (await standIn.calls()).map(argv => argv.map(arg => (arg === vmxPath ? '<vmx>' : arg)));
  return { vmxPath, standIn, server, provider, calls, events };
}

// Waits that must run out: long enough for a few stand-in calls (a Node start each) on a loaded machine.
const ipTimeout = {
  command: 15_000,
  start: 15_000,
  ip: 1500,
  serverReady: 15_000,
  serverRequest: 5000,
};

/** Resolves once `condition` holds (polled every 10 ms). */
async function until(condition: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await condition())) await new Promise(resolve => setTimeout(resolve, 10));
}

async function rejection(promise: Promise<unknown>): Promise<VmProviderError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!VmProviderError.isInstance(error)) {
    throw new Error(`expected a VmProviderError, got ${String(error)}`);
  }
  return error;
}

describe('start', () => {
  it('starts a stopped VM with -T ws … nogui, waits for the IP and the guest server', async () => {
    const { provider, calls, server, vmxPath } = await setup();
    const vm = provider();
    expect(vm.endpoint()).toBeUndefined();
    const endpoint = await vm.start();
    expect(await calls()).toEqual([
      ['-T', 'ws', 'list'],
      ['-T', 'ws', 'start', '<vmx>', 'nogui'],
      ['-T', 'ws', 'list'],
      ['-T', 'ws', 'getGuestIPAddress', '<vmx>', '-wait'],
    ]);
    expect(endpoint).toEqual({
      baseUrl: `http://127.0.0.1:${server.port}`,
      host: '127.0.0.1',
      serverPort: server.port,
      chromiumUrl: 'http://127.0.0.1:9222',
      vlcUrl: 'http://127.0.0.1:8080',
      screen: { width: 1920, height: 1080 },
    });
    expect(vm.endpoint()).toEqual(endpoint);
    expect(server.requests).toEqual(['/screenshot']);
    expect(await readVmLock(vmxPath, lockDir)).toMatchObject({ pid: process.pid });
    await vm.stop();
  });

  it('uses -T fusion and no nogui when headless is false', async () => {
    const { provider, calls } = await setup();
    const vm = provider({ hostType: 'fusion', headless: false, chromiumPort: 1, vlcPort: 2 });
    const endpoint = await vm.start();
    expect(await calls()).toEqual([
      ['-T', 'fusion', 'list'],
      ['-T', 'fusion', 'start', '<vmx>'],
      ['-T', 'fusion', 'list'],
      ['-T', 'fusion', 'getGuestIPAddress', '<vmx>', '-wait'],
    ]);
    expect(endpoint.chromiumUrl).toBe('http://127.0.0.1:1');
    expect(endpoint.vlcUrl).toBe('http://127.0.0.1:2');
    await vm.stop();
  });

  it('defaults the host type to fusion on macOS only, and reads it from the env', () => {
    const vm = createVmwareProvider({ vmxPath: '/x.vmx', env: {} });
    expect(vm.settings.hostType).toBe(process.platform === 'darwin' ? 'fusion' : 'ws');
    const fromEnv = createVmwareProvider({ env: { OSHARM_VMWARE_HOST_TYPE: 'fusion' } });
    expect(fromEnv.settings.hostType).toBe('fusion');
  });

  it('repeats start until the VM is listed', async () => {
    const { provider, calls } = await setup({ startCallsNeeded: 3 });
    const vm = provider();
    await vm.start();
    expect(await calls()).toEqual([
      ['-T', 'ws', 'list'],
      ['-T', 'ws', 'start', '<vmx>', 'nogui'],
      ['-T', 'ws', 'list'],
      ['-T', 'ws', 'start', '<vmx>', 'nogui'],
      ['-T', 'ws', 'list'],
      ['-T', 'ws', 'start', '<vmx>', 'nogui'],
      ['-T', 'ws', 'list'],
      ['-T', 'ws', 'getGuestIPAddress', '<vmx>', '-wait'],
    ]);
    await vm.stop();
  });

  it('does not call start on a VM that is already running', async () => {
    const { provider, calls } = await setup({ running: true });
    const vm = provider();
    await vm.start();
    expect(await calls()).toEqual([
      ['-T', 'ws', 'list'],
      ['-T', 'ws', 'getGuestIPAddress', '<vmx>', '-wait'],
    ]);
    await vm.stop();
  });

  it('keeps asking for the IP until the guest reports one', async () => {
    const { provider, calls } = await setup({ running: true, ipAfterCalls: 3 });
    const vm = provider();
    await vm.start();
    const asked = (await calls()).filter(argv => argv[2] === 'getGuestIPAddress');
    expect(asked).toHaveLength(4);
    await vm.stop();
  });

  it.each([
    ['error-text', 'Error: Unable to get the IP address'],
    ['error-text-exit-0', 'Error: Unable to get the IP address'],
    ['unknown', 'unknown'],
    ['empty', '(no output)'],
  ] as const)(
    'never takes "%s" for an IP: polls, then times out naming the IP wait',
    async (mode, lastAnswer) => {
      const { provider, calls, vmxPath, server } = await setup({ running: true, ipMode: mode });
      const vm = provider({ timeouts: ipTimeout });
      const error = await rejection(vm.start());
      expect(error.message).toBe(
        `VM ${vmxPath} did not report a valid guest IP within 1.5 s (last answer: ${JSON.stringify(lastAnswer)}) (timeouts.ip). Are VMware Tools running in the guest? A VM that "vmrun list" shows as running but that never gets an IP is a known VMware state: restart VMware, or stop the VM with "vmrun stop <vmx> hard"`,
      );
      expect(error.isRetryable).toBe(true);
      expect(error.providerId).toBe('vmware');
      const asked = (await calls()).filter(argv => argv[2] === 'getGuestIPAddress');
      expect(asked.length).toBeGreaterThan(1);
      expect(server.requests).toEqual([]);
      expect(vm.endpoint()).toBeUndefined();
      await vm.stop();
    },
  );

  it('a zombie VM (listed as running, never an IP) ends in a clear IP timeout', async () => {
    const { provider, calls, vmxPath } = await setup({ zombie: true });
    const vm = provider({ timeouts: ipTimeout });
    const error = await rejection(vm.start());
    expect(error.message).toContain(`VM ${vmxPath} did not report a valid guest IP within 1.5 s`);
    expect(error.message).toContain('"Error: Unable to get the IP address"');
    expect((await calls()).some(argv => argv[2] === 'start')).toBe(false);
    await vm.stop();
  });

  it('kills a getGuestIPAddress that hangs after the command timeout', async () => {
    const { provider, vmxPath, standIn } = await setup({ running: true, ipMode: 'hang' });
    const vm = provider({ timeouts: { ...ipTimeout, command: 300, ip: 1000 } });
    const error = await rejection(vm.start());
    expect(error.message).toMatch(
      new RegExp(
        `^VM ${vmxPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} did not report a valid guest IP within 1 s \\(last answer: "vmrun getGuestIPAddress was killed after [0-9.]+ s"\\)`,
      ),
    );
    const hung = (await standIn.invocations()).filter(call => call.argv[2] === 'getGuestIPAddress');
    for (const call of hung) expect(isAlive(call.pid)).toBe(false);
    // This provider's 300 ms command timeout also bounds the stand-in's `vmrun stop`, which a loaded
    // machine can exceed: a stop that timed out is not what this test is about.
    await vm.stop().catch((error: Error) => expect(error.message).toMatch(/did not finish within/));
  });

  it('waits for the guest server, re-reading the IP after each failure', async () => {
    const { provider, calls, server } = await setup({ running: true }, [503, 502]);
    const vm = provider();
    await vm.start();
    expect(server.requests).toEqual(['/screenshot', '/screenshot', '/screenshot']);
    expect(await calls()).toEqual([
      ['-T', 'ws', 'list'],
      ['-T', 'ws', 'getGuestIPAddress', '<vmx>', '-wait'],
      ['-T', 'ws', 'getGuestIPAddress', '<vmx>', '-wait'],
      ['-T', 'ws', 'getGuestIPAddress', '<vmx>', '-wait'],
    ]);
    await vm.stop();
  });

  it('times out naming the guest server when /screenshot never answers 200', async () => {
    const { provider, vmxPath, server } = await setup({ running: true }, Array(1000).fill(503));
    const vm = provider({ timeouts: { ...ipTimeout, serverReady: 1000 } });
    const error = await rejection(vm.start());
    expect(error.message).toBe(
      `the guest server of VM ${vmxPath} did not answer 200 on /screenshot within 1 s (last answer: "HTTP 503 from http://127.0.0.1:${server.port}/screenshot") (timeouts.serverReady)`,
    );
    await vm.stop();
  });

  it('reports a refused connection as the last answer', async () => {
    const { provider } = await setup({ running: true });
    const port = await closedPort();
    const vm = provider({ serverPort: port, timeouts: { ...ipTimeout, serverReady: 200 } });
    const error = await rejection(vm.start());
    expect(error.message).toContain(`http://127.0.0.1:${port}/screenshot: ECONNREFUSED`);
    await vm.stop();
  });

  it('times out naming the start wait when the VM never runs', async () => {
    const { provider, vmxPath } = await setup({
      startError: 'Error: The operation was canceled',
    });
    const vm = provider({ timeouts: { ...ipTimeout, start: 1500 } });
    const error = await rejection(vm.start());
    expect(error.message).toBe(
      `VM ${vmxPath} was not listed as running by "vmrun list" within 1.5 s (last answer: "Error: The operation was canceled") (timeouts.start)`,
    );
    await vm.stop();
  });
});

describe('bad paths fail at once', () => {
  it('a missing .vmx', async () => {
    const { provider, calls } = await setup();
    const missing = join(root, 'nowhere', 'Ubuntu9.vmx');
    const startedAt = Date.now();
    const error = await rejection(provider({ vmxPath: missing }).start());
    expect(Date.now() - startedAt).toBeLessThan(1000);
    expect(error.message).toBe(
      `VM file ${missing} does not exist (setting vmxPath or env OSHARM_VMX_PATH; it must name the VM's .vmx file)`,
    );
    expect(await calls()).toEqual([]);
    expect(existsSync(vmLockPath(missing, lockDir))).toBe(false);
  });

  it('no .vmx configured at all; the env fallback', async () => {
    const { vmxPath, standIn, server } = await setup({ running: true });
    const error = await rejection(createVmwareProvider({ env: {} }).start());
    expect(error.message).toContain('set the vmxPath setting or env OSHARM_VMX_PATH');
    const vm = createVmwareProvider({
      env: { OSHARM_VMX_PATH: vmxPath, OSHARM_VMRUN_PATH: standIn.vmrunPath },
      serverPort: server.port,
      lockDir,
      pollIntervalMs: 10,
    });
    expect((await vm.start()).host).toBe('127.0.0.1');
    await vm.stop();
  });

  it('a missing vmrun (a path, or a name not on PATH)', async () => {
    const { provider, vmxPath } = await setup();
    const missing = join(root, 'no-vmware', 'vmrun');
    const startedAt = Date.now();
    const byPath = await rejection(provider({ vmrunPath: missing }).start());
    expect(Date.now() - startedAt).toBeLessThan(2000);
    expect(byPath.message).toMatch(new RegExp(`^vmrun not found: "${missing}" does not exist`));
    expect(byPath.message).toContain('OSHARM_VMRUN_PATH');
    // the failed start keeps the lock (a start that failed later may have left the VM running)
    expect(await readVmLock(vmxPath, lockDir)).toBeDefined();
    const byName = await rejection(
      provider({ vmrunPath: 'osharm-no-such-vmrun', lockDir: join(root, 'locks-2') }).start(),
    );
    expect(byName.message).toMatch(/^vmrun not found: "osharm-no-such-vmrun" is not on PATH/);
  });

  it('an invalid host type from the env', async () => {
    const { provider } = await setup();
    const vm = provider({ hostType: undefined, env: { OSHARM_VMWARE_HOST_TYPE: 'player' } });
    const error = await rejection(vm.start());
    expect(error.message).toContain('invalid VMware host type "player"');
  });
});

describe('abort and overall timeout', () => {
  it('abort stops a hung vmrun promptly and kills it', async () => {
    const { provider, vmxPath, standIn } = await setup({ running: true, ipMode: 'hang' });
    const vm = provider({ timeouts: { ...ipTimeout, command: 30_000, ip: 30_000 } });
    const controller = new AbortController();
    const started = vm.start({ abortSignal: controller.signal });
    // abort once the hanging getGuestIPAddress runs
    await until(async () =>
      (await standIn.invocations()).some(call => call.argv[2] === 'getGuestIPAddress'),
    );
    const startedAt = Date.now();
    controller.abort(new Error('user pressed ctrl-c'));
    const error = await rejection(started);
    expect(Date.now() - startedAt).toBeLessThan(2000);
    expect(error.message).toBe(
      `start of VM ${vmxPath} was aborted while waiting for a valid guest IP`,
    );
    expect((error.cause as Error).message).toBe('user pressed ctrl-c');
    await new Promise(resolve => setTimeout(resolve, 100));
    const hung = (await standIn.invocations()).filter(call => call.argv[2] === 'getGuestIPAddress');
    expect(hung).toHaveLength(1);
    expect(isAlive(hung[0]!.pid)).toBe(false);
    await vm.stop();
  });

  it('abort stops the pause between two polls', async () => {
    const { provider, vmxPath } = await setup({ running: true, ipMode: 'unknown' });
    let answered = false;
    const vm = provider({
      pollIntervalMs: 60_000,
      timeouts: { ...ipTimeout, ip: 120_000 },
      logger: event => {
        if (event.type === 'vmrun-end' && event.argv[3] === 'getGuestIPAddress') answered = true;
      },
    });
    const controller = new AbortController();
    const started = vm.start({ abortSignal: controller.signal });
    await until(() => answered); // now in the 60 s pause
    const startedAt = Date.now();
    controller.abort();
    const error = await rejection(started);
    expect(Date.now() - startedAt).toBeLessThan(2000);
    expect(error.message).toBe(
      `start of VM ${vmxPath} was aborted while waiting for a valid guest IP`,
    );
    await vm.stop();
  });

  it('an already aborted signal makes no vmrun call', async () => {
    const { provider, calls } = await setup();
    const error = await rejection(provider().start({ abortSignal: AbortSignal.abort() }));
    expect(error.message).toMatch(/was aborted while preparing$/);
    expect(await calls()).toEqual([]);
  });

  it('options.timeoutMs bounds the whole call', async () => {
    const { provider, vmxPath } = await setup({ running: true, ipMode: 'unknown' });
    const vm = provider({ timeouts: { ...ipTimeout, ip: 60_000 } });
    const error = await rejection(vm.start({ timeoutMs: 1500 }));
    expect(error.message).toBe(
      `start of VM ${vmxPath} did not finish within 1.5 s (options.timeoutMs; it was waiting for a valid guest IP)`,
    );
    expect(error.isRetryable).toBe(true);
    await vm.stop();
  });
});

describe('revert, stop, snapshots, list', () => {
  it('revert: revertToSnapshot, then start again', async () => {
    const { provider, calls, standIn, vmxPath } = await setup({ running: true });
    const vm = provider();
    await vm.start();
    await standIn.clearCalls();
    const endpoint = await vm.revert();
    expect(endpoint.host).toBe('127.0.0.1');
    expect(await calls()).toEqual([
      ['-T', 'ws', 'revertToSnapshot', '<vmx>', 'init_state'],
      ['-T', 'ws', 'list'],
      ['-T', 'ws', 'start', '<vmx>', 'nogui'],
      ['-T', 'ws', 'list'],
      ['-T', 'ws', 'getGuestIPAddress', '<vmx>', '-wait'],
    ]);
    await vm.saveSnapshot({ name: 'clean' });
    await standIn.clearCalls();
    await vm.revert({ snapshot: 'clean' });
    expect((await calls())[0]).toEqual(['-T', 'ws', 'revertToSnapshot', '<vmx>', 'clean']);
    expect((await standIn.state())[vmxPath]!.reverts).toEqual(['init_state', 'clean']);
    await vm.stop();
  });

  it('revert to a missing snapshot fails with vmrun’s answer', async () => {
    const { provider, vmxPath } = await setup({ running: true });
    const vm = provider({ snapshot: 'nope' });
    const error = await rejection(vm.revert());
    expect(error.message).toBe(
      `could not revert VM ${vmxPath} to snapshot "nope": "Error: Invalid snapshot name 'nope'"`,
    );
    await vm.stop();
  });

  it('stop: vmrun stop, releases the lock, forgets the endpoint', async () => {
    const { provider, calls, standIn, vmxPath } = await setup({ running: true });
    const vm = provider();
    await vm.start();
    await standIn.clearCalls();
    await vm.stop();
    expect(await calls()).toEqual([
      ['-T', 'ws', 'list'],
      ['-T', 'ws', 'stop', '<vmx>'],
    ]);
    expect(vm.endpoint()).toBeUndefined();
    expect(vm.heldLock).toBeUndefined();
    expect(existsSync(vmLockPath(vmxPath, lockDir))).toBe(false);
    expect((await standIn.state())[vmxPath]!.running).toBe(false);
  });

  it('stop is safe when the VM is not running (and twice)', async () => {
    const { provider, calls } = await setup();
    const vm = provider();
    await vm.stop();
    await vm.stop();
    expect(await calls()).toEqual([
      ['-T', 'ws', 'list'],
      ['-T', 'ws', 'list'],
    ]);
  });

  it('stop falls back to a hard stop when the soft stop hangs or fails', async () => {
    const hangs = await setup({ running: true, softStop: 'hang' });
    await hangs.provider({ timeouts: { ...ipTimeout, command: 1500 } }).stop();
    expect(await hangs.calls()).toEqual([
      ['-T', 'ws', 'list'],
      ['-T', 'ws', 'stop', '<vmx>'],
      ['-T', 'ws', 'stop', '<vmx>', 'hard'],
    ]);
    await hangs.standIn.update(hangs.vmxPath, { running: true, softStop: 'fail' });
    await hangs.standIn.clearCalls();
    await hangs.provider().stop();
    expect((await hangs.calls()).at(-1)).toEqual(['-T', 'ws', 'stop', '<vmx>', 'hard']);
    await hangs.standIn.update(hangs.vmxPath, { running: true });
    const error = await rejection(hangs.provider({ hardStopFallback: false }).stop());
    expect(error.message).toBe(
      `could not stop VM ${hangs.vmxPath}: "Error: The operation was canceled"`,
    );
  });

  it('saveSnapshot: vmrun snapshot <vmx> <name>', async () => {
    const { provider, calls, standIn, vmxPath } = await setup({ running: true });
    const vm = provider({ hostType: 'fusion' });
    await vm.saveSnapshot({ name: 'init_state_2' });
    expect(await calls()).toEqual([['-T', 'fusion', 'snapshot', '<vmx>', 'init_state_2']]);
    expect((await standIn.state())[vmxPath]!.snapshots).toEqual(['init_state', 'init_state_2']);
    // the lock was only taken for the call
    expect(existsSync(vmLockPath(vmxPath, lockDir))).toBe(false);
  });

  it('list: the running .vmx paths', async () => {
    const { provider, vmxPath } = await setup({ running: true });
    expect(await provider().list()).toEqual([vmxPath]);
    expect(await provider({ vmxPath: undefined }).list()).toEqual([vmxPath]);
  });

  it('logs every vmrun call with its argv and output', async () => {
    const { provider, events, standIn, vmxPath } = await setup({ running: true });
    const vm = provider();
    await vm.start();
    await vm.stop();
    const vmrunEvents = events.filter(event => event.type === 'vmrun-end');
    expect(vmrunEvents.map(event => event.argv.slice(1))).toEqual(await standIn.calls());
    expect(vmrunEvents[0]).toMatchObject({
      argv: [standIn.vmrunPath, '-T', 'ws', 'list'],
      exitCode: 0,
      stdout: `Total running VMs: 1\n${vmxPath}\n`,
      timedOut: false,
    });
    expect(events.map(event => event.type)).toEqual([
      'lock-acquire',
      'wait-start',
      'vmrun-start',
      'vmrun-end',
      'wait-end',
      'wait-start',
      'vmrun-start',
      'vmrun-end',
      'wait-end',
      'wait-start',
      'wait-end',
      'vmrun-start',
      'vmrun-end',
      'vmrun-start',
      'vmrun-end',
      'lock-release',
    ]);
  });

  it('a logger that throws does not break the provider', async () => {
    const { provider } = await setup({ running: true });
    const vm = provider({
      logger: () => {
        throw new Error('broken logger');
      },
    });
    await vm.start();
    await vm.stop();
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
