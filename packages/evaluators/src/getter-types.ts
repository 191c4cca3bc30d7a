import type { GuestClient } from '@osharm/desktop-env';

/** The guest calls the evaluation getters make; any `GuestClient` provides them. */
export type EvaluationGuest = Pick<
  GuestClient,
  'execute' | 'getFile' | 'downloadFile' | 'terminalOutput' | 'accessibilityTree' | 'listDirectory'
>;

/** What every getter receives besides its config (upstream passes the whole `DesktopEnv`). */
export interface GetterContext {
  /** The guest of the environment being evaluated. */
  readonly client: EvaluationGuest;
  /**
   * The task's host-side cache directory (upstream `cache/<task_id>`): `vm_file` and `cloud_file`
   * write there, `cache_file` reads from there. Created when needed.
   */
  readonly cacheDir: string;
  readonly abortSignal?: AbortSignal;
  /** The fetch used by `cloud_file`. @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
  /**
   * The guest path of the Chrome profile directory holding `Bookmarks` and `Preferences` (e.g.
   * `/home/user/.config/google-chrome/Default`). When unset, the getters try
   * `$HOME/.config/google-chrome/Default`, then `$HOME/.config/chromium/Default`.
   */
  readonly chromeProfileDir?: string;
  /** The clock of `vm_file`'s `time_suffix`. @default () => new Date() */
  readonly now?: () => Date;
  /**
   * Told of each `vm_file` the guest did not hand over whole (cut at its cap, refused as a sparse
   * or special file, a failed request): the getter gives null for it, as upstream does for a
   * missing file, so the run can record why its score may not be the agent's doing.
   */
  readonly onWithheld?: (file: WithheldFile) => void;
}

/** A guest file an evaluator asked for and did not get whole. */
export interface WithheldFile {
  readonly path: string;
  /** Why: `cut at its cap of N bytes`, or the guest's or transport's error. */
  readonly reason: string;
  /** Bytes received (0 when none). */
  readonly bytes: number;
}

/** A getter config: the evaluator's `result` / `expected` entry, `{ type, ...fields }`. */
export type GetterConfigInput = Readonly<Record<string, unknown>> & { readonly type: string };

/**
 * A getter, upstream's `get_<type>(env, config)`: resolves the state a metric compares. A getter
 * that finds nothing returns `null` (upstream `None`); misconfiguration throws `EvaluationError`;
 * other failures (a download that fails, a missing cache file) throw, as upstream's do.
 */
export type Getter = (context: GetterContext, config: GetterConfigInput) => Promise<unknown>;

/** Rethrows when the evaluation was aborted (so a getter's catch-all does not swallow it). */
export function throwIfAborted(context: Pick<GetterContext, 'abortSignal'>): void {
  context.abortSignal?.throwIfAborted();
}
