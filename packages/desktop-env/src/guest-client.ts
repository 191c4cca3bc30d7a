import type { DownloadResult } from './guest-transport';
import type { GuestEndpoint } from './vm-provider';

/** Result of `/execute` (and `/setup/execute`). */
export interface ExecuteResult {
  readonly status: 'success' | 'error';
  readonly output: string;
  readonly error: string;
  readonly returncode: number;
}

/** Result of `/run_python`. */
export interface RunPythonResult {
  readonly status: 'success' | 'error';
  readonly message: string;
  readonly output: string;
  readonly error: string;
  readonly return_code: number;
}

/** Result of `/run_bash_script`. */
export interface RunBashResult {
  readonly status: 'success' | 'error';
  readonly output: string;
  readonly error: string;
  readonly returncode: number;
}

/** Result of `/setup/execute_with_verification` [U26]: the execute fields plus the verification. */
export interface ExecuteWithVerificationResult extends ExecuteResult {
  /** `passed` when the verification held within `max_wait_time`. */
  readonly verification: string;
  /** Seconds the guest waited for the verification. */
  readonly wait_time: number;
}

/** What `/setup/execute_with_verification` checks after running the command. */
export interface ExecuteVerification {
  /** A window whose title contains this text (case-insensitive) must exist (`wmctrl -l`). */
  readonly window_exists?: string;
  /** This shell command must exit 0. */
  readonly command_success?: string;
}

/** A node of `/list_directory`'s tree. */
export interface DirectoryTree {
  readonly type: 'directory' | 'file';
  readonly name: string;
  readonly children?: readonly DirectoryTree[];
}

/** Per-call options of the guest client. */
export interface GuestCallOptions {
  readonly abortSignal?: AbortSignal;
  /** Timeout of this call in ms (each method has its own default). */
  readonly timeoutMs?: number;
}

/** The accessibility tree and what the guest said about its completeness. */
export interface AccessibilityAnswer {
  /** The AT-SPI tree as upstream's XML. */
  readonly tree: string;
  /**
   * Why the guest cut the walk short (osharm's guest server answers `X-Osharm-Truncated:
   * deadline` when the walk hit its time budget), or null when it did not say so (upstream's
   * guest never does).
   */
  readonly truncated: string | null;
}

/**
 * One method per endpoint of upstream's guest protocol (reference/osworld-harness.md §1.2).
 * Non-2xx answers throw `GuestRequestError` (endpoint, status, body excerpt). Every call has a
 * timeout (upstream has none on /accessibility); only idempotent calls are retried.
 */
export interface GuestClient {
  readonly endpoint: GuestEndpoint;
  /** GET /screenshot → PNG bytes (cursor drawn). */
  screenshot(options?: GuestCallOptions): Promise<Buffer>;
  /** GET /accessibility → the AT-SPI tree as upstream's XML. */
  accessibilityTree(options?: GuestCallOptions): Promise<string>;
  /** GET /accessibility → the tree and whether the guest cut it short. */
  accessibility(options?: GuestCallOptions): Promise<AccessibilityAnswer>;
  /** GET /terminal → the focused terminal's text, or null. */
  terminalOutput(options?: GuestCallOptions): Promise<string | null>;
  /** POST /execute (`/setup/execute` when `setup`). */
  execute(
    command: string | readonly string[],
    options?: GuestCallOptions & { shell?: boolean; setup?: boolean },
  ): Promise<ExecuteResult>;
  /**
   * POST /setup/execute_with_verification [U26]: runs a command, then polls the verification
   * every `checkInterval` s for at most `maxWaitTime` s. Optional: an older guest server lacks it.
   */
  executeWithVerification?(
    command: string | readonly string[],
    options?: GuestCallOptions & {
      shell?: boolean;
      verification?: ExecuteVerification;
      /** Seconds. @default 10 */
      maxWaitTime?: number;
      /** Seconds. @default 1 */
      checkInterval?: number;
    },
  ): Promise<ExecuteWithVerificationResult>;
  /** POST /setup/launch: starts a process without waiting. */
  launch(
    command: string | readonly string[],
    options?: GuestCallOptions & { shell?: boolean },
  ): Promise<void>;
  /** POST /run_python. */
  runPython(code: string, options?: GuestCallOptions): Promise<RunPythonResult>;
  /** POST /run_bash_script. */
  runBashScript(
    script: string,
    options?: GuestCallOptions & { scriptTimeoutSeconds?: number; workingDir?: string },
  ): Promise<RunBashResult>;
  /** POST /file → the file's bytes, or null when the guest says 404. */
  getFile(path: string, options?: GuestCallOptions): Promise<Buffer | null>;
  /**
   * POST /file, streamed to `destination` (atomically), at most `maxBytes` (default
   * {@link DEFAULT_DOWNLOAD_LIMIT_BYTES}): null when the guest says 404; `truncated` when the file
   * was longer than the cap (the rest was never read).
   */
  downloadFile?(
    path: string,
    destination: string,
    options?: GuestCallOptions & { maxBytes?: number },
  ): Promise<DownloadResult | null>;
  /** POST /setup/upload (multipart `file_path`, `file_data`). */
  uploadFile(path: string, data: Uint8Array, options?: GuestCallOptions): Promise<void>;
  /** POST /list_directory. */
  listDirectory(path: string, options?: GuestCallOptions): Promise<DirectoryTree>;
  /** POST /setup/open_file: opens a file (or app) and waits for its window. */
  openFile(path: string, options?: GuestCallOptions): Promise<void>;
  /** POST /setup/activate_window. */
  activateWindow(
    windowName: string,
    options?: GuestCallOptions & { strict?: boolean; byClass?: boolean },
  ): Promise<void>;
  /** POST /setup/close_window. */
  closeWindow(
    windowName: string,
    options?: GuestCallOptions & { strict?: boolean; byClass?: boolean },
  ): Promise<void>;
  /** POST /setup/change_wallpaper. */
  changeWallpaper(path: string, options?: GuestCallOptions): Promise<void>;
  /** POST /screen_size. */
  screenSize(options?: GuestCallOptions): Promise<{ width: number; height: number }>;
  /** GET /cursor_position. */
  cursorPosition(options?: GuestCallOptions): Promise<[number, number]>;
  /** POST /window_size (form `app_class_name`). */
  windowSize(
    appClassName: string,
    options?: GuestCallOptions,
  ): Promise<{ width: number; height: number } | null>;
  /** POST /desktop_path. */
  desktopPath(options?: GuestCallOptions): Promise<string>;
  /** POST /wallpaper → the current wallpaper's image bytes, or null when the guest says 404. */
  wallpaper?(options?: GuestCallOptions): Promise<Buffer | null>;
  /** GET /platform. */
  platform(options?: GuestCallOptions): Promise<string>;
  /** POST /start_recording. */
  startRecording(options?: GuestCallOptions): Promise<void>;
  /** POST /end_recording → the mp4 bytes. */
  endRecording(options?: GuestCallOptions): Promise<Buffer>;
  /**
   * POST /end_recording, streamed to `destination` (atomically), at most `maxBytes` (default
   * `DEFAULT_GUEST_ANSWER_LIMITS.endRecording`, 2 GiB); `truncated` past the cap.
   */
  endRecordingTo?(
    destination: string,
    options?: GuestCallOptions & { maxBytes?: number },
  ): Promise<DownloadResult>;
}
