// Runs the real desktop image under the real engine (podman by default; OSHARM_CONTAINER_ENGINE).
// Skips with the build command when the engine or the image is missing.
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { hostname } from 'node:os';
import { createGuestClient, VmProviderError } from '@osharm/desktop-env';
import { afterAll, describe, expect, it } from 'vitest';
import { createContainerProvider, DEFAULT_DESKTOP_IMAGE, OWNER_LABEL } from './index';
import type { ContainerEngine } from './index';

const engine = (process.env.OSHARM_CONTAINER_ENGINE ?? 'podman') as ContainerEngine;
const image = process.env.OSHARM_DESKTOP_IMAGE ?? DEFAULT_DESKTOP_IMAGE;

function engineOut(args: string[]): string {
  return execFileSync(engine, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}
function skipReason(): string | undefined {
  try {
    engineOut(['--version']);
  } catch {
    return `${engine} is not installed (apt-get install -y podman uidmap)`;
  }
  try {
    engineOut(['image', 'inspect', image]);
  } catch {
    return `the desktop image ${image} is missing: build it with scripts/build-desktop-image.sh (OSHARM_DESKTOP_IMAGE names another)`;
  }
  return undefined;
}
const reason = skipReason();
if (reason) console.warn(`vm-container tests skipped: ${reason}`);

function containerExists(name: string): boolean {
  return engineOut(['ps', '--all', '--format', '{{.Names}}']).split('\n').includes(name);
}

describe.skipIf(reason !== undefined)('container provider on the real desktop image', () => {
  const provider = createContainerProvider({ engine, image, memoryMb: 1536, pids: 256, cpus: 1 });
  afterAll(() => provider.stop());

  it('starts a desktop whose guest server wants the token, screenshots, executes, reverts clean, stops', async () => {
    const endpoint = await provider.start();
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
      const png = await client.screenshot();
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      const who = await client.execute([
        '/bin/sh',
        '-c',
        'id -u; echo $HOME; echo ${OSHARM_GUEST_TOKEN:-none}',
      ]);
      expect(who.output.trim().split('\n')).toEqual(['1000', '/home/user', 'none']);
      // No route out without `network`.
      const out = await client.execute([
        '/bin/sh',
        '-c',
        'getent hosts deb.debian.org || echo unresolved',
      ]);
      expect(out.output.trim()).toBe('unresolved');
      await client.execute([
        '/bin/sh',
        '-c',
        'echo secret > /home/user/Desktop/mark; echo x > /tmp/mark',
      ]);
    } finally {
      await client.close();
    }

    const fresh = await provider.revert();
    expect(containerExists(name)).toBe(false);
    const second = createGuestClient(fresh);
    try {
      const left = await second.execute([
        '/bin/sh',
        '-c',
        'ls /home/user/Desktop/mark /tmp/mark 2>&1; true',
      ]);
      expect(left.output).toMatch(/No such file/);
      expect(left.output).not.toMatch(/^\/home\/user\/Desktop\/mark$/m);
    } finally {
      await second.close();
    }
    const secondName = provider.containerName()!;
    await provider.stop();
    expect(containerExists(secondName)).toBe(false);
    expect(provider.endpoint()).toBeUndefined();
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

  it('names the build script when the image is missing', async () => {
    const missing = createContainerProvider({ engine, image: 'localhost/osharm-desktop:absent' });
    const error = await missing.start().catch(caught => caught as unknown);
    expect(VmProviderError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/scripts\/build-desktop-image\.sh/);
  });
});
