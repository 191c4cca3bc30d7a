import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { GuestEndpoint, ProviderCallOptions, VmProviderV1 } from '@osharm/desktop-env';
import { createGuestClient, VmProviderError } from '@osharm/desktop-env';
import {
  bridgePort,
  closeBridge,
  pinGuestSocket,
  sealHarnessDir,
  tunnelBridge,
} from '@osharm/desktop-env/provider-kit';
import {
  addEgressSink,
  desktopShellSetting,
  readDesktopShell,
  sandboxResolvConf,
} from '@osharm/desktop-guest';
import type { DesktopShell } from '@osharm/desktop-guest';
import {
  containerRunArgs,
  DEFAULT_DESKTOP_IMAGE,
  DESKTOP_UID,
  type ContainerProviderSettings,
} from './container-args';
import { probeSudo, type ContainerSudoMode } from './container-sudo';
import { removeNow, removeOrphans, runEngine } from './engine';
import type { ContainerEngine } from './engine';

export { DEFAULT_DESKTOP_IMAGE, type ContainerProviderSettings } from './container-args';

function providerError(engine: string, message: string, cause?: unknown): VmProviderError {
  return new VmProviderError({ providerId: engine, message, cause, isRetryable: true });
}

interface RunningContainer {
  readonly name: string;
  readonly sudo: ContainerSudoMode;
  readonly shell: DesktopShell;
  readonly endpoint: GuestEndpoint;
  readonly bridges: readonly Server[];
  readonly stateDir: string;
}

const live = new Map<string, Set<string>>(); // engine binary → names of containers to remove on exit
let exitHookInstalled = false;
function track(binary: string, name: string, add: boolean): void {
  const names = live.get(binary) ?? new Set<string>();
  live.set(binary, names);
  if (add) names.add(name);
  else names.delete(name);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const [engineBinary, set] of live) removeNow(engineBinary, [...set]);
    });
  }
}
const swept = new Set<string>();

/**
 * One desktop container (from the osharm desktop image) per environment, through podman's or
 * docker's command line. `revert()` removes the container and starts a fresh one.
 */
export class ContainerProvider implements VmProviderV1 {
  readonly specificationVersion = 'vm-provider-v1' as const;
  readonly providerId: ContainerEngine;
  private readonly settings: ContainerProviderSettings;
  private readonly binary: string;
  private running: RunningContainer | undefined;
  private starting: Promise<GuestEndpoint> | undefined;

  constructor(settings: ContainerProviderSettings = {}) {
    this.settings = settings;
    this.providerId = settings.engine ?? 'podman';
    this.binary = settings.engineBinary ?? this.providerId;
    desktopShellSetting(settings.shell); // a bad shell setting fails here, not at start
  }

  /** Starts a container (or returns the running one's endpoint) once its guest server answers. */
  async start(options: ProviderCallOptions = {}): Promise<GuestEndpoint> {
    if (this.running) return this.running.endpoint;
    this.starting ??= this.launch(options).finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  endpoint(): GuestEndpoint | undefined {
    return this.running?.endpoint;
  }

  /**
   * How `sudo` works in the running container, as probed at start before any agent code ran
   * (undefined when none runs): `in-namespace` when the desktop user is in group sudo and may make
   * a user namespace (the image and the seccomp profile allow it), else `unavailable`.
   */
  sudoMode(): ContainerSudoMode | undefined {
    return this.running?.sudo;
  }

  /**
   * Which shell the running container's desktop has, read at start before any agent code ran
   * (`fallback`: why openbox runs where GNOME Shell was asked for); undefined when none runs.
   */
  desktopShell(): DesktopShell | undefined {
    return this.running?.shell;
  }

  /** Name of the running container, or undefined. */
  containerName(): string | undefined {
    return this.running?.name;
  }

  /** Removes the container and starts a fresh one from the image; `snapshot` is ignored. */
  async revert(
    options: ProviderCallOptions & { readonly snapshot?: string } = {},
  ): Promise<GuestEndpoint> {
    await this.stop();
    return this.start(options);
  }

  /** Removes the container (processes, tmpfs, writable layer); safe when nothing runs. */
  async stop(_options: ProviderCallOptions = {}): Promise<void> {
    if (this.starting) await this.starting.catch(() => undefined);
    const running = this.running;
    this.running = undefined;
    if (!running) return;
    await Promise.all(running.bridges.map(closeBridge));
    await runEngine(this.binary, this.removeArgs(running.name)).catch(() => undefined);
    track(this.binary, running.name, false);
    await rm(running.stateDir, { recursive: true, force: true }).catch(() => undefined);
  }

  /** Podman run by an unprivileged user (rootless): the container's users are subordinate ids. */
  private rootless(): boolean {
    return this.providerId === 'podman' && (process.getuid?.() ?? 0) !== 0;
  }

  /**
   * Rootless podman on a cgroup v1 host ignores `--memory`, `--cpus` and `--pids-limit` (it says
   * so on stderr and runs the container anyway): a desktop without limits is refused.
   */
  private async refuseUnlimited(): Promise<void> {
    const cgroups = (
      await runEngine(this.binary, ['info', '--format', '{{.Host.CgroupsVersion}}']).catch(() => '')
    ).trim();
    if (cgroups === 'v2') return;
    throw new VmProviderError({
      providerId: this.providerId,
      message: `rootless podman cannot apply the desktop's memory, CPU and pids limits on this host (cgroups ${cgroups || 'unknown'}; podman ignores them on cgroup v1): run the container provider as root, or on a host with cgroup v2`,
      isRetryable: false,
    });
  }

  /** `rm` at once: podman waits for its stop timeout unless `--time 0`; docker has no `--time` (its `--force` kills). */
  private removeArgs(name: string): string[] {
    return this.providerId === 'podman'
      ? ['rm', '--force', '--time', '0', name]
      : ['rm', '--force', name];
  }

  /** The container's log (Xvfb, D-Bus, guest server), for diagnostics. */
  async logs(): Promise<string> {
    if (!this.running) return '';
    return runEngine(this.binary, ['logs', this.running.name], { withStderr: true }).catch(
      () => '',
    );
  }

  /** The `run` arguments (without the engine binary) for a container `name`. */
  runArgs(name: string, harnessDir: string): string[] {
    return containerRunArgs(this.providerId, this.settings, {
      name,
      harnessDir,
      rootless: this.rootless(),
      resolvConf: join(dirname(harnessDir), 'resolv.conf'),
    });
  }

  private async launch(options: ProviderCallOptions): Promise<GuestEndpoint> {
    const timeoutMs = options.timeoutMs ?? this.settings.startTimeoutMs ?? 60_000;
    const deadline = Date.now() + timeoutMs;
    const image = this.settings.image ?? DEFAULT_DESKTOP_IMAGE;
    if (this.rootless()) await this.refuseUnlimited();
    if (!swept.has(this.binary)) {
      swept.add(this.binary);
      await removeOrphans(this.binary).catch(() => undefined);
    }
    try {
      await runEngine(this.binary, ['image', 'inspect', '--format', '{{.Id}}', image]);
    } catch (error) {
      throw providerError(
        this.providerId,
        `The desktop image ${image} is not in ${this.binary}'s store: build it with scripts/build-desktop-image.sh (or from the Containerfile)`,
        error,
      );
    }
    const name = `osharm-desktop-${randomBytes(6).toString('hex')}`;
    const token = randomBytes(32).toString('hex');
    // <workDir>/<name>/{harness,control}: the container sees only harness/ (its socket), the
    // harness connects only through the pinned link in control/.
    // Per user: root's directory is 0700, another account could not make its own in it.
    const uid = process.getuid?.() ?? 0;
    const workDir =
      this.settings.workDir ??
      join(tmpdir(), uid === 0 ? 'osharm-vm-container' : `osharm-vm-container-${uid}`);
    const stateDir = join(workDir, name);
    const harnessDir = join(stateDir, 'harness');
    const controlDir = join(stateDir, 'control');
    await mkdir(workDir, { recursive: true, mode: 0o700 });
    await mkdir(harnessDir, { recursive: true, mode: 0o700 });
    await mkdir(controlDir, { mode: 0o700 });
    await chmod(stateDir, 0o700);
    if (!this.rootless()) await chown(harnessDir, DESKTOP_UID, DESKTOP_UID);
    await writeFile(join(stateDir, 'resolv.conf'), sandboxResolvConf(), { mode: 0o644 });
    track(this.binary, name, true);
    const bridges: Server[] = [];
    try {
      await runEngine(this.binary, this.runArgs(name, harnessDir), {
        env: { ...process.env, OSHARM_GUEST_TOKEN: token },
        abortSignal: options.abortSignal,
      });
      if (!this.settings.network) await this.addSink(name);
      const screen = this.settings.screen ?? { width: 1920, height: 1080 };
      const socketPath = await this.waitForSocket(
        harnessDir,
        controlDir,
        name,
        deadline,
        options.abortSignal,
      );
      const base: GuestEndpoint = {
        baseUrl: 'http://localhost',
        host: 'localhost',
        serverPort: 0,
        socketPath,
        token,
        screen,
      };
      await this.waitForGuest(
        base,
        name,
        Math.max(1000, deadline - Date.now()),
        options.abortSignal,
      );
      await sealHarnessDir(harnessDir);
      const sudo = await probeSudo(base);
      const shell = await readDesktopShell(base, desktopShellSetting(this.settings.shell));
      const channel = { socketPath, token };
      bridges.push(
        await tunnelBridge({ socketPath: channel.socketPath }, channel.token, 9222),
        await tunnelBridge({ socketPath: channel.socketPath }, channel.token, 8080),
      );
      const endpoint: GuestEndpoint = {
        ...base,
        chromiumUrl: `http://127.0.0.1:${bridgePort(bridges[0]!)}`,
        vlcUrl: `http://127.0.0.1:${bridgePort(bridges[1]!)}`,
      };
      this.running = { name, sudo, shell, endpoint, bridges, stateDir };
      return endpoint;
    } catch (error) {
      await Promise.all(bridges.map(closeBridge));
      const logs = await runEngine(this.binary, ['logs', name], { withStderr: true }).catch(
        () => '',
      );
      await runEngine(this.binary, this.removeArgs(name)).catch(() => undefined);
      track(this.binary, name, false);
      await rm(stateDir, { recursive: true, force: true }).catch(() => undefined);
      if (VmProviderError.isInstance(error)) throw error;
      const tail = logs.trim().split('\n').slice(-5).join(' | ');
      throw providerError(
        this.providerId,
        `The desktop container did not start: ${(error as Error).message}${tail ? ` (log: ${tail})` : ''}`,
        error,
      );
    }
  }

  /**
   * Without a network: the egress sink in the container's own network namespace (@osharm/desktop-guest's
   * addEgressSink, joined through the container's first process), so that connections to literal
   * addresses wait and are recorded. Failing, the desktop still starts; its harm record says so.
   */
  private async addSink(name: string): Promise<void> {
    try {
      const pid = Number(
        (await runEngine(this.binary, ['inspect', '--format', '{{.State.Pid}}', name])).trim(),
      );
      if (!Number.isInteger(pid) || pid < 2) throw new Error(`no pid for ${name}`);
      await addEgressSink(pid);
    } catch (error) {
      console.error(`osharm vm-container: ${(error as Error).message}`);
    }
  }

  private async running_(name: string): Promise<boolean> {
    const state = await runEngine(this.binary, [
      'inspect',
      '--format',
      '{{.State.Running}}',
      name,
    ]).catch(() => 'false');
    return state.trim() === 'true';
  }

  /** Waits for the guest socket and pins it (desktop-env's provider kit) before any request. */
  private async waitForSocket(
    harnessDir: string,
    controlDir: string,
    name: string,
    deadline: number,
    abortSignal: AbortSignal | undefined,
  ): Promise<string> {
    for (;;) {
      abortSignal?.throwIfAborted();
      if (existsSync(join(harnessDir, 'guest.sock'))) return pinGuestSocket(harnessDir, controlDir);
      if (!(await this.running_(name))) throw new Error('the container exited during start-up');
      if (Date.now() > deadline)
        throw new Error('its guest server did not create its socket in time');
      await new Promise(resolve => setTimeout(resolve, 50));
    }
  }

  private async waitForGuest(
    endpoint: GuestEndpoint,
    name: string,
    timeoutMs: number,
    abortSignal: AbortSignal | undefined,
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const client = createGuestClient(endpoint, { maxRetries: 0 });
    try {
      for (;;) {
        abortSignal?.throwIfAborted();
        try {
          await client.platform({ timeoutMs: 2000 });
          return;
        } catch {
          // not up yet
        }
        if (!(await this.running_(name))) throw new Error('the container exited during start-up');
        if (Date.now() > deadline) {
          throw new Error(
            `its guest server did not answer within ${Math.round(timeoutMs / 1000)} s`,
          );
        }
        await new Promise(resolve => setTimeout(resolve, 100));
      }
    } finally {
      await client.close();
    }
  }
}

/**
 * Creates the container provider. No I/O happens until `start()`.
 * @example
 * const provider = createContainerProvider({ engine: 'podman', memoryMb: 4096 });
 * const endpoint = await provider.start(); // { socketPath, token, chromiumUrl, vlcUrl, … }
 */
export function createContainerProvider(
  settings: ContainerProviderSettings = {},
): ContainerProvider {
  return new ContainerProvider(settings);
}
