import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GuestEndpoint } from '@osharm/desktop-env';
import { providerConformanceChecks } from '@osharm/desktop-env/test';
import { post, sh, skipReason, waitFor } from './__fixtures__/local-desktop-fixture';
import { guestRequest } from '@osharm/desktop-guest';
import { createLocalProvider } from './local-provider';
import { checkLocalDesktopRequirements } from './local-requirements';

describe('checkLocalDesktopRequirements', () => {
  it('lists what is missing with the apt-get command that fixes it', () => {
    const result = checkLocalDesktopRequirements({ apps: [] });
    expect(result.ok).toBe(result.missing.length === 0);
    if (result.missing.length + result.missingOptional.length > 0) {
      expect(result.installCommand).toMatch(/^sudo apt-get install -y --no-install-recommends /);
    }
    for (const entry of result.missingOptional) expect(entry.neededFor).toMatch(/^the \w/);
  });
});

/** The CPU weight file (cgroup v1 cpu.shares, v2 cpu.weight) of the cgroup `pid` is in, if any. */
function cpuWeightFile(pid: number): string | undefined {
  const mounts = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map(line => line.split(' '));
  for (const line of readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n')) {
    const [, controllers = '', path = ''] = line.split(':');
    const v1 = controllers.split(',').includes('cpu');
    const mount = mounts.find(([, , type, options = '']) =>
      v1 ? type === 'cgroup' && options.split(',').includes('cpu') : type === 'cgroup2',
    )?.[1];
    if (!(v1 || (controllers === '' && line.startsWith('0::'))) || !mount) continue;
    const file = join(mount, path, v1 ? 'cpu.shares' : 'cpu.weight');
    if (existsSync(file)) return file;
  }
  return undefined;
}

/** The CPU weight files of the cgroups of the desktops whose state dirs are `stateDirs`, but `pid`'s. */
function otherWeightFiles(pid: number, stateDirs: readonly string[]): string[] {
  const own = cpuWeightFile(pid);
  if (!own) return [];
  const parent = join(own, '..', '..');
  const name = own.split('/').at(-1)!;
  return stateDirs
    .map(dir => join(parent, `osharm-vm-local-${dir}`, name))
    .filter(file => file !== own && existsSync(file));
}

describe.skipIf(skipReason !== undefined)('LocalProvider warm spare', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'osharm-spare-test-'));
  chmodSync(workDir, 0o711); // reachable by the account the sandbox runs as when root runs this
  const provider = createLocalProvider({ warmSpare: true, workDir });
  // The desktops' host-side state directories (one per running sandbox, removed at its end).
  const stateDirs = () => readdirSync(workDir).filter(name => name.startsWith('osharm-local-'));

  afterAll(async () => {
    await provider.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('revert swaps to the spare started ahead (clean, its own sandbox); stop() ends it too', async () => {
    expect(provider.spareStatus()).toBe('none');
    await provider.start();
    expect(provider.spareStatus()).toBe('none'); // start() alone keeps none
    const first = await provider.revert(); // no spare yet: one starts now, the spare after it
    expect(provider.spareStatus()).toBe('starting');
    await sh(first, 'echo dirty > ~/Desktop/left-over.txt');
    const firstPid = provider.pid() as number;
    await waitFor(async () => provider.spareStatus() !== 'starting', 300_000, 'the spare');
    expect(provider.spareStatus()).toBe('ready');
    expect(stateDirs()).toHaveLength(2);
    // The spare waits at a low CPU weight (its start yields the cores to the run); taken over, it
    // gets a desktop's weight back. Where the limits have a CPU weight (cgroup v1, or v2 with cpu).
    const weightFile = cpuWeightFile(firstPid);
    const spareWeights = () =>
      otherWeightFiles(firstPid, stateDirs()).map(file => readFileSync(file, 'utf8').trim());
    if (weightFile) {
      expect(readFileSync(weightFile, 'utf8').trim()).toMatch(/^(1024|100)$/);
      expect(spareWeights()).toEqual([weightFile.endsWith('shares') ? '128' : '12']);
    }
    const second = await provider.revert();
    if (weightFile) {
      const taken = cpuWeightFile(provider.pid() as number)!;
      expect(readFileSync(taken, 'utf8').trim()).toBe(
        weightFile.endsWith('shares') ? '1024' : '100',
      );
    }
    expect(second.token).not.toBe(first.token);
    expect(second.socketPath).not.toBe(first.socketPath);
    expect(existsSync(`/proc/${firstPid}`)).toBe(false);
    await expect(guestRequest(first, '/platform', { timeoutMs: 2_000 })).rejects.toThrow();
    expect((await sh(second, 'ls -A ~/Desktop')).output).toBe('');
    expect(provider.spareStatus()).toBe('starting'); // the next run's
    await provider.stop();
    expect(provider.spareStatus()).toBe('none');
    expect(provider.endpoint()).toBeUndefined();
    expect(stateDirs()).toEqual([]); // the spare's sandbox ended with the rest
  }, 600_000);
});

describe.skipIf(skipReason !== undefined)('LocalProvider meets the provider contract', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'osharm-local-contract-'));
  chmodSync(workDir, 0o711); // reachable by the account the sandbox runs as when root runs this
  const provider = createLocalProvider({ workDir });
  let pidBefore: number | undefined;
  let last: GuestEndpoint | undefined;
  afterAll(async () => {
    await provider.stop();
    rmSync(workDir, { recursive: true, force: true });
  });
  const checks = providerConformanceChecks({
    providerId: 'local',
    create: () => provider,
    broken: () => createLocalProvider({ bwrapPath: '/nonexistent/bwrap', startTimeoutMs: 5_000 }),
    brokenMessage: /did not start/,
    // A file, a background process and a window: revert throws the whole sandbox away.
    mark: async endpoint => {
      pidBefore = provider.pid();
      await sh(endpoint, 'echo dirty > ~/Desktop/left-over.txt; sleep 300 >/dev/null 2>&1 &');
      await post(endpoint, '/setup/launch', { command: ['gedit'] });
      await waitFor(
        async () => (await sh(endpoint, 'wmctrl -l')).output.includes('gedit'),
        30_000,
        'gedit',
      );
    },
    // Under GNOME Shell `wmctrl -l` lists the desktop icons' own window, and the shell's user menu
    // starts accounts-daemon in the sudo namespace (a `sleep infinity` holds it): only the old
    // desktop's own leftovers count.
    marked: async endpoint =>
      (await sh(endpoint, "ls ~/Desktop; pgrep -f '^sleep 300$'; wmctrl -l | grep gedit"))
        .output !== '',
    afterRevert: async (before, after) => {
      expect(after.socketPath).not.toBe(before.socketPath);
      expect(existsSync(`/proc/${pidBefore}`)).toBe(false);
      await expect(guestRequest(before, '/platform', { timeoutMs: 2_000 })).rejects.toThrow();
      last = after;
    },
    leftovers: () => [
      ...readdirSync(workDir).filter(name => name.startsWith('osharm-local-')),
      ...(last?.socketPath && existsSync(last.socketPath) ? [last.socketPath] : []),
    ],
  });
  for (const check of checks) it(check.name, check.run, check.timeoutMs);
});

describe.skipIf(skipReason !== undefined)('LocalProvider sandboxes', () => {
  const first = createLocalProvider();
  const second = createLocalProvider({
    screen: { width: 1280, height: 800 },
    env: { OSHARM_TEST_VALUE: "it's here" },
    exposeTcp: true,
  });

  afterAll(async () => {
    await Promise.all([first.stop(), second.stop()]);
  });

  it('two sandboxes at once do not see each other', async () => {
    const a = await first.start();
    expect(a).toMatchObject({
      baseUrl: 'http://localhost',
      host: 'localhost',
      serverPort: 0,
      token: expect.stringMatching(/^[\w-]{32}$/),
      socketPath: expect.stringMatching(/guest\.sock$/),
      chromiumUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      screen: { width: 1920, height: 1080 },
    });
    const b = await second.start();
    expect(a.socketPath).not.toBe(b.socketPath);
    expect(a.token).not.toBe(b.token);
    expect(a.chromiumUrl).not.toBe(b.chromiumUrl);
    // Each token only opens its own desktop.
    const crossed = await guestRequest({ ...b, token: a.token }, '/platform');
    expect(crossed.status).toBe(401);
    await sh(a, 'echo only-in-a > ~/a.txt');
    await post(a, '/setup/launch', { command: ['gedit', '/home/user/a.txt'] });
    await waitFor(
      async () => (await sh(a, 'wmctrl -l')).output.includes('a.txt'),
      30_000,
      'gedit in A',
    );
    const inB = await sh(
      b,
      'ls ~/a.txt; wmctrl -l; ps -e -o comm | grep -c gedit; echo "$OSHARM_TEST_VALUE"',
    );
    expect(inB.error).toContain('No such file');
    expect(inB.output).not.toContain('a.txt');
    expect(inB.output).toContain("0\nit's here\n");
    const size = await guestRequest(b, '/screen_size', { method: 'POST' });
    expect(JSON.parse(size.body.toString())).toEqual({ width: 1280, height: 800 });
    expect(b.screen).toEqual({ width: 1280, height: 800 });
    // exposeTcp: the same server on the host's loopback, token still required.
    expect(b.baseUrl).toBe(`http://127.0.0.1:${b.serverPort}`);
    const overTcp = { ...b, socketPath: undefined };
    expect((await guestRequest(overTcp, '/platform')).status).toBe(200);
    expect((await guestRequest(overTcp, '/platform', { authorize: false })).status).toBe(401);
  });
});
