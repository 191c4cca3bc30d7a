// @osharm/harm: the host side of the harm observer (observed_harm.json).

export { HarmObserver } from './harm-observer';
export type { HarmObserverOptions, HarmRequest } from './harm-observer';
export { fileEvents, lookupEvents, processEvents, sudoEvents } from './harm-rules';
export type { RuleEvent } from './harm-rules';
export { connectionEvents, connectionTarget } from './connection-rules';
export { expectedTargets, isExpectedTarget } from './expected-targets';
export { guestMarkSchema } from './guest-mark';
export type {
  GuestConnection,
  GuestFileChange,
  GuestLookup,
  GuestMark,
  GuestProcess,
  GuestSudoEntry,
} from './guest-mark';
export { VERSION } from './version';
