import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { HttpError, readJson, sendJson, type GuestContext, type Routes } from './guest-http';
import {
  diffSnapshots,
  takeSnapshot,
  type FileChange,
  type FileSnapshot,
  type WatchRoot,
} from './guest-harm-files';
import { ProcessWatch, type ObservedProcess } from './guest-harm-procs';
import { ConnectionWatch, type ObservedConnection } from './guest-harm-net';
import { egressProblem, routeText } from './guest-net-tables';
import type { DnsRecorder, ObservedLookup } from './guest-dns';
import type { SpawnRecord } from './guest-process';
import { ExecWatchReader } from './guest-exec-watch';
import { credentialFiles, ReadWatch, SENSITIVE_READS, withReads } from './guest-harm-reads';

// The harm observer's guest side: `POST /harm/baseline` before the agent's first step, `POST
// /harm/mark {"step": N}` after each action of step N. Each mark answers what changed since the
// previous one (files, processes, sudo / su invocations, name lookups, connections); the host turns that into
// observed_harm.json (@osharm/harm). It runs inside the guest server, on the harness's side.

/** The guest observer's record of one interval (baseline → mark, or mark → mark). */
interface HarmMark {
  readonly version: 1;
  readonly step: number;
  readonly time: string;
  readonly files: readonly FileChange[];
  readonly processes: readonly ObservedProcess[];
  readonly sudo: readonly Record<string, unknown>[];
  /** Names looked up through the desktop's nameserver (guest-dns.ts). */
  readonly lookups: readonly ObservedLookup[];
  /** Sockets to addresses outside loopback, with their owner (guest-harm-net.ts). */
  readonly connections: readonly ObservedConnection[];
  /** Why this interval's record may be incomplete (empty: complete as far as the observer knows). */
  readonly degraded: readonly string[];
  /** What the observer watches (for the record's reader). */
  readonly coverage: {
    readonly roots: readonly string[];
    readonly process_poll_ms: number;
    readonly snapshot_ms: number;
    readonly entries: number;
    /** The recording nameserver's address; null when lookups are not recorded. */
    readonly nameserver: string | null;
    /** The interfaces of the default routes connection attempts wait on; null: none (not seen). */
    readonly connections: string | null;
    /** The exec and connection watch (guest/exec_watch.py): `seccomp (agent, server)`, partial, or null: not running. */
    readonly exec_watch: string | null;
    /** How credential-store reads are seen: `inotify (…)` (every read, no pid) or `atime only (…)`. */
    readonly reads: string;
  };
}

const maxEntries = 200_000;
const maxProcesses = 20_000;
const pollMs = 100;
const cacheNames = [
  '.cache',
  'Cache',
  'Code Cache',
  'GPUCache',
  'GrShaderCache',
  'ShaderCache',
  'cache2',
  'Crashpad',
  'Service Worker',
];
/**
 * Files of the root namespace's /etc that sudo's setup itself writes or leaves out (guest/sudo/
 * root-ns.sh: never the agent's change).
 */
const rootEtcOwn = [
  'shadow',
  'gshadow',
  'sudoers',
  'sudoers.d',
  'ssh',
  'passwd-',
  'group-',
  'shadow-',
  'gshadow-',
  'subuid-',
  'subgid-',
  '.pwd.lock',
];

/**
 * The root holder's pid as this server sees it. sudo writes the pid of its own pid namespace (the
 * agent's, a child of this one): the process is the one whose innermost pid is that number and whose
 * user namespace is the one recorded beside it.
 */
function rootHolder(pid: string, ns: string): string | undefined {
  const matches = (candidate: string) => {
    try {
      return readlinkSync(`/proc/${candidate}/ns/user`) === ns;
    } catch {
      return false;
    }
  };
  if (matches(pid)) return pid;
  for (const candidate of readdirSync('/proc')) {
    if (!/^\d+$/.test(candidate) || !matches(candidate)) continue;
    try {
      const nspid = /^NSpid:\s*(.*)$/m.exec(readFileSync(`/proc/${candidate}/status`, 'utf8'));
      if (nspid?.[1]?.trim().split(/\s+/).at(-1) === pid) return candidate;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** The watched trees; /etc as sudo's root sees it when the root namespace exists. */
function watchRoots(home: string, state: string): WatchRoot[] {
  let etc = '/etc';
  try {
    const [pid, ns] = readFileSync(`${state}/root/holder.pid`, 'utf8').trim().split(/\s+/);
    const holder = pid && ns ? rootHolder(pid, ns) : undefined;
    if (holder) etc = `/proc/${holder}/root/etc`;
  } catch {
    // no root namespace yet: /etc is the sandbox's
  }
  const roots: WatchRoot[] = [
    { path: home, shown: home, skip: cacheNames, reads: SENSITIVE_READS },
    { path: etc, shown: '/etc', depth: 1, hashAll: true, filesOnly: true, skip: rootEtcOwn },
  ];
  if (existsSync('/var/spool')) roots.push({ path: '/var/spool', shown: '/var/spool' });
  return roots;
}

/** Reads the lines the sudo / su stand-ins appended to their log since `offset`. */
async function readSudoLog(path: string, offset: number) {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return { entries: [], offset, problem: undefined };
  try {
    const size = (await handle.stat()).size;
    if (size < offset)
      return {
        entries: [],
        offset: size,
        problem: 'the sudo log shrank (rewritten inside the desktop)',
      };
    const length = Math.min(size - offset, 1024 * 1024);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, offset);
    const text = buffer.toString('utf8');
    const end = text.lastIndexOf('\n') + 1;
    const entries: Record<string, unknown>[] = [];
    for (const line of text.slice(0, end).split('\n')) {
      if (!line.trim()) continue;
      try {
        const entry: unknown = JSON.parse(line);
        if (entry && typeof entry === 'object') entries.push(entry as Record<string, unknown>);
      } catch {
        // a line the agent forged or cut: skipped (the process record still has the call)
      }
    }
    return { entries, offset: offset + Buffer.byteLength(text.slice(0, end)), problem: undefined };
  } finally {
    await handle.close();
  }
}

/**
 * The observer of one desktop: routes `/harm/baseline` and `/harm/mark`, and `spawned`, to be told
 * of each process the server starts for the agent (recorded from the baseline on).
 */
export function harmObserver(
  context: Pick<GuestContext, 'home' | 'log' | 'listeners' | 'agent'> & {
    /** What the record log could not keep (guest-record-log.ts). */
    readonly recordProblems?: () => readonly string[];
    /** The desktop's recording nameserver (undefined: lookups are not recorded). */
    readonly dns?: DnsRecorder;
    /**
     * The sink link the provider adds (desktop-net.ts): without its default routes
     * the record is degraded. Undefined: none promised (the limit is a coverage note).
     */
    readonly egressSink?: string;
  },
  recordDir?: string,
  stateDir = '/run/osharm',
): { readonly routes: Routes; readonly spawned: SpawnRecord } {
  const sudoLog = `${recordDir ?? stateDir}/sudo.log`;
  let previous: FileSnapshot | undefined;
  let watch: ProcessWatch | undefined;
  let sockets: ConnectionWatch | undefined;
  let socketTimer: NodeJS.Timeout | undefined;
  let routed = false;
  let sudoOffset = 0;
  let lastStep = 0;
  let dnsDropped = 0;
  const dns = context.dns;
  const nameserver = () => (dns && !dns.problem ? dns.address : null);
  const serverPid = process.pid;
  // The exec and connection watch (guest/exec_watch.py), when the desktop's start ran it.
  const watchRecord = process.env.OSHARM_EXEC_WATCH_RECORD;
  const execWatch = watchRecord ? new ExecWatchReader(watchRecord, context.agent?.pid) : undefined;
  const readWatch = new ReadWatch();
  // The guest server's own children (helpers, recorder) are the harness, not the agent.
  const ownChild = (pid: number) => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      return Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) === serverPid && !isExecChild(pid);
    } catch {
      return false;
    }
  };

  const baseline = async (): Promise<HarmMark> => {
    const started = performance.now();
    watch?.stop();
    clearInterval(socketTimer);
    const net = new ConnectionWatch({ exclude: ownChild });
    net.begin();
    watch = new ProcessWatch(
      pollMs,
      maxProcesses,
      ownChild,
      execWatch && { read: () => execWatch.read(), onConnect: call => net.attempted(call) },
    );
    watch.start();
    sockets = net;
    socketTimer = setInterval(() => net.poll(), pollMs).unref();
    const egress = egressProblem(context.egressSink);
    routed = egress === undefined;
    const roots = watchRoots(context.home, stateDir);
    previous = await takeSnapshot(roots, maxEntries);
    await readWatch.start(context.home, credentialFiles(previous, context.home, SENSITIVE_READS));
    sudoOffset = existsSync(sudoLog) ? statSync(sudoLog).size : 0;
    lastStep = 0;
    // Bound at the server's start; settled (bound or given up) before the agent's first step.
    await dns?.ready;
    dns?.begin();
    dnsDropped = dns?.dropped ?? 0;
    const degraded = previous.truncated ? [`the baseline stopped at ${maxEntries} paths`] : [];
    if (dns?.problem) degraded.push(`name lookups are not recorded: ${dns.problem}`);
    if (!context.agent) degraded.push(noAgentNamespace);
    if (egress) degraded.push(egress);
    return {
      version: 1,
      step: 0,
      time: new Date().toISOString(),
      files: [],
      processes: [],
      sudo: [],
      lookups: [],
      connections: [],
      degraded,
      coverage: {
        roots: roots.map(root => root.shown),
        process_poll_ms: pollMs,
        snapshot_ms: Math.round(performance.now() - started),
        entries: previous.entries.size,
        nameserver: nameserver(),
        connections: routeText(),
        exec_watch: execWatch?.state() ?? null,
        reads: readWatch.state(),
      },
    };
  };

  const mark = async (step: number): Promise<HarmMark> => {
    if (!previous || !watch)
      throw new HttpError(409, {
        status: 'error',
        message: 'no baseline: POST /harm/baseline first',
      });
    if (step < lastStep)
      throw new HttpError(400, {
        status: 'error',
        message: `step ${step} is before step ${lastStep}`,
      });
    const started = performance.now();
    const processes = watch.take();
    const lookups = dns && !dns.problem ? dns.take() : [];
    const connections = sockets?.take() ?? [];
    const roots = watchRoots(context.home, stateDir);
    const now = await takeSnapshot(roots, maxEntries);
    const watchedReads = await readWatch.take();
    const files = withReads(await diffSnapshots(previous, now, roots), watchedReads.reads);
    const degraded: string[] = [];
    if (watchedReads.degraded) degraded.push(watchedReads.degraded);
    // Hashing a changed credential file is the observer's own read: dropped from the watch.
    if (files.some(each => each.change !== 'read' && readWatch.follows(each.path)))
      await readWatch.take();
    if (now.truncated)
      degraded.push(`the snapshot stopped at ${maxEntries} paths: changes past it are not seen`);
    if (watch.dropped > 0)
      degraded.push(`${watch.dropped} process(es) not recorded: the record is full`);
    const sudo = await readSudoLog(sudoLog, sudoOffset);
    sudoOffset = sudo.offset;
    if (sudo.problem) degraded.push(sudo.problem);
    degraded.push(...(context.recordProblems?.() ?? []));
    if (dns && dns.dropped > dnsDropped) {
      degraded.push(`${dns.dropped - dnsDropped} name lookup(s) not recorded: the record is full`);
      dnsDropped = dns.dropped;
    }
    if (sockets?.full) degraded.push('connections past 10000 not recorded: the record is full');
    const watchProblems = execWatch?.installProblems() ?? [];
    const dropped = watchProblems.find(problem => problem.includes('not recorded'));
    if (dropped) degraded.push(`the exec watch: ${dropped}`);
    const egress = routed ? egressProblem(context.egressSink) : undefined;
    if (egress) {
      routed = false;
      degraded.push(egress);
    }
    previous = now;
    lastStep = step;
    return {
      version: 1,
      step,
      time: new Date().toISOString(),
      files,
      processes,
      sudo: sudo.entries,
      lookups,
      connections,
      degraded,
      coverage: {
        roots: roots.map(root => root.shown),
        process_poll_ms: pollMs,
        snapshot_ms: Math.round(performance.now() - started),
        entries: now.entries.size,
        nameserver: nameserver(),
        connections: routeText(),
        exec_watch: execWatch?.state(watchProblems) ?? null,
        reads: readWatch.state(),
      },
    };
  };

  const spawned: SpawnRecord = (pid, argv, cwd) => watch?.started(pid, argv, cwd);
  const routes: Routes = {
    '/harm/baseline': {
      methods: ['POST'],
      handle: async (request, response) => {
        request.resume();
        context.listeners?.snapshot();
        sendJson(response, 200, await baseline());
      },
    },
    '/harm/mark': {
      methods: ['POST'],
      handle: async (request, response) => {
        const body = await readJson(request);
        const step = body.step;
        if (typeof step !== 'number' || !Number.isInteger(step) || step < 1) {
          throw new HttpError(400, { status: 'error', message: 'step: expected an integer ≥ 1' });
        }
        sendJson(response, 200, await mark(step));
      },
    },
  };
  return { routes, spawned };
}

/** Why a record made without the agent's namespace cannot be trusted to be complete. */
const noAgentNamespace =
  "the agent's actions ran in the observer's own namespaces (the desktop could not make the agent's namespace: guest/agent-ns.sh): the agent could have signalled, ptraced or stopped the observer";

/** A child of the guest server running a command for `/execute` (the agent's action): recorded. */
function isExecChild(pid: number): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return !argv.some(part => part.endsWith('desktop_helper.py')) && !argv[0]?.endsWith('ffmpeg');
  } catch {
    return false;
  }
}
