// Starts the REAL guest server of @osharm/desktop-guest (its built `osharm-guest-server` bin) on its own
// Xvfb display, over a unix socket with a token, for desktop-env's integration tests. desktop-guest
// depends on desktop-env, so the server runs as a separate process (no package import, no cycle).
// It runs unsandboxed here: guest paths are paths under the temporary home it is given.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGuestClient, type UndiciGuestClient } from '../guest-client-undici';

/** The built guest server bin (or `OSHARM_GUEST_SERVER_BIN`). */
export const REAL_GUEST_SERVER_BIN =
  process.env.OSHARM_GUEST_SERVER_BIN ??
  fileURLToPath(new URL('../../../desktop-guest/dist/guest-server-bin.js', import.meta.url));

/** What is missing to run the real server with these programs (empty when all is there). */
export function missingForRealGuestServer(programs: readonly string[]): string[] {
  return [REAL_GUEST_SERVER_BIN, '/usr/bin/Xvfb', ...programs].filter(path => !existsSync(path));
}

/** A running real guest server and its client. */
export interface RealGuestServer {
  readonly client: UndiciGuestClient;
  readonly socketPath: string;
  readonly token: string;
  stop(): Promise<void>;
}

/**
 * Starts Xvfb (a free display), optionally openbox, and the guest server with `HOME=home`, and
 * waits until the server answers (20 s at most, with its log in the error).
 */
export async function startRealGuestServer(options: {
  home: string;
  socketPath: string;
  screen?: string;
  windowManager?: boolean;
}): Promise<RealGuestServer> {
  const token = `token-${process.pid}-${Date.now()}`;
  const processes: ChildProcess[] = [];
  const start = (command: string, args: string[], env: NodeJS.ProcessEnv, extraFd = false) => {
    const child = spawn(command, args, {
      detached: true,
      env,
      stdio: extraFd ? ['ignore', 'ignore', 'pipe', 'pipe'] : ['ignore', 'ignore', 'pipe'],
    });
    processes.push(child);
    return child;
  };
  const stopAll = async () => {
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      for (const child of [...processes].reverse()) {
        if (child.pid !== undefined && child.exitCode === null) {
          try {
            process.kill(-child.pid, signal);
          } catch {
            // already gone
          }
        }
      }
      await new Promise(resolve => setTimeout(resolve, 300));
    }
  };

  // Xvfb picks a free display and writes its number to fd 3.
  const xvfb = start(
    '/usr/bin/Xvfb',
    ['-displayfd', '3', '-screen', '0', options.screen ?? '1280x800x24', '-nolisten', 'tcp'],
    process.env,
    true,
  );
  const display = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('Xvfb gave no display within 15 s')), 15_000);
    (xvfb.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
      clearTimeout(timer);
      resolve(`:${chunk.toString().trim()}`);
    });
    xvfb.once('exit', code => reject(new Error(`Xvfb exited with ${code}`)));
  });
  const env: NodeJS.ProcessEnv = { ...process.env, DISPLAY: display, HOME: options.home };
  delete env.OSHARM_GUEST_TOKEN;
  if (options.windowManager) start('/usr/bin/openbox', [], env);
  const server = start(
    process.execPath,
    // its own recording path: two suites' servers side by side must not share /tmp/recording.mp4 (the
    // default), where one's start removed the other's file
    [
      REAL_GUEST_SERVER_BIN,
      '--socket',
      options.socketPath,
      '--token',
      token,
      '--recording-path',
      join(dirname(options.socketPath), 'recording.mp4'),
    ],
    env,
  );
  let serverLog = '';
  server.stderr?.on('data', (chunk: Buffer) => (serverLog += chunk.toString()));

  const client = createGuestClient(
    {
      baseUrl: 'http://localhost:5000',
      host: 'localhost',
      serverPort: 5000,
      socketPath: options.socketPath,
      token,
    },
    { maxRetryDelayMs: 200 },
  );
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      await client.platform({ timeoutMs: 2_000 });
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        await client.close();
        await stopAll();
        throw new Error(`the guest server did not answer within 20 s:\n${serverLog}`, {
          cause: error,
        });
      }
      await new Promise(resolve => setTimeout(resolve, 200));
    }
  }
  return {
    client,
    socketPath: options.socketPath,
    token,
    async stop() {
      await client.close();
      await stopAll();
    },
  };
}
