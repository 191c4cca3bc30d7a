// @osharm/vm-local: the embedded default environment (a sandboxed local desktop per task). The
// desktop's inside (the guest server, its files, the shell choice, the nameserver and egress sink)
// is @osharm/desktop-guest's.

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
export type { LocalVscode } from './local-vscode';
export { slirp4netnsPath } from './sandbox-network';
export { SANDBOX_SITE_BACKEND_PORT, SANDBOX_SITE_HOSTS } from './sandbox-sites';

export { VERSION } from './version';
