/**
 * Where the guest server of a running environment can be reached.
 *
 * The guest server speaks upstream OSWorld's HTTP protocol (reference/osworld-harness.md §1.2).
 * A VMware guest is reached over TCP at `http://{host}:{serverPort}`; the local sandboxed desktop
 * over a unix socket (`socketPath`), with `baseUrl` still given for the Host header and for logs.
 */
export interface GuestEndpoint {
  /** `http://{host}:{serverPort}`; with `socketPath` the host part is only nominal. */
  readonly baseUrl: string;
  /** Guest host name or IP. */
  readonly host: string;
  /** Guest server port (upstream: 5000). */
  readonly serverPort: number;
  /** Unix socket to connect to instead of TCP (local provider). */
  readonly socketPath?: string;
  /** Bearer token the guest server requires (`Authorization: Bearer <token>`); never logged. */
  readonly token?: string;
  /**
   * Chrome DevTools endpoint reachable from the host (`http://127.0.0.1:PORT`), for the
   * chrome_open_tabs / chrome_close_tabs setup steps. Upstream: `http://{vm_ip}:9222`.
   */
  readonly chromiumUrl?: string;
  /** VLC HTTP interface reachable from the host. Upstream: `http://{vm_ip}:8080`. */
  readonly vlcUrl?: string;
  /** Screen size of the guest desktop. @default 1920×1080 */
  readonly screen?: { readonly width: number; readonly height: number };
}

/** Options every provider call takes. */
export interface ProviderCallOptions {
  readonly abortSignal?: AbortSignal;
  /** Upper bound for the whole call in ms; each provider documents its default. */
  readonly timeoutMs?: number;
}

/**
 * A source of desktop environments: VMware (`@osharm/vm-vmware`), the local sandboxed desktop
 * (`@osharm/vm-local`), or a third party's. Every call is bounded by a timeout and an AbortSignal:
 * a provider never loops forever (upstream's VMware start and IP loops had no overall timeout).
 */
/**
 * `sudo` inside an environment: `in-namespace` (a nested user namespace where the user is root, as
 * the local and container desktops give it), `unavailable` (the probe found it does not work).
 */
export type ProviderSudoMode = 'in-namespace' | 'unavailable';

/** The desktop shells a provider may run: GNOME Shell as on upstream's VM, or openbox (lighter). */
export type ProviderShellName = 'gnome-shell' | 'openbox';

/** Which shell a started desktop runs, and why when it is not the one asked for. */
export interface ProviderDesktopShell {
  /** The shell that runs. */
  readonly shell: ProviderShellName;
  /** The shell that was asked for. */
  readonly requested: ProviderShellName;
  /** Why GNOME Shell was asked for and openbox runs (not installed, exited, too slow); else null. */
  readonly fallback: string | null;
  /** How long the shell's start took inside the desktop, in ms (null when not recorded). */
  readonly startMs: number | null;
}

export interface VmProviderV1 {
  readonly specificationVersion: 'vm-provider-v1';
  /** `vmware`, `local`, … */
  readonly providerId: string;
  /**
   * Starts the environment (or attaches to it when already running) and waits until its guest
   * server answers.
   * @throws {VmProviderError} when it cannot start within the timeout or is aborted.
   */
  start(options?: ProviderCallOptions): Promise<GuestEndpoint>;
  /** The endpoint of the running environment, or undefined when it is not running. */
  endpoint(): GuestEndpoint | undefined;
  /**
   * Returns the environment to a clean snapshot (VMware: `revertToSnapshot`, default
   * `init_state`; local: throw the sandbox away) and starts it again. The endpoint may change.
   * @throws {VmProviderError}
   */
  revert(options?: ProviderCallOptions & { readonly snapshot?: string }): Promise<GuestEndpoint>;
  /** Stops the environment; safe to call when it is not running. */
  stop(options?: ProviderCallOptions): Promise<void>;
  /** Saves the current state as a snapshot, where the provider supports it. */
  saveSnapshot?(options: ProviderCallOptions & { readonly name: string }): Promise<void>;
  /**
   * How `sudo` works in the started environment, where the provider probes it (container providers
   * at start); undefined before start or when the provider does not know. Goes into fidelity.json.
   */
  sudoMode?(): ProviderSudoMode | undefined;
  /**
   * The shell the started desktop runs (local and container desktops read it at start); undefined
   * before start or when the provider does not know (VMware: upstream's own). Goes into fidelity.json.
   */
  desktopShell?(): ProviderDesktopShell | undefined;
}

/**
 * Host names every embedded desktop (local, container, Kubernetes) serves itself over HTTPS, with a
 * certificate authority of its own (desktop-guest guest/site-tls.sh): upstream's website vector's host,
 * so the address bar reads what upstream's agents saw. The providers map them to the desktop's
 * loopback; nothing for them leaves the desktop.
 */
export const DESKTOP_SITE_HOSTS: readonly string[] = ['agent-help.github.io'];
