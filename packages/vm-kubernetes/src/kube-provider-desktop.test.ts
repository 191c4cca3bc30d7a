// The provider end to end on the real desktop: the official client talks to the loopback API
// stand-in, whose kubelet plays each pod the provider sent with podman (src/__fixtures__/
// podman-kubelet.ts), marks it Ready when the spec's tcpSocket probe connects, and carries the
// client's port-forward WebSocket to the desktop's guest port. Skips, saying why, without podman
// or the image.
import { KubeConfig } from '@kubernetes/client-node';
import { createGuestClient } from '@osharm/desktop-env';
import type { GuestEndpoint } from '@osharm/desktop-env';
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

    it('starts a desktop pod reached through port-forward, reverts to a clean one, stops', async () => {
      const started = performance.now();
      const first = await provider.start();
      const firstPod = provider.podName()!;
      expect(first.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      await withClient(first, async client => {
        const png = await client.screenshot({ timeoutMs: 30_000 });
        console.log(
          `provider start → first screenshot ${Math.round(performance.now() - started)} ms (podman kube play behind the stand-in)`,
        );
        expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
        expect(png.readUInt32BE(16)).toBe(1280);
        const written = await client.execute(
          ['bash', '-c', 'echo left-behind > /home/user/mark && id -u'],
          { timeoutMs: 30_000 },
        );
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

      const reverted = performance.now();
      const second = await provider.revert();
      const secondPod = provider.podName()!;
      expect(secondPod).not.toBe(firstPod);
      expect(second.token).not.toBe(first.token);
      await withClient(second, async client => {
        const check = await client.execute(
          ['bash', '-c', 'test -e /home/user/mark && echo kept || echo clean'],
          { timeoutMs: 30_000 },
        );
        console.log(
          `provider revert → guest answered ${Math.round(performance.now() - reverted)} ms`,
        );
        expect(check.output.trim()).toBe('clean');
      });
      // The old token opens nothing on the new desktop.
      const stale = await fetch(`${second.baseUrl}/platform`, {
        headers: { authorization: `Bearer ${first.token}` },
      });
      expect(stale.status).toBe(401);
      await standIn.settled();
      expect(podmanPods()).toEqual([secondPod]);

      await provider.stop();
      await standIn.settled();
      expect(podmanPods()).toEqual([]);
      expect([...standIn.store.pods.keys()]).toEqual([]);
    });
  },
);
