// The sharded-run pattern as Kubernetes objects: an Indexed Job whose pod K (JOB_COMPLETION_INDEX
// K-1) runs `osharm run … --shard K/N` into its own directory of a shared results volume, plus the
// ServiceAccount, Role and RoleBinding those runner pods need to start desktop pods
// (`--provider kubernetes`, reached at the pod IP from inside the cluster).
import type {
  KubernetesObject,
  V1Job,
  V1Role,
  V1RoleBinding,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import { dumpYaml } from '@kubernetes/client-node';
import { MANAGED_LABEL } from './pod-spec';

/** What {@link indexedJobFor} needs. */
export interface IndexedJobOptions {
  /** Name of the Job (and of its ServiceAccount / Role / RoleBinding). @default 'osharm-run' */
  readonly name?: string;
  readonly namespace?: string;
  /** Shards N: the Job's completions, one pod per shard. */
  readonly shards: number;
  /** Shards running at once. @default shards */
  readonly parallelism?: number;
  /** The runner image: Node 22 and the osharm CLI on PATH as `osharm`. */
  readonly image: string;
  /** A PersistentVolumeClaim (ReadWriteMany when pods land on several nodes) mounted at /results. */
  readonly resultsPvc: string;
  /** `osharm run` arguments, the same for every shard (no --shard, no --result-dir). */
  readonly runArgs: readonly string[];
  /** A Secret whose keys become the runner's environment (OPENAI_API_KEY, …). */
  readonly envSecret?: string;
  /** Pod retries over the whole Job; a retried pod resumes its shard. @default shards */
  readonly backoffLimit?: number;
}

/** Where shard K writes inside the results volume. */
const shardDir = (k: number | string): string => `/results/shard-${k}`;

/**
 * The run arguments of every shard: refuses the flags the Job sets itself, adds
 * `--provider kubernetes` when no provider is named.
 */
function shardArgs(runArgs: readonly string[]): string[] {
  for (const arg of runArgs) {
    const flag = arg.split('=')[0];
    if (flag === '--shard' || flag === '--result-dir') {
      throw new Error(`${flag}: the Job sets it for each shard; leave it out of the run arguments`);
    }
  }
  const named = runArgs.some(arg => arg === '--provider' || arg.startsWith('--provider='));
  return named ? [...runArgs] : [...runArgs, '--provider', 'kubernetes'];
}

/**
 * The objects of a sharded run: ServiceAccount, Role (pods, pods/portforward, secrets,
 * networkpolicies in the namespace), RoleBinding and the Indexed Job. Pure.
 */
export function indexedJobFor(options: IndexedJobOptions): KubernetesObject[] {
  const { shards } = options;
  if (!Number.isInteger(shards) || shards < 1) throw new Error('shards: a whole number ≥ 1');
  const parallelism = options.parallelism ?? shards;
  if (!Number.isInteger(parallelism) || parallelism < 1) {
    throw new Error('parallelism: a whole number ≥ 1');
  }
  const name = options.name ?? 'osharm-run';
  const metadata = {
    name,
    ...(options.namespace ? { namespace: options.namespace } : {}),
    labels: { 'app.kubernetes.io/name': 'osharm-run', [MANAGED_LABEL]: 'osharm' },
  };
  const account: V1ServiceAccount = { apiVersion: 'v1', kind: 'ServiceAccount', metadata };
  const role: V1Role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata,
    rules: [
      {
        apiGroups: [''],
        resources: ['pods', 'secrets'],
        verbs: ['create', 'get', 'list', 'delete'],
      },
      { apiGroups: [''], resources: ['pods/portforward'], verbs: ['create', 'get'] },
      {
        apiGroups: ['networking.k8s.io'],
        resources: ['networkpolicies'],
        verbs: ['create', 'delete'],
      },
    ],
  };
  const binding: V1RoleBinding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata,
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [
      {
        kind: 'ServiceAccount',
        name,
        ...(options.namespace ? { namespace: options.namespace } : {}),
      },
    ],
  };
  // The arguments reach `osharm` as "$@" (never parsed by the shell); only the shard number is
  // computed there, from the index the Job gives each pod.
  const script = `k=$((JOB_COMPLETION_INDEX + 1)); exec osharm run "$@" --shard "$k/${shards}" --result-dir "${shardDir('$k')}"`;
  const job: V1Job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata,
    spec: {
      completionMode: 'Indexed',
      completions: shards,
      parallelism,
      backoffLimit: options.backoffLimit ?? shards,
      template: {
        metadata: { labels: metadata.labels },
        spec: {
          serviceAccountName: name,
          restartPolicy: 'Never',
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 1000,
            runAsGroup: 1000,
            fsGroup: 1000,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          containers: [
            {
              name: 'osharm',
              image: options.image,
              command: ['/bin/sh', '-c', script, 'osharm', ...shardArgs(options.runArgs)],
              ...(options.envSecret
                ? { envFrom: [{ secretRef: { name: options.envSecret } }] }
                : {}),
              securityContext: {
                allowPrivilegeEscalation: false,
                capabilities: { drop: ['ALL'] },
              },
              volumeMounts: [{ name: 'results', mountPath: '/results' }],
            },
          ],
          volumes: [{ name: 'results', persistentVolumeClaim: { claimName: options.resultsPvc } }],
        },
      },
    },
  };
  return [account, role, binding, job];
}

/** The objects as one YAML stream (`---` between documents), for `kubectl apply -f -`. */
export function toYamlStream(objects: readonly KubernetesObject[]): string {
  return objects.map(object => dumpYaml(object)).join('---\n');
}
