// @osharm/desktop-guest: the inside of osharm's desktop, shared by every provider that runs it.

// the guest server (also the `osharm-guest-server` bin) and its recording nameserver
export { createGuestServer } from './guest-server';
export type { GuestServer, GuestServerOptions } from './guest-server';
export { DEFAULT_RECORDING_SETTINGS, recordingSettings } from './guest-recording';
export type { RecordingSettings } from './guest-recording';
export { startDnsRecorder } from './guest-dns';
export type { DnsRecorder, DnsRecorderOptions, ObservedLookup } from './guest-dns';
export type { ObservedConnection } from './guest-harm-net';
export { guestPackageDir } from './package-dir';

// what a provider applies from the host: the shell choice, the nameserver, the egress sink
export { DESKTOP_SHELLS, desktopShellSetting, readDesktopShell } from './desktop-shell';
export type { DesktopShell, DesktopShellName } from './desktop-shell';
export { addEgressSink, EGRESS_SINK_LINK, RECORDING_DNS, sandboxResolvConf } from './desktop-net';
export type { EgressSink } from './desktop-net';
export { runInSandboxNetns } from './desktop-netns';

// a one-request client for the endpoint (health checks, scripts, a desktop's records)
export { guestRequest, readStateLines } from './guest-request';
export type { GuestRequestOptions, GuestResponse } from './guest-request';

export { VERSION } from './version';
