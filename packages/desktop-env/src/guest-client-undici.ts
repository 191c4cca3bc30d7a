import type {
  AccessibilityAnswer,
  DirectoryTree,
  ExecuteResult,
  ExecuteVerification,
  ExecuteWithVerificationResult,
  GuestCallOptions,
  GuestClient,
  RunBashResult,
  RunPythonResult,
} from './guest-client';
import {
  executeCall,
  executeWithVerificationCall,
  launchCall,
  runBashScriptCall,
  runPythonCall,
} from './guest-calls-exec';
import {
  changeWallpaperCall,
  getFileCall,
  listDirectoryCall,
  openFileCall,
  uploadFileCall,
  windowCall,
} from './guest-calls-files';
import {
  accessibilityCall,
  cursorPositionCall,
  desktopPathCall,
  endRecordingCall,
  platformCall,
  screenSizeCall,
  screenshotCall,
  startRecordingCall,
  terminalOutputCall,
  wallpaperCall,
  windowSizeCall,
} from './guest-calls-observe';
import {
  DEFAULT_DOWNLOAD_LIMIT_BYTES,
  DEFAULT_GUEST_ANSWER_LIMITS,
  type DownloadResult,
  type GuestClientSettings,
  GuestTransport,
} from './guest-transport';
import type { GuestEndpoint } from './vm-provider';

/**
 * The guest protocol client over undici (reference/osworld-harness.md §1.2). One instance per
 * running environment; {@link close} releases its connections. Each method's request and answer
 * are described in guest-calls-*.ts; guest-transport.ts sends them (timeouts, retries).
 */
export class UndiciGuestClient implements GuestClient {
  readonly endpoint: GuestEndpoint;
  private readonly transport: GuestTransport;

  constructor(endpoint: GuestEndpoint, settings: GuestClientSettings = {}) {
    this.endpoint = endpoint;
    this.transport = new GuestTransport(endpoint, settings);
  }

  /** Closes the client's own connection pool (not a dispatcher passed in the settings). */
  close(): Promise<void> {
    return this.transport.close();
  }

  screenshot(options?: GuestCallOptions): Promise<Buffer> {
    return this.transport.call(screenshotCall(), options);
  }

  async accessibilityTree(options?: GuestCallOptions): Promise<string> {
    return (await this.accessibility(options)).tree;
  }

  accessibility(options?: GuestCallOptions): Promise<AccessibilityAnswer> {
    return this.transport.call(accessibilityCall(), options);
  }

  terminalOutput(options?: GuestCallOptions): Promise<string | null> {
    return this.transport.call(terminalOutputCall(), options);
  }

  execute(
    command: string | readonly string[],
    options?: GuestCallOptions & { shell?: boolean; setup?: boolean },
  ): Promise<ExecuteResult> {
    return this.transport.call(executeCall(command, options), options);
  }

  executeWithVerification(
    command: string | readonly string[],
    options?: GuestCallOptions & {
      shell?: boolean;
      verification?: ExecuteVerification;
      maxWaitTime?: number;
      checkInterval?: number;
    },
  ): Promise<ExecuteWithVerificationResult> {
    return this.transport.call(executeWithVerificationCall(command, options), options);
  }

  launch(
    command: string | readonly string[],
    options?: GuestCallOptions & { shell?: boolean },
  ): Promise<void> {
    return this.transport.call(launchCall(command, options), options);
  }

  runPython(code: string, options?: GuestCallOptions): Promise<RunPythonResult> {
    return this.transport.call(runPythonCall(code), options);
  }

  runBashScript(
    script: string,
    options?: GuestCallOptions & { scriptTimeoutSeconds?: number; workingDir?: string },
  ): Promise<RunBashResult> {
    return this.transport.call(runBashScriptCall(script, options), options);
  }

  getFile(path: string, options?: GuestCallOptions): Promise<Buffer | null> {
    return this.transport.call(getFileCall(path), options);
  }

  downloadFile(
    path: string,
    destination: string,
    options?: GuestCallOptions & { maxBytes?: number },
  ): Promise<DownloadResult | null> {
    const maxBytes = options?.maxBytes ?? DEFAULT_DOWNLOAD_LIMIT_BYTES;
    return this.transport.download(getFileCall(path), destination, maxBytes, options);
  }

  uploadFile(path: string, data: Uint8Array, options?: GuestCallOptions): Promise<void> {
    return this.transport.call(uploadFileCall(path, data), options);
  }

  listDirectory(path: string, options?: GuestCallOptions): Promise<DirectoryTree> {
    return this.transport.call(listDirectoryCall(path), options);
  }

  openFile(path: string, options?: GuestCallOptions): Promise<void> {
    return this.transport.call(openFileCall(path), options);
  }

  activateWindow(
    windowName: string,
    options?: GuestCallOptions & { strict?: boolean; byClass?: boolean },
  ): Promise<void> {
    return this.transport.call(windowCall('activateWindow', windowName, options), options);
  }

  closeWindow(
    windowName: string,
    options?: GuestCallOptions & { strict?: boolean; byClass?: boolean },
  ): Promise<void> {
    return this.transport.call(windowCall('closeWindow', windowName, options), options);
  }

  changeWallpaper(path: string, options?: GuestCallOptions): Promise<void> {
    return this.transport.call(changeWallpaperCall(path), options);
  }

  screenSize(options?: GuestCallOptions): Promise<{ width: number; height: number }> {
    return this.transport.call(screenSizeCall(), options);
  }

  cursorPosition(options?: GuestCallOptions): Promise<[number, number]> {
    return this.transport.call(cursorPositionCall(), options);
  }

  windowSize(
    appClassName: string,
    options?: GuestCallOptions,
  ): Promise<{ width: number; height: number } | null> {
    return this.transport.call(windowSizeCall(appClassName), options);
  }

  desktopPath(options?: GuestCallOptions): Promise<string> {
    return this.transport.call(desktopPathCall(), options);
  }

  wallpaper(options?: GuestCallOptions): Promise<Buffer | null> {
    return this.transport.call(wallpaperCall(), options);
  }

  platform(options?: GuestCallOptions): Promise<string> {
    return this.transport.call(platformCall(), options);
  }

  startRecording(options?: GuestCallOptions): Promise<void> {
    return this.transport.call(startRecordingCall(), options);
  }

  endRecording(options?: GuestCallOptions): Promise<Buffer> {
    return this.transport.call(endRecordingCall(), options);
  }

  async endRecordingTo(
    destination: string,
    options?: GuestCallOptions & { maxBytes?: number },
  ): Promise<DownloadResult> {
    const maxBytes = options?.maxBytes ?? DEFAULT_GUEST_ANSWER_LIMITS.endRecording;
    const result = await this.transport.download(
      endRecordingCall(),
      destination,
      maxBytes,
      options,
    );
    if (!result) throw new Error('the guest sent no recording');
    return result;
  }
}

/**
 * Creates the guest protocol client for a running environment: over `endpoint.socketPath` when set,
 * else TCP to `endpoint.baseUrl`; sends `Authorization: Bearer <token>` when `endpoint.token` is set.
 * Does no I/O until a method is called.
 */
export function createGuestClient(
  endpoint: GuestEndpoint,
  settings: GuestClientSettings = {},
): UndiciGuestClient {
  return new UndiciGuestClient(endpoint, settings);
}
