export {
  DEFAULT_DESKTOP_IMAGE,
  GUEST_PORT,
  networkPolicyFor,
  podSpecFor,
  secretFor,
} from './pod-spec';
export type { PodOptions } from './pod-spec';
export { createKubernetesProvider, KubernetesProvider } from './kube-provider';
export type { KubernetesProviderSettings } from './kube-provider';
export { inCluster, loadKubeConfig } from './kube-config';
export { indexedJobFor, toYamlStream } from './indexed-job';
export type { IndexedJobOptions } from './indexed-job';
export { VERSION } from './version';
