export {
  DEFAULT_DESKTOP_IMAGE,
  DESKTOP_LABEL,
  GUEST_PORT,
  MANAGED_LABEL,
  MANAGED_VALUE,
  networkPolicyFor,
  podSpecFor,
  policyNameFor,
  secretFor,
  secretNameFor,
  TOKEN_KEY,
} from './pod-spec';
export type { PodOptions } from './pod-spec';
export {
  createKubernetesProvider,
  inCluster,
  KubernetesProvider,
  loadKubeConfig,
} from './kube-provider';
export type { KubernetesProviderSettings } from './kube-provider';
export { indexedJobFor, shardDir, toYamlStream } from './indexed-job';
export type { IndexedJobOptions } from './indexed-job';
export { OWNER_ANNOTATION } from './owner';
export { VERSION } from './version';
