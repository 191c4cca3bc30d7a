export {
  ContainerProvider,
  createContainerProvider,
  DEFAULT_DESKTOP_IMAGE,
} from './container-provider';
export type { ContainerProviderSettings } from './container-provider';
export { PODMAN_SECCOMP_PROFILE } from './container-sudo';
export type { ContainerSudoMode } from './container-sudo';
export { OWNER_LABEL, removeOrphans } from './engine';
export type { ContainerEngine } from './engine';
export { VERSION } from './version';
