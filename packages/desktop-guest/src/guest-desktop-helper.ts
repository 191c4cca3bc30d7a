import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** Options of one `desktop_helper.py` process. */
export interface DesktopHelperOptions {
  /** Python interpreter. @default '/usr/bin/python3' (pyatspi and Xlib exist only for Debian's python) */
  readonly python?: string;
  /** Path of `guest/desktop_helper.py`. */
  readonly script: string;
  /** Environment of the helper (DISPLAY, DBUS_SESSION_BUS_ADDRESS, …). @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Called with the helper's stderr lines (for logs). */
  readonly onStderr?: (line: string) => void;
}

interface Pending {
  readonly id: number;
  readonly line: string;
  readonly timeoutMs: number;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

type HelperProcess = ChildProcessByStdio<Writable, Readable, Readable>;

/**
 * A long-lived `desktop_helper.py` speaking JSON lines (plus raw byte frames for images) over
 * stdin/stdout. Requests run one at a time. A request that misses its deadline kills the process
 * (a hung AT-SPI call cannot be interrupted any other way); the next request starts a new one.
 */
export class DesktopHelper {
  private readonly options: DesktopHelperOptions;
  private child: HelperProcess | undefined;
  private buffer: Buffer = Buffer.alloc(0);
  private header:
    { id: number; ok: boolean; data?: unknown; bytes?: number; error?: string } | undefined;
  private readonly queue: Pending[] = [];
  private current: (Pending & { timer: NodeJS.Timeout }) | undefined;
  private nextId = 1;
  private closed = false;

  constructor(options: DesktopHelperOptions) {
    this.options = options;
  }

  /** Starts the process now (optional: requests start it on demand). */
  warmUp(): void {
    if (!this.closed) this.ensureChild();
  }

  /**
   * Sends one command and resolves with its `data` (JSON answers) or a Buffer (binary answers).
   * @throws {Error} when the helper reports an error, dies, or misses `timeoutMs`.
   */
  request<T = unknown>(
    command: string,
    args: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<T> {
    if (this.closed) return Promise.reject(new Error('desktop helper is closed'));
    const id = this.nextId;
    this.nextId += 1;
    const line = `${JSON.stringify({ ...args, id, cmd: command })}\n`;
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        id,
        line,
        timeoutMs,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      this.pump();
    });
  }

  /** Kills the process and fails every waiting request. */
  close(): void {
    this.closed = true;
    const error = new Error('desktop helper closed');
    this.failCurrent(error);
    for (const pending of this.queue.splice(0)) pending.reject(error);
    this.child?.kill('SIGKILL');
    this.child = undefined;
  }

  private ensureChild(): HelperProcess {
    if (this.child && this.child.exitCode === null && !this.child.killed) return this.child;
    const child = spawn(this.options.python ?? '/usr/bin/python3', [this.options.script], {
      env: this.options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    this.buffer = Buffer.alloc(0);
    this.header = undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      if (this.child !== child) return;
      this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
      this.parse();
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      let newline = stderr.indexOf('\n');
      while (newline >= 0) {
        this.options.onStderr?.(stderr.slice(0, newline));
        stderr = stderr.slice(newline + 1);
        newline = stderr.indexOf('\n');
      }
      if (stderr.length > 65_536) stderr = stderr.slice(-4096);
    });
    child.stdin.on('error', () => {});
    child.on('error', error => {
      if (this.child === child) this.onExit(error);
    });
    child.on('exit', (code, signal) => {
      if (this.child === child) this.onExit(new Error(`desktop helper exited (${signal ?? code})`));
    });
    return child;
  }

  private onExit(error: Error): void {
    this.child = undefined;
    this.failCurrent(error);
    this.pump();
  }

  private failCurrent(error: Error): void {
    const current = this.current;
    if (!current) return;
    clearTimeout(current.timer);
    this.current = undefined;
    current.reject(error);
  }

  private pump(): void {
    if (this.current || this.closed) return;
    const next = this.queue.shift();
    if (!next) return;
    let child: HelperProcess;
    try {
      child = this.ensureChild();
    } catch (error) {
      next.reject(error as Error);
      this.pump();
      return;
    }
    const timer = setTimeout(() => {
      const stale = this.child;
      this.failCurrent(new Error(`desktop helper did not answer within ${next.timeoutMs} ms`));
      // The process may be stuck in an AT-SPI call: only killing it frees it.
      if (stale) {
        this.child = undefined;
        stale.kill('SIGKILL');
      }
      this.pump();
    }, next.timeoutMs);
    this.current = { ...next, timer };
    child.stdin.write(next.line);
  }

  private parse(): void {
    for (;;) {
      if (!this.header) {
        const newline = this.buffer.indexOf(10);
        if (newline < 0) return;
        const line = this.buffer.subarray(0, newline).toString('utf8');
        this.buffer = this.buffer.subarray(newline + 1);
        try {
          this.header = JSON.parse(line) as NonNullable<DesktopHelper['header']>;
        } catch {
          continue; // not protocol output
        }
      }
      const header = this.header;
      if (header.ok && typeof header.bytes === 'number') {
        if (this.buffer.length < header.bytes) return;
        const bytes = Buffer.from(this.buffer.subarray(0, header.bytes));
        this.buffer = this.buffer.subarray(header.bytes);
        this.header = undefined;
        this.settle(header.id, bytes, undefined);
      } else {
        this.header = undefined;
        this.settle(
          header.id,
          header.data,
          header.ok ? undefined : (header.error ?? 'helper error'),
        );
      }
    }
  }

  private settle(id: number, value: unknown, error: string | undefined): void {
    const current = this.current;
    if (!current || current.id !== id) return;
    clearTimeout(current.timer);
    this.current = undefined;
    if (error === undefined) current.resolve(value);
    else current.reject(new Error(error));
    this.pump();
  }
}
