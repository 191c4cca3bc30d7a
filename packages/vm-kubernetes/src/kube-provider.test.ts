// The provider's create / wait / replace / delete / sweep logic through the official client's real
// requests, against a loopback stand-in of the API server (src/__fixtures__/api-stand-in.ts) that the
// client reaches through an ordinary kubeconfig; the guest is reached through the client's
// PortForward over the stand-in's WebSocket, or at the pod IP.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { createGuestClient, VmProviderError } from '@osharm/desktop-env';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StandIn } from './__fixtures__/api-stand-in';
import { startStandIn } from './__fixtures__/api-stand-in';
import { createKubernetesProvider, loadKubeConfig, podSpecFor } from './index';
import type { KubernetesProviderSettings } from './index';
import { ownerId } from '@osharm/desktop-env/provider-kit';
import { OWNER_ANNOTATION } from './owner';
import { policyNameFor, secretNameFor } from './pod-spec';

let standIn: StandIn;
const providers: { stop(): Promise<void> }[] = [];

beforeEach(async () => {
  standIn = await startStandIn('osharm-test');
});
afterEach(async () => {
  await Promise.all(providers.splice(0).map(p => p.stop().catch(() => undefined)));
  await standIn.close();
});

function provider(settings: KubernetesProviderSettings = {}) {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(standIn.kubeconfig());
  const created = createKubernetesProvider({
    kubeConfig,
    image: 'registry.example/osharm-desktop:0.1.0',
    pollIntervalMs: 20,
    startTimeoutMs: 20_000,
    ...settings,
  });
  providers.push(created);
  return created;
}
const names = (kind: 'pods' | 'secrets' | 'networkpolicies') => [...standIn.store[kind].keys()];
const token = (podName: string): string =>
  Buffer.from(standIn.store.secrets.get(secretNameFor(podName))!.data!.token!, 'base64').toString();

describe('loadKubeConfig', () => {
  it('reads $KUBECONFIG from the environment it is given, selects a context, refuses an unknown one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'osharm-kubeconfig-'));
    try {
      const file = join(dir, 'config');
      writeFileSync(file, standIn.kubeconfig('other-ns'));
      const config = loadKubeConfig('stand-in', { KUBECONFIG: file, HOME: dir });
      expect(config.getCurrentCluster()?.server).toBe(standIn.url);
      expect(config.getContextObject('stand-in')?.namespace).toBe('other-ns');
      expect(() => loadKubeConfig('nope', { KUBECONFIG: file, HOME: dir })).toThrow(
        /no context "nope"/,
      );
      expect(() => loadKubeConfig(undefined, { HOME: dir })).toThrow(
        /No Kubernetes cluster is configured/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('KubernetesProvider against a stand-in API server', () => {
  it('creates Secret, NetworkPolicy and Pod, waits for Ready, reaches the guest through port-forward', async () => {
    const kube = provider({ memoryMb: 2048 });
    expect(kube.namespace).toBe('osharm-test'); // from the kubeconfig context
    const endpoint = await kube.start();
    const name = kube.podName()!;
    expect(name).toMatch(/^osharm-desktop-[0-9a-f]{12}$/);

    const posts = standIn.requests.filter(r => r.startsWith('POST'));
    expect(posts).toEqual([
      'POST /api/v1/namespaces/osharm-test/secrets',
      'POST /apis/networking.k8s.io/v1/namespaces/osharm-test/networkpolicies',
      'POST /api/v1/namespaces/osharm-test/pods',
    ]);
    // The pod sent is podSpecFor's, with this process as owner.
    const sent = standIn.store.pods.get(name)!;
    const owner = sent.metadata.annotations![OWNER_ANNOTATION]!;
    expect(owner).toMatch(new RegExp(`^${hostname()}:${process.pid}:\\d+$`));
    const expected = podSpecFor({
      name,
      namespace: 'osharm-test',
      image: 'registry.example/osharm-desktop:0.1.0',
      memoryMb: 2048,
      annotations: { [OWNER_ANNOTATION]: owner },
    });
    expect(sent.spec).toEqual(JSON.parse(JSON.stringify(expected.spec)));
    expect(standIn.store.networkpolicies.get(policyNameFor(name))!.spec).toMatchObject({
      policyTypes: ['Ingress', 'Egress'],
      egress: [],
    });
    // Polled until Ready (the stand-in kubelet needs two reads).
    expect(
      standIn.requests.filter(r => r === `GET /api/v1/namespaces/osharm-test/pods/${name}`).length,
    ).toBeGreaterThanOrEqual(2);

    // The endpoint is a local port carried by the API server's port-forward WebSocket.
    expect(endpoint.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(endpoint.token).toBe(token(name));
    expect(standIn.forwards.get(name)).toBeGreaterThanOrEqual(1);
    const client = createGuestClient(endpoint, { maxRetries: 0 });
    try {
      expect(await client.platform()).toBe('Linux');
    } finally {
      await client.close();
    }
    const anonymous = await fetch(`${endpoint.baseUrl}/platform`);
    expect(anonymous.status).toBe(401);
    expect(endpoint.chromiumUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    await kube.stop();
    expect([names('pods'), names('secrets'), names('networkpolicies')]).toEqual([[], [], []]);
    expect(kube.endpoint()).toBeUndefined();
  });

  it('revert replaces the pod: the old objects are deleted, the new pod has a new token', async () => {
    const kube = provider({ network: true });
    const first = await kube.start();
    const firstName = kube.podName()!;
    expect(standIn.store.networkpolicies.get(policyNameFor(firstName))!.spec!).toMatchObject({
      egress: [{}],
    });
    const second = await kube.revert();
    const secondName = kube.podName()!;
    expect(secondName).not.toBe(firstName);
    expect(second.token).not.toBe(first.token);
    expect(names('pods')).toEqual([secondName]);
    expect(names('secrets')).toEqual([secretNameFor(secondName)]);
    expect(names('networkpolicies')).toEqual([policyNameFor(secondName)]);
    expect(standIn.requests).toContain(`DELETE /api/v1/namespaces/osharm-test/pods/${firstName}`);
    // The old endpoint is closed; the new one answers.
    await expect(fetch(`${first.baseUrl}/platform`)).rejects.toThrow();
    const client = createGuestClient(second, { maxRetries: 0 });
    try {
      expect(await client.platform()).toBe('Linux');
    } finally {
      await client.close();
    }
  });

  it('keeps a warm pool: revert takes a ready pod without waiting, the pool refills, stop deletes all', async () => {
    const kube = provider({ warmPool: 1 });
    await kube.start();
    const firstName = kube.podName()!;
    expect(names('pods')).toHaveLength(2); // the running one and one warm
    const warmName = names('pods').find(n => n !== firstName)!;
    // Let the warm pod become ready, then revert: no readiness poll of the pod taken.
    await expect.poll(() => standIn.forwards.get(warmName) ?? 0, { timeout: 10_000 }).toBe(1);
    const before = standIn.requests.length;
    await kube.revert();
    expect(kube.podName()).toBe(warmName);
    const during = standIn.requests.slice(before);
    expect(during).not.toContain(`GET /api/v1/namespaces/osharm-test/pods/${warmName}`);
    expect(during).toContain(`DELETE /api/v1/namespaces/osharm-test/pods/${firstName}`);
    await expect.poll(() => names('pods').length).toBe(2); // refilled
    await kube.stop();
    expect([names('pods'), names('secrets'), names('networkpolicies')]).toEqual([[], [], []]);
  });

  it('a warm pod whose desktop died is not handed out: it is deleted and another pod starts', async () => {
    const kube = provider({ warmPool: 1 });
    await kube.start();
    const firstName = kube.podName()!;
    const warmName = names('pods').find(n => n !== firstName)!;
    await expect.poll(() => standIn.forwards.get(warmName) ?? 0, { timeout: 10_000 }).toBe(1);
    standIn.killGuest(warmName);
    const endpoint = await kube.revert();
    expect(kube.podName()).not.toBe(warmName);
    expect(kube.podName()).not.toBe(firstName);
    expect(names('pods')).not.toContain(warmName);
    const client = createGuestClient(endpoint, { maxRetries: 0 });
    try {
      expect(await client.platform()).toBe('Linux');
    } finally {
      await client.close();
    }
  });

  it('stop does not wait for warm pods still starting: they are aborted and deleted', async () => {
    // Their deadline is far beyond the test's timeout: stop must abort them, not wait.
    const kube = provider({ warmPool: 2, startTimeoutMs: 3_600_000 });
    await kube.start();
    standIn.fate = 'never-ready'; // later pods would wait for the whole start timeout
    await kube.revert();
    await expect.poll(() => names('pods').length).toBe(3);
    await kube.stop();
    expect([names('pods'), names('secrets'), names('networkpolicies')]).toEqual([[], [], []]);
  });

  it('reaches the guest at the pod IP with access pod-ip', async () => {
    standIn.podIps = true;
    const kube = provider({ access: 'pod-ip' });
    const endpoint = await kube.start();
    const name = kube.podName()!;
    expect(endpoint.baseUrl).toBe(
      `http://${String(standIn.store.pods.get(name)!.status!.podIP)}:5000`,
    );
    expect(standIn.forwards.size).toBe(0);
    const client = createGuestClient(endpoint, { maxRetries: 0 });
    try {
      expect(await client.platform()).toBe('Linux');
    } finally {
      await client.close();
    }
  });

  it('a pod whose image cannot be pulled fails the start at once, naming the reason, and is deleted', async () => {
    standIn.fate = 'image-pull-error';
    const kube = provider();
    const error = await kube.start().catch((e: unknown) => e);
    expect(VmProviderError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/ErrImagePull/);
    expect([names('pods'), names('secrets'), names('networkpolicies')]).toEqual([[], [], []]);
  });

  it('a pod never ready fails at the deadline and is deleted', async () => {
    standIn.fate = 'never-ready';
    const kube = provider({ startTimeoutMs: 300 });
    await expect(kube.start()).rejects.toThrow(/not ready in time/);
    expect(names('pods')).toEqual([]);
  });

  it('an API refusal (403 on networkpolicies) is a non-retryable provider error; the secret is removed', async () => {
    standIn.refuse = { networkpolicies: 403 };
    const kube = provider();
    const error = await kube.start().catch((e: unknown) => e);
    expect(VmProviderError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/answered 403/);
    expect((error as VmProviderError).isRetryable).toBe(false);
    expect(names('secrets')).toEqual([]);
    // networkPolicy: false does without it.
    const without = provider({ networkPolicy: false });
    await without.start();
    expect(names('pods')).toHaveLength(1);
    expect(names('networkpolicies')).toEqual([]);
  });

  it("the first start deletes this host's pods whose owner process is gone, not live or other hosts' ones", async () => {
    const leftover = (name: string, owner: string) => {
      standIn.store.pods.set(name, {
        metadata: {
          name,
          labels: { 'app.kubernetes.io/managed-by': 'osharm-vm-kubernetes' },
          annotations: { [OWNER_ANNOTATION]: owner },
        },
        status: { phase: 'Running' },
      });
      standIn.store.secrets.set(secretNameFor(name), { metadata: { name: secretNameFor(name) } });
    };
    leftover('osharm-desktop-dead', `${hostname()}:999999999:1`);
    leftover('osharm-desktop-other', 'another-host:1:1');
    leftover('osharm-desktop-live', ownerId());
    const kube = provider();
    await kube.start();
    expect(names('pods').sort()).toEqual(
      ['osharm-desktop-live', 'osharm-desktop-other', kube.podName()!].sort(),
    );
    expect(names('secrets')).not.toContain(secretNameFor('osharm-desktop-dead'));
  });
});
