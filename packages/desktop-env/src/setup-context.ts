import type { AssetSources } from './asset-map';
import type { GuestClient } from './guest-client';
import type { SetupStepError } from './setup-step-error';
import type { SetupDownloadRecord } from './setup-transfer';
import type { SetupWindowWait } from './setup-window-waits';
import type { GuestEndpoint } from './vm-provider';

// What the setup runner takes (context, settings) and gives back (records, warnings, events).

/** A log line of the setup runner. */
export interface SetupLogEntry {
  readonly level: 'debug' | 'info' | 'warn';
  readonly message: string;
}

/** Progress of {@link runSetup}, one event at the start and one at the end of every step. */
export type SetupStepEvent =
  | {
      readonly type: 'step-start';
      readonly phase: 'config' | 'postconfig';
      readonly index: number;
      readonly count: number;
      readonly stepType: string;
    }
  | {
      readonly type: 'step-end';
      readonly phase: 'config' | 'postconfig';
      readonly index: number;
      readonly count: number;
      readonly stepType: string;
      readonly durationMs: number;
      readonly error?: SetupStepError;
    };

/** Tuning of the steps; every value has upstream's default. */
export interface SetupRunnerSettings {
  /** `download`: attempts and per-attempt timeout of the host-side download. */
  readonly download?: {
    /** @default 3 */
    readonly attempts?: number;
    /** @default 300000 */
    readonly timeoutMs?: number;
    /** Delay before attempt n+1; by default min(0.5·2^n, 8) s with ≤25 % jitter. */
    readonly retryDelayMs?: (attempt: number) => number;
  };
  /**
   * Attempts of one upload (`download`, `upload_file`) after a connection error or HTTP 5xx; the
   * pause before attempt n+1 is 2^(n-1) s, as upstream's `upload_file`. @default 3
   */
  readonly uploadAttempts?: number;
  /** Pause before upload attempt n+1 in ms. @default 1000·2^(n-1) */
  readonly uploadRetryDelayMs?: (attempt: number) => number;
  /** `execute` / `command` with `until`: polling. */
  readonly until?: {
    /** Pause between polls in ms. @default 300 */
    readonly intervalMs?: number;
    /** Give up (and fail the step) when the condition has not held after this long. @default 120000 */
    readonly timeoutMs?: number;
    /** Give up after this many failed requests. @default 5 (upstream) */
    readonly maxFailures?: number;
  };
  /** `chrome_open_tabs` / `chrome_close_tabs`: the CDP connection. */
  readonly chrome?: {
    /** @default 15 */
    readonly connectAttempts?: number;
    /** @default 5000 */
    readonly connectIntervalMs?: number;
    /** @default 30000 */
    readonly connectTimeoutMs?: number;
    /** @default 60000 */
    readonly gotoTimeoutMs?: number;
  };
  /**
   * Readiness instead of fixed sleeps: `activate_window`, and an `open` / `launch` that an
   * activation follows, first wait until the window exists (polling `wmctrl -lx`) or the deadline
   * passes; every wait is recorded ({@link SetupRunRecord.windowWaits}).
   */
  readonly windowReadiness?: {
    /** @default 20000 */
    readonly deadlineMs?: number;
    /** @default 250 */
    readonly intervalMs?: number;
  };
  /** `launch` of an app with a slow or splashed start (GIMP, VS Code): waiting for its window. */
  readonly launchReadiness?: {
    /** @default 60000 */
    readonly timeoutMs?: number;
    /** @default 500 */
    readonly intervalMs?: number;
  };
}

/** What {@link runSetup} needs besides the steps. */
export interface SetupContext {
  /** The guest protocol client of the running environment. */
  readonly client: GuestClient;
  /** The environment's endpoint (Chrome DevTools URL, screen size). @default client.endpoint */
  readonly endpoint?: GuestEndpoint;
  /** The task's id: names the default cache directory. */
  readonly taskId: string;
  /** The dataset's base directory: `upload_file` assets resolve against it, then its parent. */
  readonly baseDir: string;
  /** Host directory of downloads and `execute` outputs. @default `cache/<taskId>` */
  readonly cacheDir?: string;
  /** Which list runs: named in errors and events. @default 'config' */
  readonly phase?: 'config' | 'postconfig';
  readonly abortSignal?: AbortSignal;
  readonly logger?: (entry: SetupLogEntry) => void;
  /** Called at the start and the end of each step. */
  readonly onStep?: (event: SetupStepEvent) => void;
  /** Value of `{CLIENT_PASSWORD}`. @default 'password' (the guest account of the upstream images) */
  readonly clientPassword?: string;
  /** Value of the `{SCREEN_*}` placeholders. @default endpoint.screen, else 1920×1080 */
  readonly screen?: { readonly width: number; readonly height: number };
  /** Fetch used by `download`. @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
  /** `download`: an asset map (local files, mirrors) and offline mode. */
  readonly assets?: AssetSources;
  readonly settings?: SetupRunnerSettings;
}

/** One step that ran. */
export interface SetupStepRecord {
  readonly index: number;
  readonly type: string;
  /** ISO time the step started. */
  readonly startedAt: string;
  readonly durationMs: number;
  /** A short account of what the step did (e.g. which downloads came from the cache). */
  readonly detail?: string;
}

/**
 * A step failure that upstream only logs (reference/osworld-harness.md §2): the setup went on, and
 * the run may differ from upstream's where upstream's step succeeded.
 */
export interface SetupWarning {
  readonly phase: 'config' | 'postconfig';
  /** 0-based index of the step in its list. */
  readonly stepIndex: number;
  readonly stepType: string;
  readonly message: string;
}

/** What {@link runSetup} ran. */
export interface SetupRunRecord {
  readonly phase: 'config' | 'postconfig';
  readonly steps: readonly SetupStepRecord[];
  readonly durationMs: number;
  /** Tolerated failures, in order (empty when every step succeeded). */
  readonly warnings: readonly SetupWarning[];
  /** Where each `download` file came from. */
  readonly downloads: readonly SetupDownloadRecord[];
  /** Each wait for a window (readiness instead of a fixed sleep), in order. */
  readonly windowWaits: readonly SetupWindowWait[];
}
