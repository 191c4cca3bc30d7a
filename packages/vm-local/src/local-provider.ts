import type { GuestEndpoint, ProviderCallOptions, VmProviderV1 } from '@osharm/desktop-env';
import { VmProviderError } from '@osharm/desktop-env';
import { checkLocalDesktopRequirements, defaultLocalApps } from './local-requirements';
import type { LocalApp } from './local-requirements';
import { warmSpareSetting } from './local-capacity';
import { defaultWorkDir, startSandbox } from './local-sandbox';
import { defaultResourceLimits, type CpuWeight } from './sandbox-limits';
import { desktopShellSetting, guestRequest, recordingSettings } from '@osharm/desktop-guest';
import type { DesktopShell, DesktopShellName, RecordingSettings } from '@osharm/desktop-guest';
import type { RunningSandbox } from './local-sandbox';
import type { SudoAttempt } from './sandbox-sudo-log';
import type { SystemServiceCall } from './sandbox-system-log';

/** Settings of {@link createLocalProvider}. Every field is optional. */
export interface LocalProviderSettings {
  /** Screen size of the desktop. @default { width: 1920, height: 1080 } */
  readonly screen?: { readonly width: number; readonly height: number };
  /**
   * Applications that must be installed on the host; `start()` fails naming the Debian packages
   * when one is missing. Everything else installed on the host is available too (Thunderbird,
   * GIMP, VLC, Impress when present).
   * @default ['terminal', 'text-editor', 'writer', 'calc', 'chromium']
   */
  readonly apps?: readonly LocalApp[];
  /** Extra environment variables inside the sandbox. @default {} */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * How long `start()` / `revert()` wait for the guest server, in ms; GNOME Shell may take 75 % of
   * it before the desktop gives up on it and runs openbox (on a loaded machine it needs tens of
   * seconds). @default 120000
   */
  readonly startTimeoutMs?: number;
  /** Time budget of one `/accessibility` walk in ms (a partial tree is returned past it). @default 10000 */
  readonly accessibilityDeadlineMs?: number;
  /**
   * How `/start_recording` encodes the screen; unset fields keep the defaults (10 fps, x264
   * `ultrafast` + `zerolatency`, 2 threads, crf 28, yuv420p). Checked when the provider is created.
   */
  readonly recording?: Partial<RecordingSettings>;
  /**
   * When the harness runs as root, the unprivileged host uid (and gid) bwrap runs as, so that the
   * sandbox user is not host root even as a mapped uid. `null` keeps root (still uid 1000 without
   * capabilities inside). Ignored when not root.
   * @default 65534 (nobody)
   */
  readonly hostUid?: number | null;
  /** Host directory for per-sandbox state (socket, sudo log). @default `${os.tmpdir()}/osharm-vm-local` */
  readonly workDir?: string;
  /**
   * Size cap of each of the sandbox's writable tmpfs mounts (/home, /tmp, /var/tmp, /run, /dev/shm),
   * in MiB. Their pages also count against `memoryMb`. @default 4096
   */
  readonly tmpfsSizeMb?: number;
  /**
   * Memory of the whole desktop (every process inside plus its tmpfs pages), in MiB; past it the
   * kernel's OOM killer ends the largest process inside. Enforced by a cgroup (see the docs).
   * @default 4096
   */
  readonly memoryMb?: number;
  /** Processes and threads inside the desktop; forks past it fail. @default 512 */
  readonly pids?: number;
  /** CPU time of the desktop, in cores. @default the host's cores minus half a core (at least 0.5) */
  readonly cpus?: number;
  /**
   * Also serve the guest server on the host's 127.0.0.1 (`true` = a free port, or a port number),
   * e.g. for poking at a desktop with curl; the endpoint's `baseUrl` / `serverPort` then name it.
   * The token is still required. By default the desktop is reachable only through its unix socket.
   * @default false
   */
  readonly exposeTcp?: boolean | number;
  /**
   * Give the desktop a network: user-mode networking by slirp4netns (Debian's package; no host
   * privilege), with a route out, DNS at 10.0.2.3 and the host's loopback services unreachable.
   * @default false (no network: only the desktop's own loopback)
   */
  readonly network?: boolean;
  /**
   * The desktop's shell: `gnome-shell` (top bar, dock and banners as upstream's VM has them) or
   * `openbox` (lighter; no dock, no top bar). When GNOME Shell cannot start the desktop runs openbox,
   * says so on its log and `desktopShell()` gives the reason (the runner puts it in fidelity.json).
   * Checked when the provider is created.
   * @default env `OSHARM_DESKTOP_SHELL`, else 'gnome-shell'
   */
  readonly shell?: DesktopShellName;
  /**
   * Keep a warm spare: after each `revert()` a second desktop, sandboxed as every other, starts in
   * the background; the next `revert()` swaps to it (once it answers) instead of starting one then.
   * A spare is used by one run only, never shared; `stop()` ends it too. It costs a second
   * desktop's memory while it waits (`localDesktopCapacity()` counts it) and its start's CPU while
   * the current run proceeds. `start()` alone starts none.
   * @default true, unless the environment's `OSHARM_WARM_SPARE` is `0`
   */
  readonly warmSpare?: boolean;
  /** The bubblewrap binary. @default 'bwrap' (env `OSHARM_BWRAP`) */
  readonly bwrapPath?: string;
  /** Receives the sandbox's log lines (Xvfb, D-Bus, guest server). @default dropped */
  readonly onLog?: (line: string) => void;
}

function providerError(message: string, cause?: unknown, isRetryable = false): VmProviderError {
  return new VmProviderError({ providerId: 'local', message, cause, isRetryable });
}

/**
 * The embedded default provider: one sandboxed desktop on this host (bubblewrap + Xvfb + GNOME
 * Shell or openbox + AT-SPI + the guest server), reached over a unix socket with a per-sandbox token. `revert()`
 * throws the sandbox away and takes a clean one (the warm spare, or one started then).
 */
export class LocalProvider implements VmProviderV1 {
  readonly specificationVersion = 'vm-provider-v1' as const;
  readonly providerId = 'local';
  private readonly settings: LocalProviderSettings;
  private sandbox: RunningSandbox | undefined;
  private starting: Promise<GuestEndpoint> | undefined;
  private spare: WarmSpare | undefined;

  private readonly recording: RecordingSettings;
  private readonly shell: DesktopShellName;

  /** @throws {Error} when `recording` or `shell` (or `OSHARM_DESKTOP_SHELL`) is invalid. */
  constructor(settings: LocalProviderSettings = {}) {
    this.settings = settings;
    this.recording = recordingSettings(settings.recording);
    this.shell = desktopShellSetting(settings.shell);
  }

  /**
   * Starts the desktop (or returns the running one's endpoint) once its guest server answers.
   * @throws {VmProviderError} when requirements are missing, the sandbox dies during start-up, or
   *   it does not answer within `timeoutMs` (default `startTimeoutMs`, 120 s).
   */
  async start(options: ProviderCallOptions = {}): Promise<GuestEndpoint> {
    if (this.sandbox && !this.sandbox.exited) return this.sandbox.endpoint;
    if (this.starting) return this.starting;
    this.starting = this.launch(options).finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** The running desktop's endpoint, or undefined. */
  endpoint(): GuestEndpoint | undefined {
    return this.sandbox && !this.sandbox.exited ? this.sandbox.endpoint : undefined;
  }

  /**
   * Throws the sandbox away (every process and its tmpfs) and starts a fresh one, or swaps to the
   * warm spare started after the previous `revert()` (see `warmSpare`), then starts the next spare.
   * The endpoint changes (new socket, new token). `snapshot` is ignored: every local desktop starts
   * clean.
   * @throws {VmProviderError} as `start()`.
   */
  async revert(
    options: ProviderCallOptions & { readonly snapshot?: string } = {},
  ): Promise<GuestEndpoint> {
    if (this.starting) await this.starting.catch(() => undefined);
    const used = this.sandbox;
    this.sandbox = undefined;
    const spare = this.spare;
    this.spare = undefined;
    // The used desktop goes (every process killed at once) while the spare is taken over; its
    // end is complete before revert() returns.
    const gone = used?.destroy();
    try {
      const taken = spare && (await this.takeSpare(spare, options.abortSignal));
      if (taken) {
        this.sandbox = taken;
        if (taken.shell.fallback !== null) warnShellFallback(taken.shell.fallback);
      }
    } finally {
      await gone;
    }
    const endpoint = this.sandbox ? this.sandbox.endpoint : await this.start(options);
    if (warmSpareSetting(this.settings.warmSpare)) this.spare = this.startSpare();
    return endpoint;
  }

  /** Kills the sandbox (and the warm spare) and removes their host-side state; safe to call when nothing runs. */
  async stop(_options: ProviderCallOptions = {}): Promise<void> {
    if (this.starting) await this.starting.catch(() => undefined);
    const sandbox = this.sandbox;
    this.sandbox = undefined;
    const spare = this.spare;
    this.spare = undefined;
    spare?.abort.abort();
    await Promise.all([
      sandbox?.destroy(),
      spare?.sandbox.then(
        started => started.destroy(),
        () => undefined,
      ),
    ]);
  }

  /**
   * The warm spare: `none` (none kept: `warmSpare` off, or no `revert()` yet), `starting`,
   * `ready` (the next `revert()` swaps to it) or `failed` (the next `revert()` starts a desktop
   * then, and says why on the log).
   */
  spareStatus(): 'none' | 'starting' | 'ready' | 'failed' {
    return this.spare?.status ?? 'none';
  }

  /**
   * The `sudo` / `su` invocations made inside the current sandbox since it started, each with its
   * outcome (`granted`: it ran as root of the desktop's nested user namespace; see docs "sudo").
   * Empty when no sandbox runs. Read this before `revert()`, which starts a new, empty record.
   * @throws {Error} when the desktop has ended by itself (the record lived inside it).
   */
  async sudoAttempts(): Promise<SudoAttempt[]> {
    return this.sandbox ? this.sandbox.sudoAttempts() : [];
  }

  /**
   * What the desktop's system services were asked to do since it started: polkit decisions, the
   * account tools accounts-daemon ran (GNOME Settings' Users panel), the UDisks2 stand-in's calls
   * (GNOME Disks) — docs "GNOME Settings and Disks". Empty when no sandbox runs; read before
   * `revert()`.
   * @throws {Error} when the desktop has ended by itself (the record lived inside it).
   */
  async systemCalls(): Promise<SystemServiceCall[]> {
    return this.sandbox ? this.sandbox.systemCalls() : [];
  }

  /** The last 64 KiB the sandbox printed (Xvfb, D-Bus, guest server), for diagnostics. */
  logTail(): string {
    return this.sandbox?.logTail() ?? '';
  }

  /**
   * Which shell the running desktop has (`fallback` says why it is openbox when GNOME Shell was
   * asked for); undefined when no desktop runs.
   */
  desktopShell(): DesktopShell | undefined {
    return this.sandbox?.shell;
  }

  /** PID of the outer bwrap process of the running sandbox. */
  pid(): number | undefined {
    return this.sandbox?.pid;
  }

  private async launch(options: ProviderCallOptions): Promise<GuestEndpoint> {
    this.sandbox = await this.startOne(options);
    const { fallback } = this.sandbox.shell;
    if (fallback !== null) warnShellFallback(fallback);
    return this.sandbox.endpoint;
  }

  private startSpare(): WarmSpare {
    const abort = new AbortController();
    const spare: WarmSpare = {
      abort,
      status: 'starting',
      // Its first screenshot and accessibility walk start the guest server's desktop helpers:
      // done ahead too, so that the run's first observation does not wait for them.
      // At an eighth of a desktop's CPU weight: its start yields the cores to the run beside it.
      sandbox: this.startOne({ abortSignal: abort.signal }, 'background').then(async started => {
        for (const path of ['/screenshot', '/accessibility'])
          await guestRequest(started.endpoint, path, { timeoutMs: 60_000 }).catch(() => undefined);
        return started;
      }),
    };
    spare.sandbox.then(
      () => (spare.status = 'ready'),
      () => (spare.status = 'failed'),
    );
    return spare;
  }

  /**
   * The spare once it answers (waiting for the rest of its start), or undefined when it failed or
   * died meanwhile (said on the log; the caller then starts a desktop).
   * @throws {VmProviderError} when aborted (the spare is ended).
   */
  private async takeSpare(
    spare: WarmSpare,
    abortSignal: AbortSignal | undefined,
  ): Promise<RunningSandbox | undefined> {
    const log = (line: string) => this.settings.onLog?.(`osharm vm-local: ${line}`);
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<'aborted'>(resolve => {
      onAbort = () => resolve('aborted');
      if (abortSignal?.aborted) onAbort();
      else abortSignal?.addEventListener('abort', onAbort, { once: true });
    });
    const outcome = await Promise.race([spare.sandbox.catch((error: Error) => error), aborted]);
    if (onAbort) abortSignal?.removeEventListener('abort', onAbort);
    if (outcome === 'aborted') {
      spare.abort.abort();
      void spare.sandbox.then(
        started => started.destroy(),
        () => undefined,
      );
      throw providerError('start aborted');
    }
    if (outcome instanceof Error) {
      log(`the warm spare did not start (${outcome.message}); starting a desktop now`);
      return undefined;
    }
    const answer = outcome.exited
      ? undefined
      : await guestRequest(outcome.endpoint, '/platform', { timeoutMs: 5_000 }).catch(
          () => undefined,
        );
    if (answer?.status !== 200) {
      log('the warm spare stopped answering; starting a desktop now');
      await outcome.destroy();
      return undefined;
    }
    await outcome.setCpuWeight('normal');
    return outcome;
  }

  private async startOne(
    options: ProviderCallOptions,
    cpuWeight: CpuWeight = 'normal',
  ): Promise<RunningSandbox> {
    const requirements = checkLocalDesktopRequirements({
      apps: this.settings.apps ?? defaultLocalApps,
    });
    if (!requirements.ok) {
      throw providerError(
        `The local desktop needs ${requirements.missing.map(entry => entry.debianPackage).join(', ')}: ${requirements.installCommand}`,
      );
    }
    const timeoutMs = options.timeoutMs ?? this.settings.startTimeoutMs ?? 120_000;
    try {
      return await startSandbox({
        screen: this.settings.screen ?? { width: 1920, height: 1080 },
        env: this.settings.env ?? {},
        startTimeoutMs: timeoutMs,
        accessibilityDeadlineMs: this.settings.accessibilityDeadlineMs ?? 10_000,
        recording: this.recording,
        hostUid: this.settings.hostUid === undefined ? 65534 : this.settings.hostUid,
        workDir: this.settings.workDir ?? defaultWorkDir(),
        tmpfsSizeMb: this.settings.tmpfsSizeMb ?? 4096,
        limits: {
          memoryMb: this.settings.memoryMb ?? defaultResourceLimits().memoryMb,
          pids: this.settings.pids ?? defaultResourceLimits().pids,
          cpus: this.settings.cpus ?? defaultResourceLimits().cpus,
        },
        bwrap: this.settings.bwrapPath ?? process.env.OSHARM_BWRAP ?? 'bwrap',
        tcpPort:
          this.settings.exposeTcp === true
            ? 0
            : typeof this.settings.exposeTcp === 'number'
              ? this.settings.exposeTcp
              : undefined,
        network: this.settings.network === true,
        shell: this.shell,
        cpuWeight,
        onLog: this.settings.onLog,
        abortSignal: options.abortSignal,
      });
    } catch (error) {
      throw providerError(
        `The local desktop did not start: ${(error as Error).message}`,
        error,
        true,
      );
    }
  }
}

/** A desktop started ahead for the next revert(). */
interface WarmSpare {
  readonly sandbox: Promise<RunningSandbox>;
  readonly abort: AbortController;
  status: 'starting' | 'ready' | 'failed';
}

const warnedFallbacks = new Set<string>();
/** Says once per process and reason that a desktop runs openbox instead of GNOME Shell. */
function warnShellFallback(reason: string): void {
  const generic = reason.replace(/\d+/g, 'N');
  if (warnedFallbacks.has(generic)) return;
  warnedFallbacks.add(generic);
  process.emitWarning(`the local desktop runs openbox, not GNOME Shell: ${reason}`, {
    code: 'OSHARM_SHELL_FALLBACK',
  });
}

/**
 * Creates the local provider. No I/O happens until `start()`.
 * @example
 * const provider = createLocalProvider();
 * const endpoint = await provider.start(); // { socketPath, token, chromiumUrl, … }
 */
export function createLocalProvider(settings: LocalProviderSettings = {}): LocalProvider {
  return new LocalProvider(settings);
}
