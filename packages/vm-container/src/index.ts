export {
  ContainerProvider,
  createContainerProvider,
  DEFAULT_DESKTOP_IMAGE,
} from './container-provider';
export type { ContainerProviderSettings } from './container-provider';
export { OWNER_LABEL, removeOrphans } from './engine';
export type { ContainerEngine } from './engine';
export { VERSION } from './version';
