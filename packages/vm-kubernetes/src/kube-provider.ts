// One desktop Pod per environment on a Kubernetes cluster, through the official client: Secret +
// NetworkPolicy + Pod (pod-spec.ts), wait for Ready, reach the guest server by the API server's
// port-forward (outside the cluster) or the pod IP (inside), revert = a fresh pod (from the warm
// pool when one is kept), delete on stop, and a sweep of this host's leftovers after a crash.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:net';
import type { V1Pod } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { CoreV1Api, NetworkingV1Api } from '@kubernetes/client-node';
import type { GuestEndpoint, ProviderCallOptions, VmProviderV1 } from '@osharm/desktop-env';
import { createGuestClient, VmProviderError } from '@osharm/desktop-env';
import { bridgePort, closeBridge, tunnelBridge } from '@osharm/desktop-env/provider-kit';
import { portForwardBridge } from './bridges';
import { inCluster, loadKubeConfig, providerError, SERVICE_ACCOUNT_DIR } from './kube-config';
import { ownerAlive, ownerId } from '@osharm/desktop-env/provider-kit';
import { OWNER_ANNOTATION } from './owner';
import type { PodOptions } from './pod-spec';
import {
  GUEST_PORT,
  MANAGED_LABEL,
  MANAGED_VALUE,
  networkPolicyFor,
  podSpecFor,
  policyNameFor,
  secretFor,
  secretNameFor,
} from './pod-spec';

/** Settings of {@link createKubernetesProvider}. */
export interface KubernetesProviderSettings extends Omit<
  PodOptions,
  'name' | 'namespace' | 'secretName' | 'hostPort'
> {
  /** @default the context's namespace, in a pod its own namespace, else 'default' */
  readonly namespace?: string;
  /** A kubeconfig context (outside the cluster). @default the current context */
  readonly context?: string;
  /** A ready KubeConfig instead of the default loading ($KUBECONFIG, ~/.kube/config, in-cluster). */
  readonly kubeConfig?: KubeConfig;
  /**
   * How the harness reaches the guest server: `port-forward` (the API server's pods/portforward,
   * for a runner outside the cluster), `pod-ip` (`http://<podIP>:5000`, for a runner in a pod of
   * the same cluster). @default 'pod-ip' inside a cluster, else 'port-forward'
   */
  readonly access?: 'port-forward' | 'pod-ip';
  /** Allow the desktop any egress (the NetworkPolicy otherwise denies all). @default false */
  readonly network?: boolean;
  /** Create the NetworkPolicy (needs RBAC on networkpolicies). @default true */
  readonly networkPolicy?: boolean;
  /** Ready pods kept in reserve so start() / revert() never wait for a cold start. @default 0 */
  readonly warmPool?: number;
  /** How long start() waits for a pod to be ready and its guest server to answer, ms. @default 300000 */
  readonly startTimeoutMs?: number;
  /** Interval of the readiness poll, ms. @default 1000 */
  readonly pollIntervalMs?: number;
}

/** A pod that is ready and reachable. */
interface ReadyPod {
  readonly name: string;
  readonly endpoint: GuestEndpoint;
  readonly bridges: readonly Server[];
}

const statusCode = (error: unknown): number | undefined =>
  typeof (error as { code?: unknown })?.code === 'number'
    ? (error as { code: number }).code
    : undefined;

/**
 * Desktop pods on a Kubernetes cluster (`VmProviderV1`, providerId `kubernetes`). Every pod gets a
 * new token (its own Secret), a NetworkPolicy and the owner annotation; `revert()` replaces the pod.
 */
export class KubernetesProvider implements VmProviderV1 {
  readonly specificationVersion = 'vm-provider-v1' as const;
  readonly providerId = 'kubernetes';
  readonly namespace: string;
  private readonly settings: KubernetesProviderSettings;
  private readonly config: KubeConfig;
  private readonly core: CoreV1Api;
  private readonly networking: NetworkingV1Api;
  private readonly access: 'port-forward' | 'pod-ip';
  private running: ReadyPod | undefined;
  private starting: Promise<GuestEndpoint> | undefined;
  private readonly pool: Promise<ReadyPod>[] = [];
  /** Aborts the warm pods still starting when the provider stops. */
  private poolAbort = new AbortController();
  private swept = false;
  private closed = false;

  constructor(settings: KubernetesProviderSettings = {}) {
    this.settings = settings;
    this.config = settings.kubeConfig ?? loadKubeConfig(settings.context);
    this.core = this.config.makeApiClient(CoreV1Api);
    this.networking = this.config.makeApiClient(NetworkingV1Api);
    this.namespace =
      settings.namespace ??
      this.config.getContextObject(this.config.getCurrentContext())?.namespace ??
      (inCluster() ? readFileSync(`${SERVICE_ACCOUNT_DIR}/namespace`, 'utf8').trim() : 'default');
    this.access = settings.access ?? (inCluster() ? 'pod-ip' : 'port-forward');
  }

  /** Starts a pod (or takes a warm one) and returns its endpoint once its guest server answers. */
  async start(options: ProviderCallOptions = {}): Promise<GuestEndpoint> {
    if (this.running) return this.running.endpoint;
    this.closed = false;
    this.starting ??= this.acquire(options).finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  endpoint(): GuestEndpoint | undefined {
    return this.running?.endpoint;
  }

  /** Name of the running pod, or undefined. */
  podName(): string | undefined {
    return this.running?.name;
  }

  /** Deletes the pod and starts a fresh one (a warm one when the pool has it); `snapshot` is ignored. */
  async revert(
    options: ProviderCallOptions & { readonly snapshot?: string } = {},
  ): Promise<GuestEndpoint> {
    if (this.starting) await this.starting.catch(() => undefined);
    const previous = this.running;
    this.running = undefined;
    if (previous) await this.release(previous);
    return this.start(options);
  }

  /** Deletes the running pod and every warm one; safe when nothing runs. */
  async stop(_options: ProviderCallOptions = {}): Promise<void> {
    this.closed = true;
    this.poolAbort.abort();
    this.poolAbort = new AbortController();
    if (this.starting) await this.starting.catch(() => undefined);
    const previous = this.running;
    this.running = undefined;
    const pool = this.pool.splice(0);
    await Promise.all([
      previous ? this.release(previous) : undefined,
      ...pool.map(pending => pending.then(pod => this.release(pod)).catch(() => undefined)),
    ]);
  }

  /**
   * Deletes this package's pods (with their Secrets and NetworkPolicies) in the namespace whose
   * owner is a process of this host that is gone; returns their names.
   */
  async removeOrphans(): Promise<string[]> {
    const list = await this.core.listNamespacedPod({
      namespace: this.namespace,
      labelSelector: `${MANAGED_LABEL}=${MANAGED_VALUE}`,
    });
    const orphans = list.items
      .filter(pod => !ownerAlive(pod.metadata?.annotations?.[OWNER_ANNOTATION]))
      .map(pod => pod.metadata?.name)
      .filter((name): name is string => typeof name === 'string');
    await Promise.all(orphans.map(name => this.deleteObjects(name)));
    return orphans;
  }

  private async acquire(options: ProviderCallOptions): Promise<GuestEndpoint> {
    const timeoutMs = options.timeoutMs ?? this.settings.startTimeoutMs ?? 300_000;
    if (!this.swept) {
      this.swept = true;
      await this.removeOrphans().catch(() => undefined);
    }
    const deadline = Date.now() + timeoutMs;
    const warm = this.pool.shift();
    this.refill();
    let pod = warm ? await warm.catch(() => undefined) : undefined;
    if (pod) {
      // A warm pod may have died while it waited (eviction, its deadline): check it once.
      const alive = await this.waitForGuest(pod.endpoint, Date.now() + 5000).then(
        () => true,
        () => false,
      );
      if (!alive) {
        await this.release(pod).catch(() => undefined);
        pod = undefined;
      }
    }
    pod ??= await this.launch(deadline, options.abortSignal);
    if (this.closed) {
      await this.release(pod);
      throw providerError('The provider was stopped while the pod started', undefined, false);
    }
    this.running = pod;
    return pod.endpoint;
  }

  /** Keeps `warmPool` pods starting or ready in reserve. */
  private refill(): void {
    const size = this.settings.warmPool ?? 0;
    while (!this.closed && this.pool.length < size) {
      const pending = this.launch(
        Date.now() + (this.settings.startTimeoutMs ?? 300_000),
        this.poolAbort.signal,
      );
      pending.catch(() => undefined); // a failed warm pod surfaces when it is taken
      this.pool.push(pending);
    }
  }

  /** Creates Secret, NetworkPolicy and Pod, waits until the guest server answers the token. */
  private async launch(deadline: number, abortSignal?: AbortSignal): Promise<ReadyPod> {
    const name = `osharm-desktop-${randomBytes(6).toString('hex')}`;
    const token = randomBytes(32).toString('hex');
    const s = this.settings;
    const podOptions: PodOptions = {
      ...s,
      name,
      namespace: this.namespace,
      annotations: { ...s.annotations, [OWNER_ANNOTATION]: ownerId() },
    };
    const namespace = this.namespace;
    const bridges: Server[] = [];
    try {
      await this.core.createNamespacedSecret({ namespace, body: secretFor(podOptions, token) });
      if (s.networkPolicy !== false) {
        await this.networking.createNamespacedNetworkPolicy({
          namespace,
          body: networkPolicyFor({ ...podOptions, network: s.network }),
        });
      }
      await this.core.createNamespacedPod({ namespace, body: podSpecFor(podOptions) });
      const pod = await this.waitReady(name, deadline, abortSignal);
      let host: string;
      let port: number;
      if (this.access === 'pod-ip') {
        host = pod.status?.podIP ?? '';
        port = GUEST_PORT;
        if (!host) throw new Error('the ready pod has no IP');
      } else {
        const bridge = await portForwardBridge(this.config, namespace, name, GUEST_PORT);
        bridges.push(bridge);
        host = '127.0.0.1';
        port = bridgePort(bridge);
      }
      const screen = s.screen ?? { width: 1920, height: 1080 };
      const base: GuestEndpoint = {
        baseUrl: `http://${host}:${port}`,
        host,
        serverPort: port,
        token,
        screen,
      };
      await this.waitForGuest(base, deadline, abortSignal);
      bridges.push(
        await tunnelBridge({ host, port }, token, 9222),
        await tunnelBridge({ host, port }, token, 8080),
      );
      return {
        name,
        bridges,
        endpoint: {
          ...base,
          chromiumUrl: `http://127.0.0.1:${bridgePort(bridges[bridges.length - 2]!)}`,
          vlcUrl: `http://127.0.0.1:${bridgePort(bridges[bridges.length - 1]!)}`,
        },
      };
    } catch (error) {
      await Promise.all(bridges.map(closeBridge));
      // The start's own error is the one to report; a failed delete is left to the sweep.
      await this.deleteObjects(name).catch(() => undefined);
      if (VmProviderError.isInstance(error)) throw error;
      const code = statusCode(error);
      throw providerError(
        `The desktop pod ${namespace}/${name} did not start: ${code ? `the API server answered ${code}: ` : ''}${(error as Error).message}`,
        error,
        code === undefined || code >= 500 || code === 429,
      );
    }
  }

  /** Polls the pod until its Ready condition is True; fails at once on a pod that cannot start. */
  private async waitReady(
    name: string,
    deadline: number,
    abortSignal?: AbortSignal,
  ): Promise<V1Pod> {
    for (;;) {
      abortSignal?.throwIfAborted();
      const pod = await this.core.readNamespacedPod({ name, namespace: this.namespace });
      const phase = pod.status?.phase;
      if (phase === 'Failed' || phase === 'Succeeded') {
        const reason = pod.status?.reason ?? pod.status?.message ?? phase;
        throw new Error(`the pod ended (${phase}: ${reason})`);
      }
      for (const status of pod.status?.containerStatuses ?? []) {
        const waiting = status.state?.waiting?.reason;
        if (
          waiting &&
          /^(ErrImagePull|ImagePullBackOff|InvalidImageName|CreateContainerConfigError|CreateContainerError)$/.test(
            waiting,
          )
        ) {
          throw new Error(
            `its container cannot start: ${waiting}${status.state?.waiting?.message ? ` (${status.state.waiting.message})` : ''}`,
          );
        }
        if (status.state?.terminated) {
          throw new Error(
            `its container exited (${status.state.terminated.reason ?? status.state.terminated.exitCode})`,
          );
        }
      }
      const ready = pod.status?.conditions?.some(c => c.type === 'Ready' && c.status === 'True');
      if (ready) return pod;
      if (Date.now() > deadline) {
        throw new Error(`it was not ready in time (phase ${phase ?? 'unknown'})`);
      }
      await new Promise(resolve => setTimeout(resolve, this.settings.pollIntervalMs ?? 1000));
    }
  }

  /** The readiness probe only sees a listening port: ask /platform with the token. */
  private async waitForGuest(
    endpoint: GuestEndpoint,
    deadline: number,
    abortSignal?: AbortSignal,
  ): Promise<void> {
    const client = createGuestClient(endpoint, { maxRetries: 0 });
    try {
      for (;;) {
        abortSignal?.throwIfAborted();
        try {
          await client.platform({ timeoutMs: 5000 });
          return;
        } catch (error) {
          if (Date.now() > deadline) {
            throw new Error(`its guest server did not answer: ${(error as Error).message}`, {
              cause: error,
            });
          }
        }
        await new Promise(resolve => setTimeout(resolve, 250));
      }
    } finally {
      await client.close();
    }
  }

  private async release(pod: ReadyPod): Promise<void> {
    await Promise.all(pod.bridges.map(closeBridge));
    await this.deleteObjects(pod.name);
  }

  /** Deletes a desktop's Pod, Secret and NetworkPolicy; absent ones are fine. */
  private async deleteObjects(name: string): Promise<void> {
    const namespace = this.namespace;
    const ignoreMissing = (error: unknown): void => {
      if (statusCode(error) !== 404) throw error;
    };
    const results = await Promise.allSettled([
      this.core
        .deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 })
        .then(() => undefined, ignoreMissing),
      this.core
        .deleteNamespacedSecret({ name: secretNameFor(name), namespace })
        .then(() => undefined, ignoreMissing),
      this.settings.networkPolicy === false
        ? undefined
        : this.networking
            .deleteNamespacedNetworkPolicy({ name: policyNameFor(name), namespace })
            .then(() => undefined, ignoreMissing),
    ]);
    const failed = results.find(result => result.status === 'rejected');
    if (failed) {
      throw providerError(
        `Could not delete the desktop pod ${namespace}/${name} (the next start's sweep or its activeDeadlineSeconds ends it)`,
        failed.reason,
      );
    }
  }
}

/**
 * Creates the Kubernetes provider. Loads the kubeconfig (or the in-cluster account) now; no
 * request is sent until `start()`.
 * @example
 * const provider = createKubernetesProvider({ namespace: 'osharm', image: 'registry.example/osharm-desktop:0.1.0', warmPool: 1 });
 * const endpoint = await provider.start();
 */
export function createKubernetesProvider(
  settings: KubernetesProviderSettings = {},
): KubernetesProvider {
  return new KubernetesProvider(settings);
}
