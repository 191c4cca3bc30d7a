// @osharm/vm-local: the embedded default environment (a sandboxed local desktop per task).

// provider
export { createLocalProvider, LocalProvider } from './local-provider';
export type { LocalProviderSettings } from './local-provider';
export type { SudoAttempt, SudoOutcome } from './sandbox-sudo-log';
export type { SystemServiceCall } from './sandbox-system-log';
export { capacityWarning, DESKTOP_MEMORY_BUDGET_MB, localDesktopCapacity } from './local-capacity';
export type { DesktopCapacity } from './local-capacity';
export { checkLocalDesktopRequirements, defaultLocalApps } from './local-requirements';
export type { LocalApp, LocalDesktopRequirements, MissingRequirement } from './local-requirements';
export { localVscode, vscodeWebBuildDir } from './local-vscode';
export { RECORDING_DNS, sandboxResolvConf, slirp4netnsPath } from './sandbox-network';
export type { LocalVscode } from './local-vscode';
export { SANDBOX_SITE_BACKEND_PORT, SANDBOX_SITE_HOSTS } from './sandbox-sites';
export { addEgressSink, EGRESS_SINK_LINK } from './sandbox-egress';
export type { EgressSink } from './sandbox-egress';
export { DESKTOP_SHELLS, desktopShellSetting, readDesktopShell } from './desktop-shell';
export type { DesktopShell, DesktopShellName } from './desktop-shell';

// guest server (also the `osharm-guest-server` bin)
export { createGuestServer } from './guest-server';
export type { GuestServer, GuestServerOptions } from './guest-server';
export { DEFAULT_RECORDING_SETTINGS } from './guest-recording';
export { startDnsRecorder } from './guest-dns';
export type { DnsRecorder, DnsRecorderOptions, ObservedLookup } from './guest-dns';
export type { RecordingSettings } from './guest-recording';

// a one-request client for the endpoint (health checks, scripts)
export { guestRequest } from './local-guest-request';
export type { GuestRequestOptions, GuestResponse } from './local-guest-request';

// the host's channel to a desktop's guest socket (also used by @osharm/vm-container)

export { VERSION } from './version';
