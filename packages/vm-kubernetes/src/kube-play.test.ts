// Runs exactly the Pod podSpecFor returns (serialized to YAML by the client's own dumpYaml) with
// `podman kube play`, its token in a podman secret made from secretFor's Secret, on the real desktop
// image; then talks to the guest server, published on 127.0.0.1, with the token. Skips, saying why,
// when podman or the image is missing (CI builds the minimal image: .ci/run).
import { randomBytes } from 'node:crypto';
import { createGuestClient } from '@osharm/desktop-env';
import { DESKTOP_SITE_HOSTS } from '@osharm/desktop-env/internal';
import { afterAll, describe, expect, it } from 'vitest';
import type { PlayedPod } from './__fixtures__/podman-kubelet';
import {
  desktopImage as image,
  freePort as findFreePort,
  playPod,
  podman,
  fixtureSysctls,
  podmanHonoursProcMount,
  podmanSkipReason,
} from './__fixtures__/podman-kubelet';
import { GUEST_PORT, podSpecFor, secretFor } from './index';

const reason = podmanSkipReason();
if (reason) console.warn(`vm-kubernetes kube-play test skipped: ${reason}`);
const freePort = await findFreePort();

describe.skipIf(reason !== undefined)('podSpecFor under podman kube play', () => {
  const name = `osharm-kp-${randomBytes(4).toString('hex')}`;
  const token = randomBytes(32).toString('hex');
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
  const volumes = (pod.spec!.volumes ?? []).filter(v => v.emptyDir?.medium === 'Memory');
  const secret = secretFor({ name }, token);
  let pod$: Promise<PlayedPod> | undefined;
  afterAll(async () => {
    await (await pod$?.catch(() => undefined))?.down();
  });

  it('plays the pod, whose guest server answers only with the token, runs as uid 1000 with the limits asked', async () => {
    expect(volumes.map(v => v.name)).toEqual(['home', 'tmp', 'var-tmp', 'var-spool', 'run', 'shm']);
    const played = performance.now();
    pod$ = playPod(pod, secret.data!);
    await pod$;

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

      // Upstream's web address is the pod's own (hostAliases, the port sysctl, OSHARM_SITE_HOSTS).
      // The fixture's kubelet applies only the spec's own sysctls where podman cannot read them.
      expect(
        fixtureSysctls.every(line => {
          const [name, value] = line.split('=');
          return pod.spec!.securityContext!.sysctls!.some(
            item => item.name === name && item.value === value,
          );
        }),
      ).toBe(true);
      const site = await client.execute(
        [
          'bash',
          '-c',
          `getent hosts ${DESKTOP_SITE_HOSTS[0]}; for i in $(seq 100); do python3 -c "import socket; socket.create_connection(('${DESKTOP_SITE_HOSTS[0]}', 443), 5)" 2>/dev/null && echo connected && break; sleep 0.1; done`,
        ],
        { timeoutMs: 30_000 },
      );
      const [resolved, connected] = site.output.trim().split('\n');
      expect(resolved?.split(/\s+/)).toEqual(['127.0.0.1', DESKTOP_SITE_HOSTS[0]]);
      const tlsState = (await client.getFile('/run/user/1000/osharm/site-tls.state'))?.toString();
      expect(connected, `site-tls.state: ${tlsState}`).toBe('connected');

      // The agent's namespace needs the spec's `procMount: Unmasked`, which podman's kube play
      // honours from 4.7 on (4.3 ignores it and keeps /proc masked: the desktop then runs without
      // the boundary, and the harm observer's record says so).
      const inside = await client.execute(
        [
          'bash',
          '-c',
          "tr '\\0' ' ' </proc/1/cmdline; echo; grep -l guest-server /proc/[0-9]*/cmdline | wc -l",
        ],
        { timeoutMs: 30_000 },
      );
      const [init, servers] = inside.output.trim().split('\n');
      const baseline = (await (
        await fetch(`${baseUrl}/harm/baseline`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: '{}',
        })
      ).json()) as { degraded: string[] };
      if (podmanHonoursProcMount()) {
        expect(init).toContain('agent-init.py');
        expect(servers).toBe('0');
        expect(baseline.degraded).toEqual([]);
      } else {
        expect(init).toContain('guest-server');
        expect(baseline.degraded).toEqual([expect.stringMatching(/agent's namespace/)]);
      }

      // A name looked up inside (dnsPolicy None → the pod's loopback) reaches the guest server's
      // recording nameserver: the next harm mark lists it. podman 4.3's kube play does not apply a
      // Pod's dnsConfig (its resolv.conf names podman's own network DNS): proven only where it does.
      const lookup = await client.execute(
        ['bash', '-c', 'cat /etc/resolv.conf; getent hosts exfil.example.net || true'],
        { timeoutMs: 30_000 },
      );
      const mark = (await (
        await fetch(`${baseUrl}/harm/mark`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: '{"step": 1}',
        })
      ).json()) as { lookups: { name: string }[]; degraded: string[] };
      const first = /^nameserver (\S+)$/m.exec(lookup.output)?.[1];
      if (first === '127.0.0.1') {
        expect(
          mark.lookups.map(item => item.name),
          `degraded: ${mark.degraded.join('; ')}`,
        ).toContain('exfil.example.net');
      } else {
        console.warn(`kube play: the pod's first nameserver is ${first}, not its dnsConfig's`);
        expect(podmanHonoursProcMount()).toBe(false); // a podman that old
      }

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
