// The Kubernetes objects of one desktop environment: its Pod (podSpecFor), the Secret holding the
// guest server's token (secretFor) and the NetworkPolicy fencing it (networkPolicyFor). The provider
// sends exactly these objects, and src/kube-play.test.ts runs the same Pod with `podman kube play`.
import type { V1NetworkPolicy, V1Pod, V1Secret, V1Volume } from '@kubernetes/client-node';
import { DESKTOP_SITE_HOSTS } from '@osharm/desktop-env/internal';
import { VERSION } from './version';

/** The image scripts/build-desktop-image.sh builds (full profile); push it where your cluster pulls. */
export const DEFAULT_DESKTOP_IMAGE = `localhost/osharm-desktop:${VERSION}`;
/** The guest server's TCP port inside the pod (upstream's VM guest port too). */
export const GUEST_PORT = 5000;
/** Label on every object this package creates: the cleanup selects on it. */
export const MANAGED_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_VALUE = 'osharm-vm-kubernetes';
/** Label naming the environment (pod, secret and policy of one desktop share it). */
const DESKTOP_LABEL = 'osharm.org/desktop';
/** The key of the token in the Secret. */
const TOKEN_KEY = 'token';
/** The desktop user's uid / gid inside the image. */
const DESKTOP_UID = 1000;

/** What {@link podSpecFor} needs to know. */
export interface PodOptions {
  /** The pod's name; the Secret and NetworkPolicy take it with `-token` / `-fence` appended. */
  readonly name: string;
  readonly namespace?: string;
  /** @default {@link DEFAULT_DESKTOP_IMAGE} */
  readonly image?: string;
  /** @default 'IfNotPresent' */
  readonly imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  /** The Secret holding the token under key `token`. @default `${name}-token` */
  readonly secretName?: string;
  /** Memory limit (= request) of the desktop container, MiB; the tmpfs volumes count in it. @default 4096 */
  readonly memoryMb?: number;
  /** CPU limit, in cores. @default 1.5 */
  readonly cpus?: number;
  /** CPU request, in cores (what the scheduler reserves). @default 0.5 */
  readonly cpuRequest?: number;
  /** Size cap of each writable memory volume (/home/user, /tmp, /var/tmp), MiB. @default 2048 */
  readonly tmpfsSizeMb?: number;
  /** /dev/shm, MiB (Kubernetes has no shm-size: a memory volume). @default 512 */
  readonly shmMb?: number;
  /** @default 1920×1080 */
  readonly screen?: { readonly width: number; readonly height: number };
  /** Extra labels. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Annotations of the pod, its Secret and its NetworkPolicy (the provider's owner goes here). */
  readonly annotations?: Readonly<Record<string, string>>;
  /** `spec.runtimeClassName`, e.g. a gVisor or Kata class where the cluster offers one. */
  readonly runtimeClassName?: string;
  /**
   * Publish the guest port on the node's 127.0.0.1 at this port (`hostIP` + `hostPort`): for
   * `podman kube play` on one machine, which otherwise publishes it on 0.0.0.0. Leave unset on a
   * cluster, where the provider port-forwards or dials the pod IP.
   */
  readonly hostPort?: number;
  /** `spec.activeDeadlineSeconds`: the pod is ended after this long whatever happens. @default 21600 (6 h) */
  readonly activeDeadlineSeconds?: number;
  /**
   * The agent's own namespace inside the desktop (desktop-guest guest/agent-ns.sh: the agent cannot
   * signal, ptrace or see the guest server, the observer or the pod's first process). It needs a
   * nested user namespace and a fresh /proc mount: the pod runs in its own user namespace
   * (`hostUsers: false`, Kubernetes ≥ 1.33 with a runtime that supports it) with an unmasked /proc
   * (`procMount: Unmasked`, which the kubelet allows only there), and a seccomp profile that allows
   * unprivileged user namespaces (see {@link PodOptions.seccompProfile}). `false`: neither is asked
   * and the desktop runs without the boundary, which every run's observed_harm.json then records
   * as degraded. @default true
   */
  readonly agentNamespace?: boolean;
  /**
   * The pod has a route out (the provider's `network`): its lookups then go to the cluster's DNS,
   * unrecorded. Without it they go to the guest server's recording nameserver. @default false
   */
  readonly network?: boolean;
  /**
   * The container's seccomp profile: `RuntimeDefault`, or a profile installed on every node
   * (`Localhost`, a path relative to the kubelet's seccomp directory, e.g. a copy of
   * containers-common's seccomp.json, which allows unprivileged user namespaces where containerd's
   * default may not). @default { type: 'RuntimeDefault' }
   */
  readonly seccompProfile?:
    | { readonly type: 'RuntimeDefault' }
    | { readonly type: 'Localhost'; readonly localhostProfile: string };
}

/** The Secret's name for a pod name. */
export const secretNameFor = (name: string): string => `${name}-token`;
/** The NetworkPolicy's name for a pod name. */
export const policyNameFor = (name: string): string => `${name}-fence`;

function labelsFor(options: PodOptions): Record<string, string> {
  return {
    ...options.labels,
    'app.kubernetes.io/name': 'osharm-desktop',
    [MANAGED_LABEL]: MANAGED_VALUE,
    [DESKTOP_LABEL]: options.name,
  };
}

/** A memory-backed emptyDir (tmpfs): its pages count against the container's memory limit. */
const memoryVolume = (name: string, sizeMb: number): V1Volume => ({
  name,
  emptyDir: { medium: 'Memory', sizeLimit: `${sizeMb}Mi` },
});

/**
 * The Pod of one desktop environment: the guest server is the image's entrypoint, listening on
 * TCP {@link GUEST_PORT} with its token from the Secret; non-root, no capabilities, read-only root
 * file system with capped memory volumes where the desktop writes, no service account token.
 * Pure: no I/O.
 */
export function podSpecFor(options: PodOptions): V1Pod {
  const memory = options.memoryMb ?? 4096;
  const tmpfs = options.tmpfsSizeMb ?? 2048;
  const screen = options.screen ?? { width: 1920, height: 1080 };
  const cpus = options.cpus ?? 1.5;
  const cpuRequest = Math.min(options.cpuRequest ?? 0.5, cpus);
  const millicores = (cores: number): string => `${Math.round(cores * 1000)}m`;
  const agentNamespace = options.agentNamespace ?? true;
  const seccompProfile = { ...(options.seccompProfile ?? { type: 'RuntimeDefault' }) };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: options.name,
      ...(options.namespace ? { namespace: options.namespace } : {}),
      labels: labelsFor(options),
      ...(options.annotations ? { annotations: { ...options.annotations } } : {}),
    },
    spec: {
      automountServiceAccountToken: false,
      // No KUBERNETES_SERVICE_HOST / <svc>_PORT variables: the desktop learns nothing of the cluster.
      enableServiceLinks: false,
      hostname: 'desktop',
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 1,
      activeDeadlineSeconds: options.activeDeadlineSeconds ?? 21_600,
      ...(options.runtimeClassName ? { runtimeClassName: options.runtimeClassName } : {}),
      ...(agentNamespace ? { hostUsers: false } : {}),
      // Upstream's web addresses, served inside (desktop-guest guest/site-tls.sh): the names resolve to
      // the pod's own loopback.
      hostAliases: [{ ip: '127.0.0.1', hostnames: [...DESKTOP_SITE_HOSTS] }],
      // Without a network, name lookups go to the guest server's recording nameserver on the pod's
      // loopback (desktop-guest guest-dns.ts: recorded for the harm observer, refused).
      ...(options.network ? {} : { dnsPolicy: 'None', dnsConfig: { nameservers: ['127.0.0.1'] } }),
      securityContext: {
        runAsNonRoot: true,
        runAsUser: DESKTOP_UID,
        runAsGroup: DESKTOP_UID,
        fsGroup: DESKTOP_UID,
        seccompProfile,
        // The desktop user binds the nameserver's port 53 and the site's 443 (this pod's netns only).
        sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: '53' }],
      },
      containers: [
        {
          name: 'desktop',
          image: options.image ?? DEFAULT_DESKTOP_IMAGE,
          imagePullPolicy: options.imagePullPolicy ?? 'IfNotPresent',
          env: [
            {
              name: 'OSHARM_GUEST_TOKEN',
              valueFrom: {
                secretKeyRef: {
                  name: options.secretName ?? secretNameFor(options.name),
                  key: TOKEN_KEY,
                },
              },
            },
            { name: 'OSHARM_GUEST_PORT', value: String(GUEST_PORT) },
            { name: 'OSHARM_SCREEN', value: `${screen.width}x${screen.height}x24` },
            { name: 'OSHARM_SITE_HOSTS', value: DESKTOP_SITE_HOSTS.join(' ') },
            ...(options.network ? [] : [{ name: 'OSHARM_DNS_LISTEN', value: '127.0.0.1:53' }]),
          ],
          ports: [
            {
              name: 'guest',
              containerPort: GUEST_PORT,
              protocol: 'TCP',
              ...(options.hostPort ? { hostIP: '127.0.0.1', hostPort: options.hostPort } : {}),
            },
          ],
          // Every guest route needs the token, so the probe checks that the server accepts
          // connections; it starts listening only once Xvfb, D-Bus and the window manager are up.
          // The provider then asks /platform with the token before handing the endpoint out.
          readinessProbe: {
            tcpSocket: { port: GUEST_PORT },
            periodSeconds: 1,
            failureThreshold: 3,
            timeoutSeconds: 1,
          },
          resources: {
            requests: { cpu: millicores(cpuRequest), memory: `${memory}Mi` },
            limits: { cpu: millicores(cpus), memory: `${memory}Mi` },
          },
          securityContext: {
            allowPrivilegeEscalation: false,
            privileged: false,
            readOnlyRootFilesystem: true,
            runAsNonRoot: true,
            runAsUser: DESKTOP_UID,
            runAsGroup: DESKTOP_UID,
            capabilities: { drop: ['ALL'] },
            seccompProfile,
            ...(agentNamespace ? { procMount: 'Unmasked' } : {}),
          },
          volumeMounts: [
            { name: 'home', mountPath: '/home/user' },
            { name: 'tmp', mountPath: '/tmp' },
            { name: 'var-tmp', mountPath: '/var/tmp' },
            // crontab's spool (desktop-guest guest/bin/crontab), watched by the harm observer.
            { name: 'var-spool', mountPath: '/var/spool' },
            { name: 'run', mountPath: '/run' },
            { name: 'shm', mountPath: '/dev/shm' },
          ],
        },
      ],
      volumes: [
        memoryVolume('home', tmpfs),
        memoryVolume('tmp', tmpfs),
        memoryVolume('var-tmp', tmpfs),
        memoryVolume('var-spool', tmpfs),
        memoryVolume('run', 64),
        memoryVolume('shm', options.shmMb ?? 512),
      ],
    },
  };
}

/** The Secret with the guest server's token (`data.token`, base64), labelled like its pod. */
export function secretFor(
  options: Pick<PodOptions, 'name' | 'namespace' | 'labels' | 'annotations' | 'secretName'>,
  token: string,
): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: options.secretName ?? secretNameFor(options.name),
      ...(options.namespace ? { namespace: options.namespace } : {}),
      labels: labelsFor(options),
      ...(options.annotations ? { annotations: { ...options.annotations } } : {}),
    },
    data: { [TOKEN_KEY]: Buffer.from(token).toString('base64') },
  };
}

/**
 * The NetworkPolicy of one desktop pod: ingress only to the guest port; egress denied (no DNS,
 * no cluster services, no internet) unless `network: true`, then any egress. Takes effect only
 * where the cluster's network plugin enforces NetworkPolicy.
 */
export function networkPolicyFor(
  options: Pick<PodOptions, 'name' | 'namespace' | 'labels' | 'annotations'> & {
    readonly network?: boolean;
  },
): V1NetworkPolicy {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: policyNameFor(options.name),
      ...(options.namespace ? { namespace: options.namespace } : {}),
      labels: labelsFor(options),
      ...(options.annotations ? { annotations: { ...options.annotations } } : {}),
    },
    spec: {
      podSelector: { matchLabels: { [DESKTOP_LABEL]: options.name } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [{ ports: [{ protocol: 'TCP', port: GUEST_PORT }] }],
      // An empty rule list denies all; one empty rule allows all.
      egress: options.network ? [{}] : [],
    },
  };
}
