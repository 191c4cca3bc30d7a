// The provider end to end on the real desktop: the official client talks to the loopback API
// stand-in, whose kubelet plays each pod the provider sent with podman (src/__fixtures__/
// podman-kubelet.ts), marks it Ready when the spec's tcpSocket probe connects, and carries the
// client's port-forward WebSocket to the desktop's guest port. Skips, saying why, without podman
// or the image.
import { KubeConfig } from '@kubernetes/client-node';
import { createGuestClient } from '@osharm/desktop-env';
import type { GuestEndpoint } from '@osharm/desktop-env';
import { providerConformanceChecks } from '@osharm/desktop-env/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StandIn } from './__fixtures__/api-stand-in';
import { startStandIn } from './__fixtures__/api-stand-in';
import {
  desktopImage,
  podman,
  podmanKubelet,
  podmanSkipReason,
} from './__fixtures__/podman-kubelet';
import { createKubernetesProvider } from './index';
import type { KubernetesProvider } from './index';

const reason = podmanSkipReason();
if (reason) console.warn(`vm-kubernetes desktop test skipped: ${reason}`);

async function withClient<T>(
  endpoint: GuestEndpoint,
  use: (client: ReturnType<typeof createGuestClient>) => Promise<T>,
): Promise<T> {
  const client = createGuestClient(endpoint, { maxRetries: 0 });
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

const podmanPods = (): string[] =>
  podman(['pod', 'ls', '--format', '{{.Name}}'])
    .split('\n')
    .filter(name => name.startsWith('osharm-desktop-'));

describe.skipIf(reason !== undefined)(
  'KubernetesProvider on the real desktop (podman as kubelet)',
  () => {
    let standIn: StandIn;
    let provider: KubernetesProvider;
    beforeAll(async () => {
      standIn = await startStandIn('osharm-test', podmanKubelet);
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(standIn.kubeconfig());
      provider = createKubernetesProvider({
        kubeConfig,
        image: desktopImage,
        imagePullPolicy: 'Never',
        memoryMb: 1536,
        cpus: 1,
        tmpfsSizeMb: 256,
        screen: { width: 1280, height: 720 },
        pollIntervalMs: 250,
        startTimeoutMs: 120_000,
      });
    });
    afterAll(async () => {
      await provider?.stop().catch(() => undefined);
      await standIn?.close();
    });

    it('a warm pool keeps a second desktop ready: revert hands it out, clean, and refills', async () => {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(standIn.kubeconfig());
      const warm = createKubernetesProvider({
        kubeConfig,
        image: desktopImage,
        imagePullPolicy: 'Never',
        memoryMb: 1536,
        cpus: 1,
        tmpfsSizeMb: 256,
        pollIntervalMs: 250,
        startTimeoutMs: 120_000,
        warmPool: 1,
      });
      try {
        const first = await warm.start();
        const firstPod = warm.podName()!;
        await withClient(first, client =>
          client.execute(['bash', '-c', 'touch /home/user/mark'], { timeoutMs: 30_000 }),
        );
        // Two desktops side by side: the running one and the warm one.
        await expect.poll(() => podmanPods().length, { timeout: 60_000 }).toBe(2);
        const warmPod = podmanPods().find(name => name !== firstPod)!;
        const reverted = performance.now();
        const second = await warm.revert();
        console.log(`warm revert → endpoint ${Math.round(performance.now() - reverted)} ms`);
        expect(warm.podName()).toBe(warmPod);
        await withClient(second, async client => {
          const check = await client.execute(
            ['bash', '-c', 'test -e /home/user/mark && echo kept || echo clean'],
            { timeoutMs: 30_000 },
          );
          expect(check.output.trim()).toBe('clean');
        });
        await standIn.settled();
        await expect.poll(() => podmanPods().length, { timeout: 60_000 }).toBe(2); // refilled
        expect(podmanPods()).not.toContain(firstPod);
      } finally {
        await warm.stop();
      }
      // The stand-in answers a delete at once, as an API server does; its kubelet removes the pod after.
      await standIn.settled();
      expect(podmanPods()).toEqual([]);
    });

    // The provider contract (desktop-env's conformance checks) on this provider: its start, revert
    // and stop; the port-forward and CDP bridge checks run on its desktop between start and revert.
    const seen = new Set<string>();
    const checks = providerConformanceChecks({
      providerId: 'kubernetes',
      create: () => provider,
      broken: () => {
        const kubeConfig = new KubeConfig();
        kubeConfig.loadFromString(standIn.kubeconfig());
        return createKubernetesProvider({ kubeConfig, image: desktopImage, startTimeoutMs: 1 });
      },
      brokenMessage: /not ready in time/,
      mark: async endpoint => {
        seen.add(provider.podName()!);
        await withClient(endpoint, client =>
          client.execute(['bash', '-c', 'touch "$HOME/Desktop/osharm-conformance-mark"'], {
            timeoutMs: 30_000,
          }),
        );
      },
      marked: endpoint =>
        withClient(endpoint, async client => {
          const check = await client.execute(
            [
              'bash',
              '-c',
              'test -e "$HOME/Desktop/osharm-conformance-mark" && echo kept || echo clean',
            ],
            { timeoutMs: 30_000 },
          );
          return check.output.trim() === 'kept';
        }),
      afterRevert: async () => {
        expect(seen.has(provider.podName()!)).toBe(false);
        seen.add(provider.podName()!);
      },
      leftovers: async () => {
        await standIn.settled();
        return [
          ...podmanPods().filter(name => seen.has(name)),
          ...[...standIn.store.pods.keys()].map(name => `API pod ${name}`),
        ];
      },
    });
    const [identity, broken, started, reverted, stopped] = checks;
    for (const check of [identity!, broken!, started!]) it(check.name, check.run, check.timeoutMs);

    it('reaches the desktop through port-forward and the CDP bridge', async () => {
      const first = provider.endpoint() ?? (await provider.start());
      const firstPod = provider.podName()!;
      expect(first.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      await withClient(first, async client => {
        const written = await client.execute(['bash', '-c', 'id -u'], { timeoutMs: 30_000 });
        expect(written.output.trim()).toBe('1000');
        // The CDP bridge (chromiumUrl): a local port tunnelled by the guest server's CONNECT, over
        // the port-forward, to 127.0.0.1:9222 in the pod; a stand-in for DevTools listens there.
        await client.execute(
          [
            'bash',
            '-c',
            'cd /tmp && echo devtools > probe.txt && (setsid python3 -m http.server 9222 --bind 127.0.0.1 >/dev/null 2>&1 &)',
          ],
          { timeoutMs: 30_000 },
        );
      });
      await expect
        .poll(
          async () => {
            const answer = await fetch(`${first.chromiumUrl!}/probe.txt`).catch(() => undefined);
            return answer?.ok ? (await answer.text()).trim() : undefined;
          },
          { timeout: 20_000, interval: 250 },
        )
        .toBe('devtools');
      expect(standIn.forwards.get(firstPod)).toBeGreaterThanOrEqual(1);
      expect(podmanPods()).toEqual([firstPod]);
    });

    for (const check of [reverted!, stopped!]) it(check.name, check.run, check.timeoutMs);
  },
);
