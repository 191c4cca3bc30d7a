// @osharm/desktop-env/internal: NOT a public API. Glue the VM providers and the runner share (the
// host names the desktop's site stand-ins answer to). It may change in any release, patch releases
// included; it is for @osharm packages only. User code imports `@osharm/desktop-env`, provider
// authors `@osharm/desktop-env/provider-kit`.
export { DESKTOP_SITE_HOSTS } from './vm-provider';
