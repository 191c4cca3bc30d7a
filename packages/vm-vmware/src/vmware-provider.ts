import { realpathSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  VmProviderError,
  type GuestEndpoint,
  type ProviderCallOptions,
  type VmProviderV1,
} from '@osharm/desktop-env';
import { quote, runCall, waitFor, type CallScope } from './vmware-call';
import { parseGuestIpAddress, urlHost } from './vmware-guest-ip';
import {
  resolveVmwareSettings,
  validateVmwareSettings,
  type ResolvedVmwareSettings,
  type VmwareProviderSettings,
} from './vmware-provider-settings';
import { acquireVmLock, type VmwareVmLock } from './vmware-vm-lock';
import {
  describeVmrunResult,
  formatSeconds,
  parseVmrunList,
  runVmrun,
  type VmrunResult,
} from './vmware-vmrun';

/** Whether two .vmx paths name the same file (case-insensitive on macOS and Windows). */
function samePath(listed: string, vmxPath: string): boolean {
  const caseInsensitive = process.platform === 'darwin' || process.platform === 'win32';
  const equal = (a: string, b: string) =>
    caseInsensitive ? a.toLowerCase() === b.toLowerCase() : a === b;
  const absolute = resolve(listed);
  if (equal(absolute, vmxPath)) return true;
  try {
    return equal(realpathSync(absolute), vmxPath);
  } catch {
    return false;
  }
}

function describeFetchError(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError') return 'no answer before the request timeout';
    const cause = error.cause as { code?: string; message?: string } | undefined;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}

/**
 * A VMware Workstation / Fusion VM driven through `vmrun`: the {@link VmProviderV1} of
 * `@osharm/vm-vmware`.
 *
 * Every vmrun call has a timeout and follows the call's AbortSignal; every wait (VM running, guest
 * IP, guest server) is bounded and ends in a {@link VmProviderError} that names what it waited for,
 * the .vmx, how long, and the last answer. `start()` takes an exclusive lock on the VM, so two
 * processes never drive the same VM; `stop()` releases it. Calls on one provider must not overlap.
 */
export class VmwareProvider implements VmProviderV1 {
  readonly specificationVersion = 'vm-provider-v1' as const;
  readonly providerId = 'vmware';
  /** The settings with their defaults filled in. */
  readonly settings: ResolvedVmwareSettings;
  private lock: VmwareVmLock | undefined;
  private current: GuestEndpoint | undefined;

  /** No I/O: the VM file and vmrun are first checked by a call. */
  constructor(settings: VmwareProviderSettings = {}) {
    this.settings = resolveVmwareSettings(settings);
    this.lock = settings.lock;
  }

  /** The .vmx as an absolute path (symlinks not resolved), or undefined when none is configured. */
  get vmxPath(): string | undefined {
    return this.settings.vmxPath === undefined ? undefined : resolve(this.settings.vmxPath);
  }

  /** The lock this provider holds on its VM, if any (taken by `start()`, released by `stop()`). */
  get heldLock(): VmwareVmLock | undefined {
    return this.lock && !this.lock.released ? this.lock : undefined;
  }

  /** The endpoint of the VM once `start()` or `revert()` succeeded; undefined after `stop()`. */
  endpoint(): GuestEndpoint | undefined {
    return this.current;
  }

  /**
   * Locks the VM, starts it unless `vmrun list` already lists it, and waits for a valid guest IP
   * and for the guest server's `/screenshot` to answer 200. Each wait is bounded by its timeout
   * (`timeouts.start`, `.ip`, `.serverReady`); `options.timeoutMs` bounds the whole call (default:
   * no bound beyond the waits'). The lock stays held when the start fails; `stop()` releases it.
   * @throws {VmProviderError} at once when the .vmx or vmrun is missing or another live process
   *   holds the VM; when a wait runs out (retryable); when aborted.
   */
  async start(options: ProviderCallOptions = {}): Promise<GuestEndpoint> {
    return runCall(this.vmxPath, 'start', options, async scope => {
      const vmxPath = await this.prepare();
      await this.ensureLock(vmxPath, scope);
      return this.boot(vmxPath, scope);
    });
  }

  /**
   * Reverts the VM to a snapshot (`vmrun revertToSnapshot`) and starts it again like `start()`.
   * The guest IP may change.
   * @throws {VmProviderError} as `start()`, and when vmrun cannot revert (e.g. no such snapshot).
   */
  async revert(
    options: ProviderCallOptions & { readonly snapshot?: string } = {},
  ): Promise<GuestEndpoint> {
    return runCall(this.vmxPath, 'revert', options, async scope => {
      const vmxPath = await this.prepare();
      const snapshot = options.snapshot ?? this.settings.snapshot;
      await this.ensureLock(vmxPath, scope);
      this.current = undefined;
      scope.phase = `reverting to snapshot "${snapshot}"`;
      const result = await this.vmrun(['revertToSnapshot', vmxPath, snapshot], scope);
      this.assertSucceeded(result, `revert VM ${vmxPath} to snapshot "${snapshot}"`);
      return this.boot(vmxPath, scope);
    });
  }

  /**
   * Stops the VM (`vmrun stop`, then `vmrun stop … hard` when that fails or times out and
   * `hardStopFallback` is on) and releases the lock. Does nothing but release the lock when the VM
   * is not running.
   * @throws {VmProviderError} when another live process holds the VM (its VM is not stopped), when
   *   the VM is still listed as running after the stops, or when vmrun is missing.
   */
  async stop(options: ProviderCallOptions = {}): Promise<void> {
    return runCall(this.vmxPath, 'stop', options, async scope => {
      validateVmwareSettings(this.settings);
      const vmxPath = this.vmxPath;
      if (vmxPath === undefined || !(await stat(vmxPath).catch(() => undefined))) {
        this.current = undefined;
        await this.releaseLock();
        return;
      }
      const canonical = await realpath(vmxPath);
      if (!this.heldLock) await this.ensureLock(canonical, scope, 0);
      try {
        scope.phase = 'stopping the VM';
        const list = await this.vmrun(['list'], scope);
        if (
          list.exitCode === 0 &&
          !parseVmrunList(list.stdout).some(line => samePath(line, canonical))
        ) {
          return;
        }
        const soft = await this.vmrun(['stop', canonical], scope);
        if (soft.exitCode === 0) return;
        if (!this.settings.hardStopFallback) {
          this.assertSucceeded(soft, `stop VM ${canonical}`);
          return;
        }
        const hard = await this.vmrun(['stop', canonical, 'hard'], scope);
        if (hard.exitCode === 0) return;
        const after = await this.vmrun(['list'], scope);
        if (
          after.exitCode === 0 &&
          !parseVmrunList(after.stdout).some(line => samePath(line, canonical))
        ) {
          return;
        }
        this.assertSucceeded(
          hard,
          `stop VM ${canonical} (soft stop: ${quote(describeVmrunResult(soft))})`,
        );
      } finally {
        this.current = undefined;
        await this.releaseLock();
      }
    });
  }

  /**
   * Saves the VM's current state as a snapshot (`vmrun snapshot <vmx> <name>`). Takes the VM's lock
   * for the call when the provider does not hold it.
   * @throws {VmProviderError} when vmrun fails, or another live process holds the VM.
   */
  async saveSnapshot(options: ProviderCallOptions & { readonly name: string }): Promise<void> {
    return runCall(this.vmxPath, 'saveSnapshot', options, async scope => {
      const vmxPath = await this.prepare();
      if (options.name.trim() === '') {
        throw new VmProviderError({
          providerId: 'vmware',
          message: 'saveSnapshot: an empty snapshot name',
        });
      }
      const temporary = !this.heldLock;
      if (temporary) await this.ensureLock(vmxPath, scope, 0);
      try {
        scope.phase = `saving snapshot "${options.name}"`;
        const result = await this.vmrun(['snapshot', vmxPath, options.name], scope);
        this.assertSucceeded(result, `save snapshot "${options.name}" of VM ${vmxPath}`);
      } finally {
        if (temporary) await this.releaseLock();
      }
    });
  }

  /**
   * The running VMs, as vmrun lists them (absolute .vmx paths). Needs no VM file setting.
   * @throws {VmProviderError} when vmrun is missing or fails.
   */
  async list(options: ProviderCallOptions = {}): Promise<string[]> {
    return runCall(this.vmxPath, 'list', options, async scope => {
      validateVmwareSettings(this.settings);
      const result = await this.vmrun(['list'], scope);
      this.assertSucceeded(result, 'list the running VMs');
      return parseVmrunList(result.stdout).map(line => resolve(line));
    });
  }

  /** Checks the settings and the VM file; returns the .vmx's real absolute path. */
  private async prepare(): Promise<string> {
    validateVmwareSettings(this.settings);
    const vmxPath = this.vmxPath;
    if (vmxPath === undefined) {
      throw new VmProviderError({
        providerId: 'vmware',
        message: "no VM file: set the vmxPath setting or env OSHARM_VMX_PATH to the VM's .vmx file",
      });
    }
    const info = await stat(vmxPath).catch(() => undefined);
    if (!info || !info.isFile()) {
      throw new VmProviderError({
        providerId: 'vmware',
        message: `VM file ${vmxPath} ${info ? 'is not a file' : 'does not exist'} (setting vmxPath or env OSHARM_VMX_PATH; it must name the VM's .vmx file)`,
      });
    }
    return realpath(vmxPath);
  }

  /** Takes the VM's lock unless this provider holds it already. */
  private async ensureLock(
    vmxPath: string,
    scope: CallScope,
    timeoutMs = this.settings.lockTimeoutMs,
  ) {
    if (this.heldLock) return;
    scope.phase = 'waiting for the VM lock';
    this.lock = await acquireVmLock({
      vmxPath,
      lockDir: this.settings.lockDir,
      timeoutMs,
      pollIntervalMs: this.settings.pollIntervalMs,
      abortSignal: scope.signal,
      logger: this.settings.logger,
    });
  }

  private async releaseLock(): Promise<void> {
    const lock = this.lock;
    this.lock = undefined;
    await lock?.release();
  }

  /** One vmrun call bounded by the command timeout (and `limitMs` when shorter). */
  private vmrun(
    args: readonly string[],
    scope: CallScope,
    limitMs = Infinity,
  ): Promise<VmrunResult> {
    return runVmrun({
      vmrunPath: this.settings.vmrunPath,
      hostType: this.settings.hostType,
      args,
      timeoutMs: Math.min(this.settings.timeouts.command, limitMs),
      abortSignal: scope.signal,
      logger: this.settings.logger,
    });
  }

  /** The answer of a failed vmrun call, marked when the wait's deadline (not the command timeout) killed it. */
  private answer(result: VmrunResult, limitMs: number): { lastAnswer: string; cutShort: boolean } {
    return {
      lastAnswer: describeVmrunResult(result),
      cutShort: result.timedOut && limitMs < this.settings.timeouts.command,
    };
  }

  private assertSucceeded(result: VmrunResult, what: string): void {
    if (result.exitCode === 0) return;
    throw new VmProviderError({
      providerId: 'vmware',
      isRetryable: result.timedOut,
      message: result.timedOut
        ? `could not ${what}: vmrun ${result.argv[3]} did not finish within ${formatSeconds(result.durationMs)} (timeouts.command)`
        : `could not ${what}: ${quote(describeVmrunResult(result))}`,
    });
  }

  /** Start if needed, then the IP and guest-server waits; sets and returns the endpoint. */
  private async boot(vmxPath: string, scope: CallScope): Promise<GuestEndpoint> {
    const { timeouts, headless, serverPort } = this.settings;

    await waitFor<boolean>(
      this.settings,
      scope,
      'vm-running',
      vmxPath,
      timeouts.start,
      async remaining => {
        const list = await this.vmrun(['list'], scope, remaining);
        if (list.exitCode !== 0) return this.answer(list, remaining);
        if (parseVmrunList(list.stdout).some(line => samePath(line, vmxPath)))
          return { value: true };
        const left = Math.max(1, remaining - list.durationMs);
        const started = await this.vmrun(
          ['start', vmxPath, ...(headless ? ['nogui'] : [])],
          scope,
          left,
        );
        return started.exitCode === 0
          ? {
              lastAnswer: `vmrun start succeeded but vmrun list did not list the VM: ${describeVmrunResult(list)}`,
            }
          : this.answer(started, left);
      },
    );

    let ip = await waitFor<string>(
      this.settings,
      scope,
      'guest-ip',
      vmxPath,
      timeouts.ip,
      async remaining => {
        const result = await this.vmrun(['getGuestIPAddress', vmxPath, '-wait'], scope, remaining);
        const address = parseGuestIpAddress(result);
        return address === undefined ? this.answer(result, remaining) : { value: address };
      },
    );

    ip = await waitFor<string>(
      this.settings,
      scope,
      'guest-server',
      vmxPath,
      timeouts.serverReady,
      async remaining => {
        const url = `http://${urlHost(ip)}:${serverPort}/screenshot`;
        const startedAt = Date.now();
        let lastAnswer: string;
        let cutShort = false;
        try {
          const response = await fetch(url, {
            signal: AbortSignal.any([
              scope.signal,
              AbortSignal.timeout(Math.min(timeouts.serverRequest, remaining)),
            ]),
          });
          // Only the status matters; do not download the screenshot.
          await response.body?.cancel().catch(() => undefined);
          if (response.status === 200) return { value: ip };
          lastAnswer = `HTTP ${response.status} from ${url}`;
        } catch (error) {
          if (scope.signal.aborted) throw error;
          lastAnswer = `${url}: ${describeFetchError(error)}`;
          cutShort = (error as Error).name === 'TimeoutError' && remaining < timeouts.serverRequest;
        }
        // The guest may have got another address meanwhile: re-read it (as upstream U26 does).
        const left = remaining - (Date.now() - startedAt);
        if (left > 0) {
          const reread = await this.vmrun(['getGuestIPAddress', vmxPath, '-wait'], scope, left);
          const address = parseGuestIpAddress(reread);
          if (address !== undefined && address !== ip) {
            lastAnswer += ` (guest IP changed from ${ip} to ${address})`;
            ip = address;
          }
        }
        return { lastAnswer, cutShort };
      },
    );

    const host = urlHost(ip);
    const endpoint: GuestEndpoint = {
      baseUrl: `http://${host}:${serverPort}`,
      host: ip,
      serverPort,
      chromiumUrl: `http://${host}:${this.settings.chromiumPort}`,
      vlcUrl: `http://${host}:${this.settings.vlcPort}`,
      screen: this.settings.screen,
    };
    this.current = endpoint;
    return endpoint;
  }
}

/**
 * Creates the VMware provider. No I/O happens here: the .vmx and vmrun are checked by the first
 * call, which fails at once when either is missing.
 */
export function createVmwareProvider(settings: VmwareProviderSettings = {}): VmwareProvider {
  return new VmwareProvider(settings);
}
