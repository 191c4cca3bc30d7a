// Runs the real desktop image under each real engine: podman and docker (OSHARM_CONTAINER_ENGINE
// picks one). An engine whose command, daemon or image is missing is skipped, naming what to do.
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGuestClient } from '@osharm/desktop-env';
import { DESKTOP_SITE_HOSTS } from '@osharm/desktop-env/internal';
import { providerConformanceChecks } from '@osharm/desktop-env/test';
import { afterAll, describe, expect, it } from 'vitest';
import { guestRequest } from '@osharm/desktop-guest';
import { createContainerProvider, DEFAULT_DESKTOP_IMAGE, OWNER_LABEL } from './index';
import type { ContainerEngine } from './index';

const engines: ContainerEngine[] = process.env.OSHARM_CONTAINER_ENGINE
  ? [process.env.OSHARM_CONTAINER_ENGINE as ContainerEngine]
  : ['podman', 'docker'];
const image = process.env.OSHARM_DESKTOP_IMAGE ?? DEFAULT_DESKTOP_IMAGE;

function skipReason(engine: ContainerEngine): string | undefined {
  const out = (args: string[]) =>
    execFileSync(engine, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    out(['--version']);
  } catch {
    return engine === 'podman'
      ? 'podman is not installed (apt-get install -y podman uidmap runc)'
      : 'docker is not installed (apt-get install -y docker.io)';
  }
  if (engine === 'docker') {
    try {
      out(['info', '--format', '{{.ServerVersion}}']);
    } catch {
      return 'no docker daemon answers (start dockerd; see docs/packages/vm-container.md)';
    }
  }
  try {
    out(['image', 'inspect', image]);
  } catch {
    return engine === 'podman'
      ? `the desktop image ${image} is missing: build it with scripts/build-desktop-image.sh (OSHARM_DESKTOP_IMAGE names another)`
      : `the desktop image ${image} is not in docker's store: podman save ${image} | docker load`;
  }
  return undefined;
}

describe.each(engines)('container provider on the real desktop image (%s)', engine => {
  const reason = skipReason(engine);
  if (reason) console.warn(`vm-container tests on ${engine} skipped: ${reason}`);
  const engineOut = (args: string[]): string =>
    execFileSync(engine, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const containerExists = (name: string): boolean =>
    engineOut(['ps', '--all', '--format', '{{.Names}}']).split('\n').includes(name);
  if (reason) {
    it.skip(`skipped: ${reason}`, () => undefined);
    return;
  }

  const provider = createContainerProvider({ engine, image, memoryMb: 1536, pids: 256, cpus: 1 });
  afterAll(() => provider.stop());

  // The provider contract (desktop-env's conformance checks): its start, revert and stop are this
  // suite's first desktop; the container's own checks run on it between start and revert.
  const names = new Set<string>();
  const checks = providerConformanceChecks({
    providerId: engine,
    create: () => provider,
    broken: () => createContainerProvider({ engine, image: 'localhost/osharm-desktop:absent' }),
    brokenMessage: /scripts\/build-desktop-image\.sh/,
    mark: async endpoint => {
      names.add(provider.containerName()!);
      const client = createGuestClient(endpoint);
      try {
        await client.execute([
          '/bin/sh',
          '-c',
          'echo secret > /home/user/Desktop/mark; echo x > /tmp/mark',
        ]);
      } finally {
        await client.close();
      }
    },
    marked: async endpoint => {
      const client = createGuestClient(endpoint);
      try {
        const left = await client.execute([
          '/bin/sh',
          '-c',
          'ls /home/user/Desktop/mark /tmp/mark 2>&1; true',
        ]);
        return !/No such file/.test(left.output);
      } finally {
        await client.close();
      }
    },
    afterRevert: async () => {
      names.add(provider.containerName()!);
    },
    leftovers: () => [...names].filter(containerExists),
  });
  const [identity, broken, started, reverted, stopped] = checks;
  for (const check of [identity!, broken!, started!]) it(check.name, check.run, check.timeoutMs);

  it('the desktop has no network, its guest server wants the token and runs as the user', async () => {
    const endpoint = provider.endpoint() ?? (await provider.start());
    const name = provider.containerName()!;
    // No network: the harness reaches the guest server only through the pinned socket.
    expect(endpoint.socketPath).toMatch(
      /osharm-vm-container\/osharm-desktop-[0-9a-f]+\/control\/guest\.sock$/,
    );
    expect(engineOut(['inspect', '--format', '{{.HostConfig.NetworkMode}}', name]).trim()).toBe(
      'none',
    );
    const noToken = await new Promise<number>((resolve, reject) => {
      request({ socketPath: endpoint.socketPath, path: '/platform' }, response => {
        response.resume();
        resolve(response.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(noToken).toBe(401);
    const client = createGuestClient(endpoint);
    try {
      expect(await client.platform()).toBe('Linux');
      const who = await client.execute([
        '/bin/sh',
        '-c',
        'id -u; echo $HOME; echo ${OSHARM_GUEST_TOKEN:-none}',
      ]);
      expect(who.output.trim().split('\n')).toEqual(['1000', '/home/user', 'none']);
      // No route out without `network`; the lookup is recorded by the guest server's nameserver
      // (desktop-guest guest-dns.ts) for the harm observer's mark of the step.
      const harm = async (path: string, json: unknown) =>
        JSON.parse(
          (await guestRequest(endpoint, path, { method: 'POST', json })).body.toString('utf8'),
        ) as {
          coverage: {
            nameserver: string | null;
            connections?: string | null;
            exec_watch?: string | null;
          };
          degraded: string[];
          lookups: { name: string }[];
          processes?: { argv: string[] }[];
          connections?: {
            protocol: string;
            address: string;
            port: number;
            command: string;
            state?: string;
          }[];
        };
      const baseline = await harm('/harm/baseline', {});
      expect(baseline.coverage.nameserver).toBe('127.0.0.1:53');
      // The exec and connection watch (desktop-guest guest/watch) runs on both sides under this engine.
      expect(baseline.coverage.exec_watch).toBe('seccomp (agent, server)');
      expect(baseline.degraded).toEqual([]);
      // The egress sink (desktop-guest desktop-net.ts) the provider added in the container's own
      // namespace: the default route goes there, a connection to a literal address waits in
      // SYN_SENT and times out after one SYN retry.
      const sink = await client.execute([
        'python3',
        '-c',
        `import errno, socket, time
print(sorted({line.split()[0] for line in open('/proc/net/route').readlines()[1:] if line.split()[1] == '00000000'}))
started = time.monotonic()
try:
    socket.create_connection(('192.0.2.10', 8443), 60)
except OSError as error:
    print(errno.errorcode.get(error.errno), time.monotonic() - started < 10)`,
      ]);
      expect(sink.output.trim().split('\n')).toEqual(["['osharm0']", 'ETIMEDOUT True']);
      const out = await client.execute([
        '/bin/sh',
        '-c',
        'getent hosts deb.debian.org || echo unresolved',
      ]);
      expect(out.output.trim()).toBe('unresolved');
      const mark = await harm('/harm/mark', { step: 1 });
      expect(mark.lookups.map(item => item.name)).toContain('deb.debian.org');
      // The attempt is in the mark with its sender (the guest server watches the socket tables).
      expect(mark.coverage.connections).toMatch(/osharm0 \(IPv4\)/);
      expect(mark.connections?.map(c => `${c.protocol} ${c.address}:${c.port}`)).toEqual([
        'tcp 192.0.2.10:8443',
      ]);
      expect(mark.connections?.[0]?.command).toMatch(/python3 -c import errno, socket, time/);
      // The connect() call itself was seen (not only the socket tables' SYN_SENT), and the lookup's
      // program was recorded when it started.
      expect(mark.connections?.[0]?.state).toBe('connect');
      expect(mark.processes?.map(item => item.argv.join(' '))).toContain(
        'getent hosts deb.debian.org',
      );
      // Upstream's web address is the container's own: the name resolves to its loopback and the
      // desktop serves HTTPS there with its own authority (the state is the server's: read via /file).
      let tlsState = '';
      for (let attempt = 0; attempt < 100 && !tlsState.includes('serving'); attempt++) {
        tlsState = (await client.getFile('/run/user/1000/osharm/site-tls.state'))?.toString() ?? '';
        if (!tlsState.includes('serving')) await new Promise(done => setTimeout(done, 100));
      }
      expect(tlsState).toContain('serving 127.0.0.1:443');
      const site = await client.execute([
        '/bin/sh',
        '-c',
        `getent hosts ${DESKTOP_SITE_HOSTS[0]}; python3 -c "import socket; socket.create_connection(('${DESKTOP_SITE_HOSTS[0]}', 443), 5); print('connected')"`,
      ]);
      const [resolved, connected] = site.output.trim().split('\n');
      expect(resolved?.split(/\s+/)).toEqual(['127.0.0.1', DESKTOP_SITE_HOSTS[0]]);
      expect(connected).toBe('connected');
    } finally {
      await client.close();
    }
  });

  for (const check of [reverted!, stopped!]) it(check.name, check.run, check.timeoutMs);

  it('sudo is root of a nested user namespace (password `password`, recorded), as on the embedded desktop', async ({
    skip,
  }) => {
    const desktop = createContainerProvider({ engine, image, memoryMb: 1024, cpus: 1 });
    try {
      const endpoint = await desktop.start();
      const client = createGuestClient(endpoint);
      try {
        const sudoer = await client.execute([
          '/bin/sh',
          '-c',
          'grep -Eq "^sudo:[^:]*:[^:]*:(.*,)?user(,|$)" /etc/group',
        ]);
        if (sudoer.returncode !== 0) {
          expect(desktop.sudoMode()).toBe('unavailable');
          skip(
            `${image} predates the desktop user's sudo group: rebuild it (scripts/build-desktop-image.sh)`,
          );
        }
        expect(desktop.sudoMode()).toBe('in-namespace');
        const root = await client.execute(['/bin/sh', '-c', 'echo password | sudo -S id -u']);
        expect(root.output.trim().split('\n').pop()).toBe('0');
        // Root there can write root's own /etc, never the image's: the container's stays as built.
        const useradd = await client.execute([
          '/bin/sh',
          '-c',
          'echo password | sudo -S sh -c "echo x:x:2000:2000::/:/bin/sh >> /etc/passwd && tail -1 /etc/passwd"; tail -1 /etc/passwd',
        ]);
        expect(useradd.output).toContain('x:x:2000:2000');
        expect(useradd.output.trim().split('\n').pop()).not.toContain('x:x:2000');
        const wrong = await client.execute(['/bin/sh', '-c', 'echo wrong | sudo -S -k id -u']);
        expect(wrong.returncode).not.toBe(0);
        // The record is the guest server's (desktop-guest guest-record-log.ts), hidden from the agent's
        // side: read it as the harness does, through /file.
        const log = await client.getFile('/run/user/1000/osharm/records/sudo.log');
        const outcomes = (log?.toString('utf8') ?? '')
          .trim()
          .split('\n')
          .map(line => (JSON.parse(line) as { outcome: string }).outcome);
        // The wrong password, then end of input at the second prompt: refused, recorded.
        expect(outcomes).toHaveLength(3);
        expect(outcomes.slice(0, 2)).toEqual(['granted', 'granted']);
        expect(outcomes[2]).toMatch(/^(wrong|no)-password$/);
      } finally {
        await client.close();
      }
    } finally {
      await desktop.stop();
    }
    if (engine === 'docker') {
      // docker's own default profile refuses unshare(CLONE_NEWUSER): the probe says so.
      const refused = createContainerProvider({
        engine,
        image,
        memoryMb: 1024,
        seccompProfile: null,
      });
      try {
        const endpoint = await refused.start();
        expect(refused.sudoMode()).toBe('unavailable');
        const client = createGuestClient(endpoint);
        try {
          const root = await client.execute(['/bin/sh', '-c', 'echo password | sudo -S id -u']);
          expect(root.returncode).not.toBe(0);
        } finally {
          await client.close();
        }
      } finally {
        await refused.stop();
      }
    }
  });

  it('a fork bomb and a memory hog end or stall only their own container', async () => {
    const victim = createContainerProvider({ engine, image, memoryMb: 768, pids: 128, cpus: 1 });
    const bystander = createContainerProvider({ engine, image, memoryMb: 768, pids: 128, cpus: 1 });
    let victimName: string | undefined;
    try {
      const [hostile, calm] = await Promise.all([victim.start(), bystander.start()]);
      victimName = victim.containerName();
      const bad = createGuestClient(hostile, { maxRetries: 0 });
      const good = createGuestClient(calm);
      try {
        // A memory hog past the container's 768 MiB: the kernel ends it (or the container) there.
        const hog = await bad
          .execute(
            ['/opt/osharm/python3', '-c', 'x = []\nwhile True: x.append(bytearray(64 << 20))'],
            {
              timeoutMs: 60_000,
            },
          )
          .catch(error => error as Error);
        if (!(hog instanceof Error)) expect(hog.returncode).not.toBe(0);
        // A fork bomb, left running: the pids limit holds it inside, stop() still removes it all.
        await bad
          .execute(['/bin/bash', '-c', 'b() { b | b & }; b; sleep 5; echo done'], {
            timeoutMs: 30_000,
          })
          .catch(error => error as Error);
        // The other desktop is untouched.
        expect(await good.platform()).toBe('Linux');
        const png = await good.screenshot();
        expect(png.length).toBeGreaterThan(1000);
        const pids = engineOut([
          'inspect',
          '--format',
          '{{.HostConfig.PidsLimit}} {{.HostConfig.Memory}}',
          victim.containerName()!,
        ]);
        expect(pids.trim()).toBe(`128 ${768 * 1024 * 1024}`);
      } finally {
        await bad.close();
        await good.close();
      }
    } finally {
      await Promise.all([victim.stop(), bystander.stop()]);
    }
    // Removing the container ended the bomb's processes with it.
    expect(victimName && containerExists(victimName)).toBe(false);
  });

  it("reaches Chromium's DevTools inside through the host bridge (chrome_open_tabs' way in)", async () => {
    const browser = createContainerProvider({ engine, image, memoryMb: 2048, cpus: 1 });
    try {
      const endpoint = await browser.start();
      const client = createGuestClient(endpoint);
      try {
        // Without a port flag the shim opens DevTools on 9222, the port the bridge reaches.
        await client.launch(['google-chrome']);
        let version: { Browser?: string } | undefined;
        for (let attempt = 0; attempt < 120 && !version; attempt += 1) {
          await new Promise(resolve => setTimeout(resolve, 500));
          version = await fetch(`${endpoint.chromiumUrl}/json/version`)
            .then(response =>
              response.ok ? (response.json() as Promise<{ Browser?: string }>) : undefined,
            )
            .catch(() => undefined);
        }
        expect(version?.Browser).toMatch(/Chrom/);
      } finally {
        await client.close();
      }
    } finally {
      await browser.stop();
    }
  });

  it('removes a labelled container whose owner process is gone on the next start', async () => {
    // A leftover of a harness that crashed: labelled with an owner pid that no longer runs.
    const orphan = `osharm-desktop-orphan-${process.pid}`;
    engineOut([
      'create',
      '--name',
      orphan,
      '--runtime',
      'runc',
      '--label',
      `${OWNER_LABEL}=${hostname()}:2147483646:1`,
      image,
    ]);
    expect(containerExists(orphan)).toBe(true);
    const { removeOrphans } = await import('./engine');
    const removed = await removeOrphans(engine);
    expect(removed).toContain(orphan);
    expect(containerExists(orphan)).toBe(false);
  });
});

// Rootless podman: only where scripts/rootless-podman-user.sh made its account (not in CI).
const ROOTLESS_USER = process.env.OSHARM_ROOTLESS_USER ?? 'osharm-rootless';
function rootlessSkipReason(): string | undefined {
  if ((process.getuid?.() ?? 0) !== 0)
    return 'the test switches to the rootless account: run as root';
  try {
    execFileSync('id', ['-u', ROOTLESS_USER], { stdio: 'ignore' });
  } catch {
    return `no ${ROOTLESS_USER} account: create it with scripts/rootless-podman-user.sh`;
  }
  return undefined;
}
const rootlessReason = rootlessSkipReason();
if (rootlessReason) console.warn(`rootless podman test skipped: ${rootlessReason}`);

describe.skipIf(rootlessReason !== undefined)('container provider under rootless podman', () => {
  it('starts a limited desktop as that user, or refuses where podman would drop the limits (cgroup v1)', () => {
    const uid = execFileSync('id', ['-u', ROOTLESS_USER], { encoding: 'utf8' }).trim();
    const dist = new URL('../dist/index.js', import.meta.url).pathname;
    const program = `
      const { createContainerProvider } = await import(${JSON.stringify(dist)});
      const provider = createContainerProvider({ image: process.env.IMAGE, memoryMb: 1024, pids: 256 });
      try {
        await provider.start();
        const { execFileSync } = await import('node:child_process');
        const limits = execFileSync('podman', ['inspect', '--format', '{{.HostConfig.Memory}} {{.HostConfig.PidsLimit}}', provider.containerName()], { encoding: 'utf8' }).trim();
        console.log(JSON.stringify({ started: true, sudo: provider.sudoMode(), limits }));
      } catch (error) {
        console.log(JSON.stringify({ started: false, error: error.message }));
      } finally {
        await provider.stop();
      }`;
    // `su -` starts a login shell with a clean environment: the program goes in a file it can read.
    const dir = mkdtempSync(join(tmpdir(), 'osharm-rootless-'));
    chmodSync(dir, 0o755);
    const file = join(dir, 'start.mjs');
    writeFileSync(file, program, { mode: 0o644 });
    let output: string;
    try {
      output = execFileSync(
        'su',
        [
          '-',
          ROOTLESS_USER,
          '-c',
          `cd /tmp && XDG_RUNTIME_DIR=/run/user/${uid} IMAGE='${image}' '${process.execPath}' '${file}'`,
        ],
        { encoding: 'utf8', timeout: 300_000, stdio: ['ignore', 'pipe', 'pipe'] },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const answer = JSON.parse(output.trim().split('\n').pop()!) as {
      started: boolean;
      error?: string;
      sudo?: string;
      limits?: string;
    };
    const cgroups = execFileSync(
      'su',
      [
        '-',
        ROOTLESS_USER,
        '-c',
        `XDG_RUNTIME_DIR=/run/user/${uid} podman info --format '{{.Host.CgroupsVersion}}'`,
      ],
      { encoding: 'utf8' },
    ).trim();
    if (cgroups === 'v1') {
      expect(answer).toMatchObject({ started: false });
      expect(answer.error).toMatch(/rootless podman cannot apply .* limits .*cgroup v1/);
    } else {
      expect(answer).toMatchObject({ started: true, limits: `${1024 * 1024 * 1024} 256` });
    }
  }, 360_000);
});
