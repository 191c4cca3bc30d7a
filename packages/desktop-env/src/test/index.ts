// @osharm/desktop-env/test: helpers for tests of packages built on desktop-env (not a stable API).
export {
  REAL_GUEST_SERVER_BIN,
  missingForRealGuestServer,
  startRealGuestServer,
} from './real-guest-server';
export type { RealGuestServer } from './real-guest-server';
export { providerConformanceChecks } from './provider-conformance';
export type { ProviderConformanceCheck, ProviderConformanceSetup } from './provider-conformance';
