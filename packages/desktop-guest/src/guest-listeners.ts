import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

// Which process listens on a bridged port (CDP 9222, VLC 8080), and whether the harness may talk
// to it (docs/packages/vm-local.md, "What remains"): the agent shares the desktop's network namespace, so
// a listener it starts on such a port would answer the setup steps and evaluators that read
// Chromium or VLC. The guest server sees every process of the desktop (the agent's pid namespace is
// a child of its own) and allows a listener that was already there when the agent's first step
// began (the harm observer's baseline), or that a harness launch (`/setup/launch`,
// `/setup/open_file`) started, directly or through its children.

/** 127.0.0.1, 0.0.0.0, ::, ::1 and ::ffff:127.0.0.1 as /proc/net/tcp{,6} print them. */
const localAddresses = /^(0100007F|00000000|0{32}|0{24}01000000|0{16}FFFF00000100007F)$/;

/** The socket inodes listening on 127.0.0.1, 0.0.0.0, ::1 or :: at `port`. */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [address, portHex] = (fields[1] ?? '').split(':');
      // state 0A: LISTEN; the address any local one (a listener on another address is not reached)
      if (fields[3] !== '0A' || portHex !== hexPort || !address) continue;
      if (!localAddresses.test(address)) continue;
      if (fields[9]) inodes.add(fields[9]);
    }
  }
  return inodes;
}

/** The pid holding one of `inodes` open (the first found), or undefined. */
function socketOwner(inodes: ReadonlySet<string>): number | undefined {
  if (inodes.size === 0) return undefined;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const target = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${entry}/fd/${fd}`));
        if (target?.[1] && inodes.has(target[1])) return Number(entry);
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}

function parentOf(pid: number): number | undefined {
  try {
    const match = /^PPid:\s*(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 200);
  } catch {
    return '?';
  }
}

/** The local port a socat listener forwards to (`tcp:localhost:1337`), if `pid` is one. */
function forwardPort(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  let argv: string[];
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
  if (!/(^|\/)socat$/.test(argv[0] ?? '')) return undefined;
  for (const arg of argv.slice(1)) {
    const match = /^tcp[46]?(?:-connect)?:(?:localhost|127\.0\.0\.1|\[::1\]):(\d+)/i.exec(arg);
    if (match?.[1]) return Number(match[1]);
  }
  return undefined;
}

/** Decides whether a bridge may connect to the listener on a port (see the file's comment). */
export class ListenerGuard {
  private readonly launched = new Set<number>();
  /** Per port: the listeners at the agent's first step, and the port their socat forwards to. */
  private baseline: Map<number, { inodes: Set<string>; forward: number | undefined }> | undefined;

  constructor(private readonly ports: readonly number[]) {}

  /** A process a harness launch started (its descendants count as the harness's too). */
  launchedByHarness(pid: number | undefined): void {
    if (pid !== undefined) this.launched.add(pid);
  }

  /**
   * The agent's first step begins: the listeners there now are the harness's, and so are those
   * behind a socat among them (upstream's chrome tasks bridge 9222 with socat to Chrome's 1337).
   */
  snapshot(): void {
    const baseline = new Map<number, { inodes: Set<string>; forward: number | undefined }>();
    const pending = [...this.ports];
    for (let port = pending.shift(); port !== undefined; port = pending.shift()) {
      if (baseline.has(port)) continue;
      const inodes = listeningInodes(port);
      const forward = forwardPort(socketOwner(inodes));
      baseline.set(port, { inodes, forward });
      if (forward !== undefined) pending.push(forward);
    }
    this.baseline = baseline;
  }

  /**
   * Whether a bridge may connect to `port` now; `why` names the listener when not. Behind a socat
   * that forwards to another local port (upstream's `socat tcp-listen:9222,fork tcp:localhost:1337`),
   * that port's listener must pass too. A listener known from the baseline costs no process scan.
   */
  check(
    port: number,
    depth = 0,
  ): { readonly ok: true } | { readonly ok: false; readonly why: string } {
    if (!this.baseline) return { ok: true }; // the agent has not acted yet
    const inodes = listeningInodes(port);
    if (inodes.size === 0) return { ok: true }; // nothing listens: the connection fails as it would
    const known = this.baseline.get(port);
    let forward: number | undefined;
    if (known && [...inodes].every(inode => known.inodes.has(inode))) {
      forward = known.forward;
    } else {
      const owner = socketOwner(inodes);
      if (owner === undefined)
        return {
          ok: false,
          why: `the listener on port ${port} is new and its process is not visible`,
        };
      if (!this.descendsFromLaunch(owner))
        return {
          ok: false,
          why: `the listener on port ${port} (pid ${owner}: ${commandOf(owner)}) was started after the agent's first step, not by a setup launch`,
        };
      forward = forwardPort(owner);
    }
    if (forward === undefined || forward === port || depth >= 2) return { ok: true };
    const behind = this.check(forward, depth + 1);
    return behind.ok ? behind : { ok: false, why: `behind socat on port ${port}: ${behind.why}` };
  }

  private descendsFromLaunch(owner: number): boolean {
    for (let pid: number | undefined = owner, hops = 0; pid && hops < 64; hops++) {
      if (this.launched.has(pid)) return true;
      pid = parentOf(pid);
    }
    return false;
  }
}
