export {
  DEFAULT_DESKTOP_IMAGE,
  DESKTOP_LABEL,
  GUEST_PORT,
  MANAGED_LABEL,
  MANAGED_VALUE,
  networkPolicyFor,
  OWNER_LABEL,
  podSpecFor,
  policyNameFor,
  secretFor,
  secretNameFor,
  TOKEN_KEY,
} from './pod-spec';
export type { PodOptions } from './pod-spec';
export { VERSION } from './version';
