import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { WatchedCall } from './guest-exec-watch';

// The process half of the harm observer (guest side): records each command the server starts for
// the agent as it starts (`started`), and polls /proc for the processes that appeared since the
// baseline. Polling misses a process that starts and ends between two polls (the interval is
// given in the record); it sees every longer-lived one with argv, cwd and uid.

/** A process seen by the observer. */
export interface ObservedProcess {
  readonly pid: number;
  readonly ppid: number;
  readonly argv: readonly string[];
  readonly cwd: string | null;
  /** The uid in the sandbox's user namespace. */
  readonly uid: number;
  /** The uid as the process itself sees it: 0 for sudo's root (a nested user namespace). */
  readonly uid_inside: number;
  /** ISO time of the poll that first saw it. */
  readonly seen: string;
  /** ISO time of the poll that first missed it; null while it runs. */
  ended: string | null;
  /**
   * The exit status (minus the signal number when killed): known for a command the server ran to
   * completion and, with the C exec watch on Linux 6.15+, for a watched program once reaped; else null.
   */
  exit: number | null;
}

const argvCap = 64;
const argCapChars = 2048;

function readProcess(
  pid: number,
  myUserNs: string | null,
): Omit<ObservedProcess, 'seen' | 'ended' | 'exit'> | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1] ?? -1);
    const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    const argv = raw
      .split('\0')
      .filter((part, index, all) => index < all.length - 1 || part !== '')
      .slice(0, argvCap)
      .map(part => part.slice(0, argCapChars));
    let cwd: string | null = null;
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      cwd = null;
    }
    let uidInside = uid;
    try {
      if (readlinkSync(`/proc/${pid}/ns/user`) !== myUserNs) {
        for (const line of readFileSync(`/proc/${pid}/uid_map`, 'utf8').trim().split('\n')) {
          const [inside, outside, count] = line.trim().split(/\s+/).map(Number);
          if (uid >= outside! && uid < outside! + count!) uidInside = uid - outside! + inside!;
        }
      }
    } catch {
      // a process that exited meanwhile or one the observer may not inspect keeps its uid
    }
    return { pid, ppid, argv, cwd, uid, uid_inside: uidInside };
  } catch {
    return undefined;
  }
}

function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function isNsenter(argv: readonly string[]): boolean {
  return argv[0] === '/usr/bin/nsenter';
}

function listPids(): number[] {
  return readdirSync('/proc')
    .filter(name => /^\d+$/.test(name))
    .map(Number);
}

/** Polls /proc; `take()` hands over the processes seen since the last call. */
export class ProcessWatch {
  private readonly known = new Map<string, ObservedProcess | null>();
  private readonly running = new Map<number, string>();
  /** Processes the server started for the agent (pid → argv joined by NUL). */
  private readonly launched = new Map<number, string>();
  private fresh: ObservedProcess[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly myUserNs: string | null;
  /** Processes not recorded because the record was full. */
  dropped = 0;
  private records = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly maxRecords: number,
    private readonly exclude: (pid: number) => boolean,
    /** The exec watch's calls (guest-exec-watch.ts): execs are recorded as they happened. */
    private readonly calls?: {
      read(): WatchedCall[];
      readonly onConnect: (call: WatchedCall) => void;
    },
  ) {
    let ns: string | null;
    try {
      ns = readlinkSync('/proc/self/ns/user');
    } catch {
      ns = null;
    }
    this.myUserNs = ns;
  }

  /** Marks every process alive now as pre-existing, then polls every `intervalMs`. */
  start(): void {
    this.calls?.read(); // what ran before the baseline is not the agent's doing
    for (const pid of listPids()) {
      const key = `${pid}:${startTime(pid)}`;
      this.known.set(key, null);
      this.running.set(pid, key);
    }
    this.timer = setInterval(() => this.poll(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  poll(): void {
    for (const call of this.calls?.read() ?? []) {
      if (call.kind === 'exec') this.watchedExec(call);
      else if (call.kind === 'exit') this.watchedExit(call);
      else this.calls?.onConnect(call);
    }
    const now = new Date().toISOString();
    let pids: number[];
    try {
      pids = listPids();
    } catch {
      return;
    }
    const alive = new Set<number>();
    for (const pid of pids) {
      alive.add(pid);
      const previous = this.running.get(pid);
      if (previous !== undefined) {
        this.checkExec(previous, pid, now);
        continue;
      }
      const key = `${pid}:${startTime(pid)}`;
      this.running.set(pid, key);
      if (this.known.has(key) || this.exclude(pid)) {
        this.known.set(key, null);
        continue;
      }
      const info = readProcess(pid, this.myUserNs);
      if (!info) continue;
      if (this.launchedCopy(info)) {
        this.known.set(key, null);
        continue;
      }
      if (this.records >= this.maxRecords) {
        this.dropped += 1;
        this.known.set(key, null);
        continue;
      }
      const record: ObservedProcess = { ...info, seen: now, ended: null, exit: null };
      this.known.set(key, record);
      this.fresh.push(record);
      this.records += 1;
    }
    for (const [pid, key] of this.running) {
      if (alive.has(pid)) continue;
      this.running.delete(pid);
      this.launched.delete(pid);
      const record = this.known.get(key);
      if (record && record.ended === null) record.ended = now;
    }
  }

  /** A recorded process whose argv changed since the last poll ran execve: a new record. */
  private checkExec(key: string, pid: number, now: string): void {
    const record = this.known.get(key);
    if (!record || record.ended !== null) return;
    const info = readProcess(pid, this.myUserNs);
    if (!info || info.argv.join('\0') === record.argv.join('\0')) return;
    // nsenter, started as the agent's command, waits for its child (that command) in the namespace.
    if (this.launched.has(pid) && isNsenter(info.argv)) return;
    if (this.launchedCopy(info)) return;
    if (this.records >= this.maxRecords) {
      this.dropped += 1;
      return;
    }
    record.ended = now;
    const next: ObservedProcess = { ...info, seen: now, ended: null, exit: null };
    this.known.set(key, next);
    this.fresh.push(next);
    this.records += 1;
  }

  /**
   * An execve the watch saw (before the program ran): recorded with its argv however short-lived;
   * the poll then finds the same process (pid and start time) with the same command line and adds
   * nothing. Its exit status comes with the watch's `exit` line (watchedExit), when there is one.
   */
  private watchedExec(call: WatchedCall): void {
    const key = `${call.pid}:${call.start}`;
    const argv = (call.argv ?? []).slice(0, argvCap).map(part => part.slice(0, argCapChars));
    const previous = this.known.get(key);
    if (previous === null) return; // pre-existing, excluded, or the server's own command
    if (previous && previous.argv.join('\0') === argv.join('\0')) return;
    if (this.launchedCopy({ ppid: call.ppid, argv })) return;
    // Only the server's own children are excluded (its helpers): the watch gave the parent.
    if (call.ppid === process.pid && this.exclude(call.pid)) return;
    if (this.records >= this.maxRecords) {
      this.dropped += 1;
      return;
    }
    const seen = new Date(call.t * 1000).toISOString();
    if (previous) previous.ended ??= seen;
    // No /proc read here: the watch read the process at the call; its exit line, or else the next
    // poll not finding it, ends the record.
    const record: ObservedProcess = {
      pid: call.pid,
      ppid: call.ppid,
      argv,
      cwd: call.cwd,
      uid: call.uid,
      uid_inside: call.uid_inside,
      seen,
      ended: null,
      exit: null,
    };
    this.known.set(key, record);
    this.running.set(call.pid, key);
    this.fresh.push(record);
    this.records += 1;
  }

  /** A watched program ended: its record (the last exec of that process) gets its status. */
  private watchedExit(call: WatchedCall): void {
    const record = this.known.get(`${call.pid}:${call.start}`);
    if (!record || call.status === undefined) return;
    const ended = new Date(call.t * 1000).toISOString();
    // The poll may have recorded the same image first (it saw the new command line of a process
    // that exec'd several times before the watch's lines were read): that record ends so too.
    const argv = record.argv.join('\0');
    const same = this.fresh.filter(
      other => other !== record && other.pid === call.pid && other.argv.join('\0') === argv,
    );
    for (const each of [record, ...same]) {
      if (each.exit !== null) continue;
      each.exit = call.status;
      each.ended = ended;
    }
  }

  /**
   * A process the server started for the agent (`argv` as asked; through nsenter when the agent
   * has its own namespace): recorded now, so a command that ends before the next poll is not lost.
   */
  started(
    pid: number,
    argv: readonly string[],
    cwd: string | undefined,
  ): ((status: number) => void) | undefined {
    const key = `${pid}:${startTime(pid)}`;
    if (this.known.get(key)) return undefined;
    this.running.set(pid, key);
    this.launched.set(pid, argv.join('\0'));
    if (this.records >= this.maxRecords) {
      this.dropped += 1;
      this.known.set(key, null);
      return undefined;
    }
    const info = readProcess(pid, this.myUserNs);
    const uid = info?.uid ?? process.getuid?.() ?? -1;
    const record: ObservedProcess = {
      pid,
      ppid: process.pid,
      argv: argv.slice(0, argvCap).map(part => part.slice(0, argCapChars)),
      cwd: cwd ?? info?.cwd ?? null,
      uid,
      uid_inside: info?.uid_inside ?? uid,
      seen: new Date().toISOString(),
      ended: null,
      exit: null,
    };
    this.known.set(key, record);
    this.fresh.push(record);
    this.records += 1;
    return status => {
      record.exit = status;
      record.ended ??= new Date().toISOString();
    };
  }

  /** nsenter's child running the command recorded by `started` (or still nsenter, before its exec). */
  private launchedCopy(info: { ppid: number; argv: readonly string[] }): boolean {
    const parent = this.launched.get(info.ppid);
    if (parent === undefined) return false;
    return isNsenter(info.argv) || info.argv.join('\0') === parent;
  }

  /** The processes first seen since the last call (one final poll first). */
  take(): ObservedProcess[] {
    this.poll();
    const fresh = this.fresh;
    this.fresh = [];
    return fresh;
  }
}
