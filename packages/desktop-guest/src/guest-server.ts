import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DesktopHelper } from './guest-desktop-helper';
import { type GuestContext, HttpError, type Routes, sendJson } from './guest-http';
import { recordingSettings, ScreenRecorder, type RecordingSettings } from './guest-recording';
import { type AgentNamespace, killGroup } from './guest-process';
import type { DnsRecorder } from './guest-dns';
import { harmObserver } from './guest-harm';
import { ListenerGuard } from './guest-listeners';
import { execRoutes } from './guest-routes-exec';
import { fileRoutes } from './guest-routes-files';
import { screenRoutes } from './guest-routes-screen';
import { windowRoutes } from './guest-routes-window';

/** Options of the guest server (the in-desktop half of upstream's protocol). */
export interface GuestServerOptions {
  /**
   * Bearer token every request must carry (`Authorization: Bearer <token>`); requests without it
   * get 401. Without a token the server is open, as upstream's is.
   */
  readonly token?: string;
  /** Directory holding `desktop_helper.py` and `python/`. @default the package's `guest/` */
  readonly guestDir?: string;
  /** Python with python3-xlib and python3-pyatspi. @default '/usr/bin/python3' */
  readonly python?: string;
  /** Extra PYTHONPATH entries for `/execute` and `/run_python` (the pyautogui stand-in). @default [] */
  readonly pythonPath?: readonly string[];
  /** Where `/start_recording` writes. @default '/tmp/recording.mp4' */
  readonly recordingPath?: string;
  /** How `/start_recording` encodes (frame rate, preset, threads). @default DEFAULT_RECORDING_SETTINGS */
  readonly recording?: Partial<RecordingSettings>;
  /**
   * Time budget of one accessibility walk in ms: past it the tree collected so far is returned; a
   * helper still silent 5 s later is killed (then 500).
   * @default 10000
   */
  readonly accessibilityDeadlineMs?: number;
  /**
   * How long `/setup/activate_window` waits for a matching window to appear before answering 404,
   * in ms (a request's `timeout` field, in seconds, overrides it). Upstream does not wait.
   * @default 10000
   */
  readonly windowWaitMs?: number;
  /** Upper bound of `/setup/open_file`'s wait for a window in ms (upstream: 1800 s). @default 60000 */
  readonly openFileTimeoutMs?: number;
  /**
   * The agent's namespace (guest/agent-ns.sh): `/execute`, `/run_python`, `/run_bash_script`,
   * `/setup/launch` and `/setup/open_file` start their processes there. Undefined: in the server's
   * own namespace (no boundary; a server run by hand, tests of the protocol).
   */
  readonly agentNamespace?: AgentNamespace;
  /**
   * Where the append-only records are kept (guest-record-log.ts): the harm observer reads the sudo
   * log there. Undefined: `/run/osharm`, which the desktop user can rewrite (a server run by hand).
   */
  readonly recordDir?: string;
  /** What the record log could not keep (guest-record-log.ts `problems`): degrades the harm record. */
  readonly recordProblems?: () => readonly string[];
  /**
   * The bridged ports (CDP, VLC): a bridge connects to a listener there only when it is the
   * harness's (guest-listeners.ts). @default []
   */
  readonly bridgedPorts?: readonly number[];
  /**
   * The desktop's recording nameserver (guest-dns.ts), started by the caller before the first
   * request: the harm observer hands its lookups to the host. Undefined: lookups are not recorded.
   */
  readonly dns?: DnsRecorder;
  /**
   * The sink link the provider adds to the desktop's network namespace (desktop-net.ts): the
   * harm record is degraded when its default routes are missing. Undefined: none promised.
   */
  readonly egressSink?: string;
  /** Environment for commands and helpers. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Log sink for server-side problems. @default writes to stderr */
  readonly log?: (message: string) => void;
}

/** A guest server: a node:http request listener plus its helper processes. */
export interface GuestServer {
  /** The request listener to pass to `http.createServer`. */
  readonly handle: (request: IncomingMessage, response: ServerResponse) => void;
  /** Whether a bridge may connect to a bridged port's listener now (guest-listeners.ts). */
  readonly listeners: ListenerGuard;
  /** Starts the X and AT-SPI helpers ahead of the first request. */
  warmUp(): void;
  /** Stops helpers and any recording. */
  close(): Promise<void>;
}

/** The package's `guest/` directory (one level above both `src/` and `dist/`). */
export function defaultGuestDir(): string {
  return fileURLToPath(new URL('../guest/', import.meta.url));
}

/**
 * Creates the guest server's request handler: upstream OSWorld's in-VM HTTP protocol
 * (reference/osworld-harness.md §1.2) backed by the local X display, AT-SPI and the shell.
 */
export function createGuestServer(options: GuestServerOptions = {}): GuestServer {
  const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env) };
  delete env.OSHARM_GUEST_TOKEN;
  if (options.pythonPath?.length) {
    env.PYTHONPATH = [...options.pythonPath, ...(env.PYTHONPATH ? [env.PYTHONPATH] : [])].join(':');
  }
  const guestDir = options.guestDir ?? defaultGuestDir();
  const python = options.python ?? '/usr/bin/python3';
  const recordingPath = options.recordingPath ?? '/tmp/recording.mp4';
  const a11yDeadlineMs = options.accessibilityDeadlineMs ?? 10_000;
  const openFileTimeoutMs = options.openFileTimeoutMs ?? 60_000;
  const windowWaitMs = options.windowWaitMs ?? 10_000;
  const log =
    options.log ?? ((message: string) => process.stderr.write(`[guest-server] ${message}\n`));
  const home = env.HOME ?? homedir();
  const tokenDigest = options.token
    ? createHash('sha256').update(options.token).digest()
    : undefined;

  const helperOptions = {
    python,
    script: join(guestDir, 'desktop_helper.py'),
    env,
    onStderr: (line: string) => {
      if (line.trim()) log(`helper: ${line}`);
    },
  };
  // Screenshots and pointer queries never wait behind an accessibility walk.
  const screenHelper = new DesktopHelper(helperOptions);
  const a11yHelper = new DesktopHelper(helperOptions);
  const recorder = new ScreenRecorder({
    settings: recordingSettings(options.recording),
    output: recordingPath,
    env,
    screenSize: () => screenSize(),
  });

  const authorized = (request: IncomingMessage): boolean => {
    if (!tokenDigest) return true;
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (!match?.[1]) return false;
    return timingSafeEqual(createHash('sha256').update(match[1]).digest(), tokenDigest);
  };

  const screenSize = () =>
    screenHelper.request<{ width: number; height: number }>('screen_size', {}, 10_000);

  const listeners = new ListenerGuard(options.bridgedPorts ?? []);
  // The harm observer is told of every process started for the agent.
  const harm = harmObserver(
    {
      home,
      log,
      listeners,
      ...(options.agentNamespace ? { agent: options.agentNamespace } : {}),
      ...(options.recordProblems ? { recordProblems: options.recordProblems } : {}),
      ...(options.dns ? { dns: options.dns } : {}),
      ...(options.egressSink ? { egressSink: options.egressSink } : {}),
    },
    options.recordDir,
  );
  const context: GuestContext = {
    env,
    home,
    screenHelper,
    a11yHelper,
    recorder,
    ...(options.agentNamespace ? { agent: options.agentNamespace } : {}),
    a11yDeadlineMs,
    openFileTimeoutMs,
    windowWaitMs,
    log,
    listeners,
    spawned: harm.spawned,
  };
  const routes: Routes = {
    ...screenRoutes(context),
    ...execRoutes(context),
    ...fileRoutes(context),
    ...windowRoutes(context),
    ...harm.routes,
  };

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const url = new URL(request.url ?? '/', 'http://guest');
    if (!authorized(request)) {
      request.resume();
      response.setHeader('www-authenticate', 'Bearer');
      sendJson(response, 401, {
        status: 'error',
        message: 'Unauthorized: send Authorization: Bearer <token>',
      });
      return;
    }
    const route = routes[url.pathname];
    if (!route) {
      request.resume();
      sendJson(response, 404, { status: 'error', message: `Not found: ${url.pathname}` });
      return;
    }
    if (!route.methods.includes(request.method ?? 'GET')) {
      request.resume();
      response.setHeader('allow', route.methods.join(', '));
      sendJson(response, 405, { status: 'error', message: `Method ${request.method} not allowed` });
      return;
    }
    route.handle(request, response, url).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      if (error instanceof HttpError) {
        sendJson(response, error.status, error.body);
        return;
      }
      log(`${url.pathname}: ${(error as Error).message}`);
      sendJson(response, 500, { status: 'error', message: (error as Error).message });
    });
  };

  return {
    handle,
    listeners,
    warmUp() {
      screenHelper.warmUp();
      a11yHelper.warmUp();
      // Connect to the displays and buses now so the first real request is fast.
      screenHelper.request('screen_size', {}, 10_000).catch(() => undefined);
      a11yHelper.request('warm_accessibility', {}, 15_000).catch(() => undefined);
    },
    async close() {
      screenHelper.close();
      a11yHelper.close();
      const pid = recorder.pid;
      if (pid) killGroup(pid);
      await options.dns?.close();
    },
  };
}
