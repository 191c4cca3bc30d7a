import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

/** Per-desktop resource limits. */
export interface ResourceLimits {
  /** Memory of every process inside plus its tmpfs pages, in MiB. */
  readonly memoryMb: number;
  /** Processes and threads inside. */
  readonly pids: number;
  /** CPU time, in cores (1.5 = one and a half cores' worth per period). */
  readonly cpus: number;
}

/** The defaults: 4 GiB, 512 tasks, every core but half a core (at least half a core). */
export function defaultResourceLimits(): ResourceLimits {
  return { memoryMb: 4096, pids: 512, cpus: Math.max(0.5, availableParallelism() - 0.5) };
}

/** What one sandbox's limits are enforced by, and its counters. */
export interface SandboxLimits {
  /** e.g. `cgroup v1 (memory, pids, cpu)` or `RLIMIT_NPROC only`. */
  readonly mechanism: string;
  /** Wraps the sandbox command so that the limits apply from its first instruction on. */
  wrap(command: string, args: readonly string[]): [string, string[]];
  /** Counters for diagnostics (undefined when the mechanism has none). */
  usage(): LimitUsage;
  /**
   * The desktop's CPU weight against the others when cores are contended: `background` for a warm
   * spare (it starts beside a running desktop), `normal` otherwise. False when the mechanism has no
   * CPU weight (the spare then starts at the same weight).
   */
  setCpuWeight(weight: CpuWeight): Promise<boolean>;
  /** Kills whatever is left inside and removes the cgroups. Idempotent. */
  remove(): Promise<void>;
}

/** A desktop's share of contended CPU: a warm spare starts in the background. */
export type CpuWeight = 'normal' | 'background';
// cgroup v1 cpu.shares (kernel default 1024) and v2 cpu.weight (default 100): a spare gets an eighth.
const V1_SHARES: Record<CpuWeight, string> = { normal: '1024', background: '128' };
const V2_WEIGHT: Record<CpuWeight, string> = { normal: '100', background: '12' };

const writeWeight = async (file: string, value: string): Promise<boolean> =>
  writeFile(file, value).then(
    () => true,
    () => false,
  );

/** Counters of a sandbox's cgroup. */
export interface LimitUsage {
  readonly memoryPeakBytes?: number;
  readonly memoryLimitHits?: number;
  readonly oomKills?: number;
  readonly pidsCurrent?: number;
  readonly pidsRejected?: number;
  /** Periods in which the CPU quota stopped the desktop. */
  readonly cpuThrottledPeriods?: number;
}

const cgroupName = (name: string) => `osharm-vm-local-${name}`;

/** /proc/self/cgroup as controller → path (v1) and '' → path (v2). */
function ownCgroups(): Map<string, string> {
  const result = new Map<string, string>();
  let text: string;
  try {
    text = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return result;
  }
  for (const line of text.split('\n')) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    const [, controllers = '', path = '/'] = match;
    if (controllers === '') result.set('', path);
    for (const controller of controllers.split(',')) if (controller) result.set(controller, path);
  }
  return result;
}

/** The v1 hierarchy directory holding `controller` (e.g. /sys/fs/cgroup/cpu,cpuacct). */
function v1Mount(controller: string): string | undefined {
  let mounts: string;
  try {
    mounts = readFileSync('/proc/self/mounts', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of mounts.split('\n')) {
    const [, mountPoint, type, options = ''] = line.split(' ');
    if (type === 'cgroup' && mountPoint && options.split(',').includes(controller))
      return mountPoint;
  }
  return undefined;
}

/** The cgroup v2 mount point, when one is mounted. */
function v2Mount(): string | undefined {
  let mounts: string;
  try {
    mounts = readFileSync('/proc/self/mounts', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of mounts.split('\n')) {
    const [, mountPoint, type] = line.split(' ');
    if (type === 'cgroup2' && mountPoint) return mountPoint;
  }
  return undefined;
}

function readNumber(path: string): number | undefined {
  try {
    const value = Number(readFileSync(path, 'utf8').trim());
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A `key value` line of a cgroup stats file. */
function readKey(path: string, key: string): number | undefined {
  try {
    const line = readFileSync(path, 'utf8')
      .split('\n')
      .find(entry => entry.startsWith(`${key} `));
    return line ? Number(line.split(' ')[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Kills every process in the cgroup directories, then removes them (retrying while they exit). */
async function removeCgroupDirs(directories: readonly string[]): Promise<void> {
  for (const directory of directories) {
    for (let attempt = 0; attempt < 400; attempt += 1) {
      if (!existsSync(directory)) break;
      const procs = await readFile(join(directory, 'cgroup.procs'), 'utf8').catch(() => '');
      for (const pid of procs.split('\n').filter(Boolean)) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // already gone
        }
      }
      try {
        await rmdir(directory);
        break;
      } catch {
        await new Promise(resolve => setTimeout(resolve, 5));
      }
    }
  }
}

/** The launcher: join every cgroup (write own pid into each cgroup.procs), then exec the command. */
function joinAndExec(procsFiles: readonly string[], command: string, args: readonly string[]) {
  const script =
    'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done; exec "$@"';
  return [
    '/bin/sh',
    [
      '-c',
      script,
      'osharm-join-cgroup',
      String(procsFiles.length),
      ...procsFiles,
      command,
      ...args,
    ],
  ] as [string, string[]];
}

async function tryV1(name: string, limits: ResourceLimits): Promise<SandboxLimits | undefined> {
  const own = ownCgroups();
  const directories: Record<string, string> = {};
  const created: string[] = [];
  try {
    for (const controller of ['memory', 'pids', 'cpu']) {
      const mount = v1Mount(controller);
      if (!mount) return undefined;
      const directory = join(mount, own.get(controller) ?? '/', cgroupName(name));
      await mkdir(directory);
      created.push(directory);
      directories[controller] = directory;
    }
    const memory = directories.memory as string;
    const bytes = String(limits.memoryMb * 1024 * 1024);
    await writeFile(join(memory, 'memory.limit_in_bytes'), bytes);
    // With swap, bound memory + swap too (the file exists only when swap accounting is on).
    if (existsSync(join(memory, 'memory.memsw.limit_in_bytes')))
      await writeFile(join(memory, 'memory.memsw.limit_in_bytes'), bytes);
    await writeFile(join(directories.pids as string, 'pids.max'), String(limits.pids));
    const period = 100_000;
    await writeFile(join(directories.cpu as string, 'cpu.cfs_period_us'), String(period));
    await writeFile(
      join(directories.cpu as string, 'cpu.cfs_quota_us'),
      String(Math.max(1000, Math.round(limits.cpus * period))),
    );
  } catch {
    await removeCgroupDirs(created);
    return undefined;
  }
  const procsFiles = created.map(directory => join(directory, 'cgroup.procs'));
  let removed: Promise<void> | undefined;
  return {
    mechanism: 'cgroup v1 (memory, pids, cpu)',
    wrap: (command, args) => joinAndExec(procsFiles, command, args),
    usage: () => ({
      memoryPeakBytes: readNumber(join(directories.memory as string, 'memory.max_usage_in_bytes')),
      memoryLimitHits: readNumber(join(directories.memory as string, 'memory.failcnt')),
      oomKills: readKey(join(directories.memory as string, 'memory.oom_control'), 'oom_kill'),
      pidsCurrent: readNumber(join(directories.pids as string, 'pids.current')),
      pidsRejected: readKey(join(directories.pids as string, 'pids.events'), 'max'),
      cpuThrottledPeriods: readKey(join(directories.cpu as string, 'cpu.stat'), 'nr_throttled'),
    }),
    setCpuWeight: weight =>
      writeWeight(join(directories.cpu as string, 'cpu.shares'), V1_SHARES[weight]),
    remove: () => (removed ??= removeCgroupDirs(created)),
  };
}

async function tryV2(name: string, limits: ResourceLimits): Promise<SandboxLimits | undefined> {
  const mount = v2Mount();
  const own = ownCgroups().get('');
  if (!mount || own === undefined) return undefined;
  const parent = join(mount, own);
  let enabled: string[];
  try {
    enabled = (await readFile(join(parent, 'cgroup.subtree_control'), 'utf8')).trim().split(' ');
  } catch {
    return undefined;
  }
  // Only where the controllers are delegated to our cgroup's children already.
  if (!enabled.includes('memory') || !enabled.includes('pids')) return undefined;
  const directory = join(parent, cgroupName(name));
  try {
    await mkdir(directory);
    await writeFile(join(directory, 'memory.max'), String(limits.memoryMb * 1024 * 1024));
    if (existsSync(join(directory, 'memory.swap.max')))
      await writeFile(join(directory, 'memory.swap.max'), '0');
    await writeFile(join(directory, 'pids.max'), String(limits.pids));
    if (enabled.includes('cpu'))
      await writeFile(
        join(directory, 'cpu.max'),
        `${Math.max(1000, Math.round(limits.cpus * 100_000))} 100000`,
      );
  } catch {
    await removeCgroupDirs([directory]);
    return undefined;
  }
  const procsFiles = [join(directory, 'cgroup.procs')];
  let removed: Promise<void> | undefined;
  return {
    mechanism: `cgroup v2 (memory, pids${enabled.includes('cpu') ? ', cpu' : ''})`,
    wrap: (command, args) => joinAndExec(procsFiles, command, args),
    usage: () => ({
      memoryPeakBytes: readNumber(join(directory, 'memory.peak')),
      memoryLimitHits: readKey(join(directory, 'memory.events'), 'max'),
      oomKills: readKey(join(directory, 'memory.events'), 'oom_kill'),
      pidsCurrent: readNumber(join(directory, 'pids.current')),
      pidsRejected: readKey(join(directory, 'pids.events'), 'max'),
      cpuThrottledPeriods: readKey(join(directory, 'cpu.stat'), 'nr_throttled'),
    }),
    setCpuWeight: async weight =>
      enabled.includes('cpu') && writeWeight(join(directory, 'cpu.weight'), V2_WEIGHT[weight]),
    remove: () => (removed ??= removeCgroupDirs([directory])),
  };
}

/**
 * Sets up the limits of one sandbox: a cgroup per desktop (cgroup v1 memory + pids + cpu below
 * the harness's own cgroups, or a delegated cgroup v2 subtree), else `prlimit --nproc` as the
 * floor (per host uid: every desktop of that uid together), with a log line saying so.
 */
export async function createSandboxLimits(
  name: string,
  limits: ResourceLimits,
  onLog?: (line: string) => void,
): Promise<SandboxLimits> {
  const cgroup = (await tryV1(name, limits)) ?? (await tryV2(name, limits));
  if (cgroup) return cgroup;
  onLog?.(
    `osharm vm-local: no writable cgroup (v1 memory/pids/cpu, or a delegated v2 subtree); only RLIMIT_NPROC=${limits.pids} applies, memory and CPU are not limited. Run the harness in a systemd scope with Delegate=yes, or as root on a host with cgroups, to get them.`,
  );
  return {
    mechanism: 'RLIMIT_NPROC only',
    wrap: (command, args) => [
      'prlimit',
      [`--nproc=${limits.pids}:${limits.pids}`, '--', command, ...args],
    ],
    usage: () => ({}),
    setCpuWeight: async () => false,
    remove: async () => {},
  };
}

/** Removes the cgroups of sandboxes whose state directories were reaped. */
export async function removeStaleCgroups(names: readonly string[]): Promise<void> {
  const own = ownCgroups();
  const directories: string[] = [];
  for (const name of names) {
    for (const controller of ['memory', 'pids', 'cpu']) {
      const mount = v1Mount(controller);
      if (mount) directories.push(join(mount, own.get(controller) ?? '/', cgroupName(name)));
    }
    const mount = v2Mount();
    const path = own.get('');
    if (mount && path !== undefined) directories.push(join(mount, path, cgroupName(name)));
  }
  await removeCgroupDirs(directories.filter(directory => existsSync(directory)));
}
