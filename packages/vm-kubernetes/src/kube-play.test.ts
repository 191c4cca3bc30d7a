// Runs exactly the Pod podSpecFor returns (serialized to YAML by the client's own dumpYaml) with
// `podman kube play`, its token in a podman secret holding secretFor's Secret, on the real desktop
// image; then talks to the guest server at the pod's IP with the token. Skips, saying why, when
// podman or the image is missing (CI builds the minimal image: .ci/run).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dumpYaml } from '@kubernetes/client-node';
import { createGuestClient } from '@osharm/desktop-env';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_DESKTOP_IMAGE, GUEST_PORT, podSpecFor, secretFor } from './index';

const image = process.env.OSHARM_DESKTOP_IMAGE ?? DEFAULT_DESKTOP_IMAGE;

const dir = mkdtempSync(join(tmpdir(), 'osharm-kube-play-'));
// Host engine settings, not the pod's: podman's default rlimits (nofile 1048576) are above this
// machine's hard limits and runc refuses them, and `kube play` has no --ulimit; a containers.conf
// for these commands only lowers the defaults to this process's hard limits (as vm-container does).
const containersConf = join(dir, 'containers.conf');
writeFileSync(containersConf, `[containers]\ndefault_ulimits = ${JSON.stringify(hardLimits())}\n`);

function hardLimits(): string[] {
  const limits = readFileSync('/proc/self/limits', 'utf8');
  const hard = (label: string): number =>
    Number(new RegExp(`^${label}\\s+\\S+\\s+(\\d+)`, 'm').exec(limits)?.[1] ?? 1024);
  const nofile = hard('Max open files');
  const nproc = Math.min(hard('Max processes'), 32768);
  return [`nofile=${nofile}:${nofile}`, `nproc=${nproc}:${nproc}`];
}

function podman(args: string[]): string {
  // podman 4.3's default crun refuses this machine's hybrid cgroup layout; runc runs it.
  return execFileSync('podman', ['--runtime', 'runc', ...args], {
    encoding: 'utf8',
    env: { ...process.env, CONTAINERS_CONF: containersConf },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  });
}
function skipReason(): string | undefined {
  try {
    podman(['--version']);
  } catch {
    return 'podman is not installed (apt-get install -y podman uidmap runc)';
  }
  try {
    podman(['image', 'inspect', image]);
  } catch {
    return `the desktop image ${image} is missing: build it with scripts/build-desktop-image.sh (OSHARM_DESKTOP_IMAGE names another)`;
  }
  return undefined;
}
const reason = skipReason();
if (reason) console.warn(`vm-kubernetes kube-play test skipped: ${reason}`);

async function findFreePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise(resolve => server.close(resolve));
  return port;
}
const freePort = await findFreePort();

describe.skipIf(reason !== undefined)('podSpecFor under podman kube play', () => {
  const name = `osharm-kp-${randomBytes(4).toString('hex')}`;
  const token = randomBytes(32).toString('hex');
  const podFile = join(dir, 'pod.yaml');
  const pod = podSpecFor({
    name,
    image,
    imagePullPolicy: 'Never',
    memoryMb: 1536,
    cpus: 1,
    tmpfsSizeMb: 256,
    screen: { width: 1280, height: 720 },
    hostPort: freePort,
  });
  // podman 4.3 turns each emptyDir into a named volume on the host's disk, owned by root; kubelet
  // makes a memory emptyDir a tmpfs the pod's user can write. The test creates those volumes as
  // tmpfs for uid 1000 first (kube play then uses them), from the spec's own volume list.
  const volumes = (pod.spec!.volumes ?? []).filter(v => v.emptyDir?.medium === 'Memory');
  const secret = secretFor({ name }, token);
  afterAll(() => {
    try {
      podman(['kube', 'down', podFile]);
    } catch {
      // not played
    }
    for (const volume of volumes) {
      try {
        podman(['volume', 'rm', '--force', volume.name]);
      } catch {
        // not created
      }
    }
    try {
      podman(['secret', 'rm', secret.metadata!.name!]);
    } catch {
      // not created
    }
    rmSync(dir, { recursive: true, force: true });
  });
  if (reason) rmSync(dir, { recursive: true, force: true });

  it('plays the pod, whose guest server answers only with the token, runs as uid 1000 with the limits asked', async () => {
    // podman 4.3 resolves secretKeyRef against a podman secret whose content is a Secret's `data`
    // map as JSON (key → base64), so the secret is made from secretFor's data.
    const secretFile = join(dir, 'secret.json');
    writeFileSync(secretFile, JSON.stringify(secret.data), { mode: 0o600 });
    podman(['secret', 'create', secret.metadata!.name!, secretFile]);
    rmSync(secretFile);
    expect(volumes.map(v => v.name)).toEqual(['home', 'tmp', 'var-tmp', 'run', 'shm']);
    for (const volume of volumes) {
      podman([
        'volume',
        'create',
        '--opt',
        'type=tmpfs',
        '--opt',
        'device=tmpfs',
        '--opt',
        'o=uid=1000,gid=1000,mode=0777', // podman 4.3 refuses size= here (no project quota)
        volume.name,
      ]);
    }
    writeFileSync(podFile, dumpYaml(pod));
    const played = performance.now();
    podman(['kube', 'play', podFile]);

    const container = `${name}-desktop`;
    // Published on 127.0.0.1 only (the spec's hostIP), as vm-container's guest is host-local.
    const ports = podman(['ps', '--filter', `name=^${container}$`, '--format', '{{.Ports}}']);
    expect(ports.trim()).toBe(`127.0.0.1:${freePort}->${GUEST_PORT}/tcp`);

    // The same check the provider makes after the readiness probe: /platform with the token.
    const baseUrl = `http://127.0.0.1:${freePort}`;
    const endpoint = { baseUrl, host: '127.0.0.1', serverPort: freePort, token };
    const client = createGuestClient(endpoint, { maxRetries: 0 });
    const deadline = Date.now() + 120_000;
    let platform: string;
    for (;;) {
      try {
        platform = await client.platform({ timeoutMs: 2000 });
        break;
      } catch (error) {
        if (Date.now() > deadline) {
          const logs = podman(['logs', container]);
          throw new Error(`the guest server did not answer: ${(error as Error).message}\n${logs}`, {
            cause: error,
          });
        }
        await new Promise(resolve => setTimeout(resolve, 250));
      }
    }
    try {
      expect(platform).toBe('Linux');
      // Without the token, or with another one: 401.
      expect((await fetch(`${baseUrl}/platform`)).status).toBe(401);
      const wrong = await fetch(`${baseUrl}/screenshot`, {
        headers: { authorization: `Bearer ${'0'.repeat(64)}` },
      });
      expect(wrong.status).toBe(401);

      const answered = performance.now();
      const png = await client.screenshot({ timeoutMs: 30_000 });
      // Figures, not assertions (a loaded machine varies).
      console.log(
        `kube play → guest answered ${Math.round(answered - played)} ms, → first screenshot ${Math.round(performance.now() - played)} ms`,
      );
      expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      expect(png.readUInt32BE(16)).toBe(1280); // OSHARM_SCREEN from the spec's env
      expect(png.readUInt32BE(20)).toBe(720);

      const probe = await client.execute(
        [
          'bash',
          '-c',
          'id -u; id -g; echo $HOME; env | grep -c OSHARM_GUEST_TOKEN; touch /home/user/a /tmp/b && echo writable; touch /opt/x 2>/dev/null || echo readonly-root; grep CapEff /proc/self/status; grep NoNewPrivs /proc/self/status; grep Seccomp: /proc/self/status',
        ],
        { timeoutMs: 30_000 },
      );
      const lines = probe.output.trim().split('\n');
      expect(lines.slice(0, 6)).toEqual([
        '1000',
        '1000',
        '/home/user',
        '0',
        'writable',
        'readonly-root',
      ]);
      expect(lines[6]).toMatch(/^CapEff:\s+0+$/);
      expect(lines[7]).toMatch(/^NoNewPrivs:\s+1$/);
      expect(lines[8]).toMatch(/^Seccomp:\s+2$/); // filter mode: a seccomp profile is on

      // The resources of the spec became the container's cgroup limits.
      const limits = podman([
        'inspect',
        container,
        '--format',
        '{{.HostConfig.Memory}} {{.HostConfig.CpuQuota}} {{.HostConfig.CpuPeriod}} {{.HostConfig.ReadonlyRootfs}}',
      ]).trim();
      expect(limits).toBe(`${1536 * 1024 * 1024} 100000 100000 true`);
    } finally {
      await client.close();
    }
  });
});
