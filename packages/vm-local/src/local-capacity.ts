import { readFileSync } from 'node:fs';
import { availableParallelism, freemem } from 'node:os';

/**
 * Memory one local desktop is planned at, in MiB: a desktop with an office document open and the
 * recorder at its defaults peaked at 600–800 MiB here (docs/benchmarks.md), so 1 GiB leaves room.
 */
export const DESKTOP_MEMORY_BUDGET_MB = 1024;

/**
 * Whether the local provider keeps a warm spare: `value` when given, else on unless the
 * environment's `OSHARM_WARM_SPARE` is `0` (the test suites turn it off: scripts/test.sh).
 */
export function warmSpareSetting(
  value: boolean | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  return value ?? env.OSHARM_WARM_SPARE !== '0';
}

/** How many local desktops this machine holds, and why. */
export interface DesktopCapacity {
  /** The suggested number of desktops in parallel: min(cores, memory slots), at least 1. */
  readonly suggested: number;
  readonly cores: number;
  /** Memory available for new work (MemAvailable), in MiB. */
  readonly availableMemoryMb: number;
  /**
   * Environments that fit in the available memory at {@link DESKTOP_MEMORY_BUDGET_MB} per desktop
   * (two per environment with the local provider's warm spare).
   */
  readonly memorySlots: number;
  /** Memory one environment is planned at: one desktop, or two with the warm spare. */
  readonly memoryPerEnvMb: number;
}

/** MemAvailable from /proc/meminfo (free memory plus reclaimable cache), else os.freemem(). */
export function availableMemoryMb(meminfo?: string): number {
  let text = meminfo;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/meminfo', 'utf8');
    } catch {
      text = '';
    }
  }
  const match = /^MemAvailable:\s+(\d+)\s+kB/m.exec(text);
  return match ? Math.floor(Number(match[1]) / 1024) : Math.floor(freemem() / 1024 / 1024);
}

/**
 * The machine's capacity for local desktops (inputs overridable for tests). `warmSpare` (as the
 * local provider's setting: {@link warmSpareSetting}) plans each environment at two desktops: the
 * one a run uses and the spare started ahead for the next.
 */
export function localDesktopCapacity(
  machine: {
    readonly cores?: number;
    readonly availableMemoryMb?: number;
    readonly budgetMb?: number;
    readonly warmSpare?: boolean;
  } = {},
): DesktopCapacity {
  const cores = Math.max(1, machine.cores ?? availableParallelism());
  const memory = Math.max(0, machine.availableMemoryMb ?? availableMemoryMb());
  const memoryPerEnvMb =
    (machine.budgetMb ?? DESKTOP_MEMORY_BUDGET_MB) * (warmSpareSetting(machine.warmSpare) ? 2 : 1);
  const memorySlots = Math.floor(memory / memoryPerEnvMb);
  return {
    suggested: Math.max(1, Math.min(cores, memorySlots)),
    cores,
    availableMemoryMb: memory,
    memorySlots,
    memoryPerEnvMb,
  };
}

/**
 * A warning when `requested` desktops exceed what the machine holds (more than its memory slots,
 * or more than two per core: the desktops then wait for the CPU and observations come late), or
 * undefined when they fit.
 */
export function capacityWarning(requested: number, capacity: DesktopCapacity): string | undefined {
  const problems: string[] = [];
  if (requested > capacity.memorySlots) {
    problems.push(
      `${capacity.availableMemoryMb} MiB available holds ${capacity.memorySlots} at ${capacity.memoryPerEnvMb} MiB each` +
        (capacity.memoryPerEnvMb > DESKTOP_MEMORY_BUDGET_MB
          ? ' (a desktop and its warm spare)'
          : ''),
    );
  }
  if (requested > capacity.cores * 2) {
    problems.push(
      `${capacity.cores} core(s) run at most ${capacity.cores * 2} without starving them`,
    );
  }
  if (problems.length === 0) return undefined;
  return `${requested} local desktops exceed this machine (${problems.join('; ')}): expect late or truncated observations and setup failures; suggested: --num-envs ${capacity.suggested}`;
}
