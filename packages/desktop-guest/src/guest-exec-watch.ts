import { closeSync, existsSync, openSync, readFileSync, readSync, readlinkSync } from 'node:fs';

// The reader of the exec and connection watch's record (guest/exec_watch.py: a seccomp
// user-notification supervisor on the server's side appends one JSON line per execve / connect of
// the processes below the guest server and the agent's namespace). The harm observer's process and
// connection halves take from it what polling misses: a process that starts and ends between two
// polls, a connection attempt closed at once.

/**
 * One call the supervisor saw (the fields guest/exec_watch.py writes), or the end of a watched
 * program (`exit`: the C supervisor, guest/watch/exit-watch.h, on Linux 6.15+; pid, start, t and
 * status only).
 */
export interface WatchedCall {
  readonly kind: 'exec' | 'connect' | 'exit';
  /** Seconds since the epoch. */
  readonly t: number;
  readonly pid: number;
  readonly ppid: number;
  /** The process's start time (clock ticks, /proc/PID/stat field 22): with pid, its identity. */
  readonly start: string;
  readonly uid: number;
  /** The uid as the process saw itself (0 for sudo's root). */
  readonly uid_inside: number;
  readonly cwd: string | null;
  readonly argv?: readonly string[];
  readonly file?: string | null;
  readonly address?: string;
  readonly port?: number;
  readonly protocol?: string;
  /** `exit`: the exit code, or minus the signal number that ended it. */
  readonly status?: number;
}

const maxLineBytes = 256 * 1024;
const exitCall = { kind: 'exit', ppid: 0, uid: -1, uid_inside: -1, cwd: null } as const;
const maxReadBytes = 8 * 1024 * 1024;

/** Reads the record incrementally; keeps only the calls of the agent's processes. */
export class ExecWatchReader {
  private offset = 0;
  private partial = '';
  private readonly agentPidNs: string | null;
  /** Whether the supervisor took a listener from the guest server's side and the agent's side. */
  private readonly labels = new Set<string>();

  constructor(
    private readonly recordPath: string,
    agentPid: number | undefined,
  ) {
    let ns: string | null = null;
    try {
      if (agentPid !== undefined) ns = readlinkSync(`/proc/${agentPid}/ns/pid`);
    } catch {
      ns = null;
    }
    this.agentPidNs = ns;
  }

  /**
   * The watch's state in one line for the record's coverage; null when it does not run.
   * `problems`: installProblems(), when the caller has just read them.
   */
  state(problems = this.installProblems()): string | null {
    if (this.labels.size === 0) return null;
    return problems.length > 0
      ? `partial (${[...this.labels].sort().join(', ')}; ${problems.join('; ')})`
      : `seccomp (${[...this.labels].sort().join(', ')})`;
  }

  /** The `wrap` side's own reports (exec-watch-LABEL.problem beside the record). */
  installProblems(): string[] {
    const dir = this.recordPath.slice(0, this.recordPath.lastIndexOf('/'));
    const found: string[] = [];
    for (const label of ['server', 'agent']) {
      const path = `${dir}/exec-watch-${label}.problem`;
      if (existsSync(path))
        found.push(`${label}: ${readFileSync(path, 'utf8').trim().slice(0, 200)}`);
    }
    const dropped = `${this.recordPath}.dropped`;
    if (existsSync(dropped))
      found.push(
        `${readFileSync(dropped, 'utf8').trim()} call(s) not recorded: the record is full`,
      );
    return found;
  }

  /** The agent's calls appended since the last read, in order. */
  read(): WatchedCall[] {
    let fd: number;
    try {
      fd = openSync(this.recordPath, 'r');
    } catch {
      return [];
    }
    const calls: WatchedCall[] = [];
    try {
      const buffer = Buffer.alloc(64 * 1024);
      let total = 0;
      for (;;) {
        const got = readSync(fd, buffer, 0, buffer.length, this.offset);
        if (got === 0) break;
        this.offset += got;
        total += got;
        const text = this.partial + buffer.subarray(0, got).toString('utf8');
        const lines = text.split('\n');
        this.partial = lines.pop() ?? '';
        if (this.partial.length > maxLineBytes) this.partial = '';
        for (const line of lines) {
          const call = this.parse(line);
          if (call) calls.push(call);
        }
        if (total >= maxReadBytes) break; // the rest at the next read
      }
    } finally {
      closeSync(fd);
    }
    return calls;
  }

  private parse(line: string): WatchedCall | undefined {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (typeof value !== 'object' || value === null) return undefined;
    const call = value as Record<string, unknown>;
    if (call.kind === 'watch' && typeof call.label === 'string') {
      this.labels.add(call.label);
      return undefined;
    }
    if (call.kind !== 'exec' && call.kind !== 'connect' && call.kind !== 'exit') return undefined;
    if (typeof call.pid !== 'number' || typeof call.start !== 'string') return undefined;
    // An exit names its process by pid and start only: it matters for a recorded exec alone.
    if (call.kind === 'exit')
      return typeof call.status === 'number' && typeof call.t === 'number'
        ? { ...exitCall, t: call.t, pid: call.pid, start: call.start, status: call.status }
        : undefined;
    // Only the agent's side: its namespace (commands nsenter'd there, the session, their children).
    if (this.agentPidNs !== null && call.pidns !== this.agentPidNs) return undefined;
    return {
      kind: call.kind,
      t: typeof call.t === 'number' ? call.t : Date.now() / 1000,
      pid: call.pid,
      ppid: typeof call.ppid === 'number' ? call.ppid : 0,
      start: call.start,
      uid: typeof call.uid === 'number' ? call.uid : -1,
      uid_inside:
        typeof call.uid_inside === 'number'
          ? call.uid_inside
          : typeof call.uid === 'number'
            ? call.uid
            : -1,
      cwd: typeof call.cwd === 'string' ? call.cwd : null,
      ...(Array.isArray(call.argv)
        ? { argv: call.argv.filter((part): part is string => typeof part === 'string') }
        : {}),
      ...(typeof call.file === 'string' ? { file: call.file } : {}),
      ...(typeof call.address === 'string' ? { address: call.address } : {}),
      ...(typeof call.port === 'number' ? { port: call.port } : {}),
      ...(typeof call.protocol === 'string' ? { protocol: call.protocol } : {}),
    };
  }
}
