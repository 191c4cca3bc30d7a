import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VmProviderError } from '@osharm/desktop-env';
import type { VmwareVmLock } from './vmware-vm-lock';

/** The `-T` flag of vmrun: `ws` for Workstation (Windows / Linux hosts), `fusion` for Fusion (macOS). */
export type VmwareHostType = 'ws' | 'fusion';

/** What a wait of the provider is waiting for. */
export type VmwareWaitTarget = 'vm-running' | 'guest-ip' | 'guest-server';

/** What the provider reports to {@link VmwareProviderSettings.logger}. */
export type VmwareProviderEvent =
  | { readonly type: 'vmrun-start'; readonly argv: readonly string[] }
  | {
      readonly type: 'vmrun-end';
      readonly argv: readonly string[];
      /** Exit code; null when vmrun was killed (timeout or abort). */
      readonly exitCode: number | null;
      readonly stdout: string;
      readonly stderr: string;
      readonly durationMs: number;
      /** vmrun ran past its command timeout and was killed. */
      readonly timedOut: boolean;
    }
  | {
      readonly type: 'wait-start';
      readonly target: VmwareWaitTarget;
      readonly vmxPath: string;
      readonly timeoutMs: number;
    }
  | {
      readonly type: 'wait-end';
      readonly target: VmwareWaitTarget;
      readonly vmxPath: string;
      readonly durationMs: number;
      /** True when the wait succeeded; false when it timed out or was aborted. */
      readonly ok: boolean;
      /** The last answer seen (vmrun output, HTTP status or network error). */
      readonly lastAnswer?: string;
    }
  | { readonly type: 'lock-acquire'; readonly vmxPath: string; readonly lockPath: string }
  | { readonly type: 'lock-release'; readonly vmxPath: string; readonly lockPath: string };

/** Upper bounds of the provider's waits, in ms. */
export interface VmwareTimeouts {
  /** One vmrun call; the process is killed when it runs longer. @default 60000 */
  readonly command?: number;
  /** Until `vmrun list` shows the VM as running (start is re-issued meanwhile). @default 300000 */
  readonly start?: number;
  /** Until `vmrun getGuestIPAddress -wait` returns a valid IPv4 / IPv6 address. @default 300000 */
  readonly ip?: number;
  /** Until `GET http://<ip>:<serverPort>/screenshot` answers 200. @default 300000 */
  readonly serverReady?: number;
  /** One readiness request to the guest server. @default 10000 (upstream's 10 s) */
  readonly serverRequest?: number;
}

/** Settings of {@link createVmwareProvider}. Every setting is optional except a VM file. */
export interface VmwareProviderSettings {
  /**
   * The VM's `.vmx` file. Required (here or in the env); checked when the VM is first used, so a
   * bad path fails at once instead of looping (upstream issue #119).
   * @default env `OSHARM_VMX_PATH`
   */
  readonly vmxPath?: string;
  /**
   * A lock from {@link acquireVm} (or `acquireVmLock`): the provider drives `lock.vmxPath` under
   * that lock instead of taking its own, and releases it on `stop()`.
   */
  readonly lock?: VmwareVmLock;
  /**
   * The vmrun executable: a name looked up on PATH or a path.
   * @default env `OSHARM_VMRUN_PATH`, else `vmrun`
   */
  readonly vmrunPath?: string;
  /**
   * vmrun's `-T` host type.
   * @default env `OSHARM_VMWARE_HOST_TYPE`, else `fusion` on macOS and `ws` elsewhere
   */
  readonly hostType?: VmwareHostType;
  /** Start the VM without a window (`vmrun start <vmx> nogui`). @default true */
  readonly headless?: boolean;
  /** Snapshot that `revert()` returns to when none is given. @default 'init_state' */
  readonly snapshot?: string;
  /** Port of the guest server. @default 5000 */
  readonly serverPort?: number;
  /** Port of Chrome's DevTools endpoint in the guest. @default 9222 */
  readonly chromiumPort?: number;
  /** Port of VLC's HTTP interface in the guest. @default 8080 */
  readonly vlcPort?: number;
  /** Screen size of the guest desktop, reported in the endpoint. @default { width: 1920, height: 1080 } */
  readonly screen?: { readonly width: number; readonly height: number };
  /** Upper bounds of each wait, in ms. See {@link VmwareTimeouts} for the defaults. */
  readonly timeouts?: VmwareTimeouts;
  /** Pause between two polls of a wait, in ms (upstream's fixed 3 s wait). @default 3000 */
  readonly pollIntervalMs?: number;
  /** Directory of the VM lock files. @default env `OSHARM_VMWARE_LOCK_DIR`, else `<os.tmpdir()>/osharm-vmware-locks` */
  readonly lockDir?: string;
  /**
   * How long `start()` waits for a VM that another live process holds, in ms. 0 refuses at once
   * with "VM … is in use by process N".
   * @default 0
   */
  readonly lockTimeoutMs?: number;
  /** When a soft `vmrun stop` fails or times out, run `vmrun stop <vmx> hard`. @default true */
  readonly hardStopFallback?: boolean;
  /** Receives every vmrun call (argv, output, duration), wait and lock event. Errors it throws are ignored. */
  readonly logger?: (event: VmwareProviderEvent) => void;
  /**
   * Environment to read the defaults from (vmrun itself always runs with `process.env`).
   * @default process.env
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Settings with every default filled in (the VM file is still optional until first use). */
export interface ResolvedVmwareSettings {
  readonly vmxPath: string | undefined;
  readonly vmrunPath: string;
  readonly hostType: string;
  readonly headless: boolean;
  readonly snapshot: string;
  readonly serverPort: number;
  readonly chromiumPort: number;
  readonly vlcPort: number;
  readonly screen: { readonly width: number; readonly height: number };
  readonly timeouts: Required<VmwareTimeouts>;
  readonly pollIntervalMs: number;
  readonly lockDir: string;
  readonly lockTimeoutMs: number;
  readonly hardStopFallback: boolean;
  readonly logger: ((event: VmwareProviderEvent) => void) | undefined;
}

/** The default directory of the VM lock files. */
export const defaultLockDir = (): string => join(tmpdir(), 'osharm-vmware-locks');

const nonEmpty = (value: string | undefined) =>
  value === undefined || value.trim() === '' ? undefined : value;

/** Fills in the defaults; pure (reads only the given env), never touches the disk. */
export function resolveVmwareSettings(
  settings: VmwareProviderSettings,
  platform: NodeJS.Platform = process.platform,
): ResolvedVmwareSettings {
  const env = settings.env ?? process.env;
  const timeouts = settings.timeouts ?? {};
  return {
    vmxPath: settings.lock?.vmxPath ?? nonEmpty(settings.vmxPath) ?? nonEmpty(env.OSHARM_VMX_PATH),
    vmrunPath: nonEmpty(settings.vmrunPath) ?? nonEmpty(env.OSHARM_VMRUN_PATH) ?? 'vmrun',
    hostType:
      settings.hostType ??
      nonEmpty(env.OSHARM_VMWARE_HOST_TYPE) ??
      (platform === 'darwin' ? 'fusion' : 'ws'),
    headless: settings.headless ?? true,
    snapshot: settings.snapshot ?? 'init_state',
    serverPort: settings.serverPort ?? 5000,
    chromiumPort: settings.chromiumPort ?? 9222,
    vlcPort: settings.vlcPort ?? 8080,
    screen: settings.screen ?? { width: 1920, height: 1080 },
    timeouts: {
      command: timeouts.command ?? 60_000,
      start: timeouts.start ?? 300_000,
      ip: timeouts.ip ?? 300_000,
      serverReady: timeouts.serverReady ?? 300_000,
      serverRequest: timeouts.serverRequest ?? 10_000,
    },
    pollIntervalMs: settings.pollIntervalMs ?? 3000,
    lockDir: nonEmpty(settings.lockDir) ?? nonEmpty(env.OSHARM_VMWARE_LOCK_DIR) ?? defaultLockDir(),
    lockTimeoutMs: settings.lockTimeoutMs ?? 0,
    hardStopFallback: settings.hardStopFallback ?? true,
    logger: settings.logger,
  };
}

/**
 * Checks the values that cannot be checked by type (host type from the env, positive timeouts).
 * @throws {VmProviderError} naming the setting and its env variable.
 */
export function validateVmwareSettings(settings: ResolvedVmwareSettings): void {
  const fail = (message: string) => {
    throw new VmProviderError({ providerId: 'vmware', message });
  };
  if (settings.hostType !== 'ws' && settings.hostType !== 'fusion') {
    fail(
      `invalid VMware host type "${settings.hostType}": use "ws" (Workstation) or "fusion" (setting hostType or env OSHARM_VMWARE_HOST_TYPE)`,
    );
  }
  for (const [name, value] of Object.entries(settings.timeouts)) {
    if (!(Number.isFinite(value) && value > 0)) {
      fail(`invalid timeouts.${name}: ${value} (a positive number of ms)`);
    }
  }
  if (!(Number.isFinite(settings.pollIntervalMs) && settings.pollIntervalMs >= 0)) {
    fail(`invalid pollIntervalMs: ${settings.pollIntervalMs} (a number of ms ≥ 0)`);
  }
  if (!(Number.isFinite(settings.lockTimeoutMs) && settings.lockTimeoutMs >= 0)) {
    fail(`invalid lockTimeoutMs: ${settings.lockTimeoutMs} (a number of ms ≥ 0)`);
  }
  if (settings.snapshot.trim() === '') fail('invalid snapshot: an empty name');
}
