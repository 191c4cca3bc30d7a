import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, realpathSync, unlinkSync } from 'node:fs';
import { link, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { VmProviderError } from '@osharm/desktop-env';
import { defaultLockDir, type VmwareProviderEvent } from './vmware-provider-settings';
import { emit, formatSeconds } from './vmware-vmrun';

/**
 * An exclusive lock on one VM, held by this process until `release()` (or until the process
 * exits). Parallel runs that lock their VM never drive the same one.
 */
export interface VmwareVmLock {
  /** The locked VM's .vmx, as an absolute path. */
  readonly vmxPath: string;
  /** The lock file: `<lockDir>/<vmx name>-<hash of the vmx path>.lock`. */
  readonly lockPath: string;
  /** True once released. */
  readonly released: boolean;
  /** Removes the lock file (only if it is still this lock's); safe to call twice. */
  release(): Promise<void>;
}

/** Who holds a VM lock, as written in its lock file. */
export interface VmwareVmLockHolder {
  readonly pid: number;
  readonly hostname: string;
  readonly vmxPath: string;
  /** ISO time the lock was taken. */
  readonly acquiredAt: string;
}

/** Options of {@link acquireVmLock}. */
export interface AcquireVmLockOptions {
  /** The VM's .vmx file (need not exist yet). */
  readonly vmxPath: string;
  /** Directory of the lock files. @default env `OSHARM_VMWARE_LOCK_DIR`, else `<os.tmpdir()>/osharm-vmware-locks` */
  readonly lockDir?: string;
  /** How long to wait while a live process holds the VM, in ms; 0 refuses at once. @default 0 */
  readonly timeoutMs?: number;
  /** Pause between two tries while waiting, in ms. @default 1000 */
  readonly pollIntervalMs?: number;
  readonly abortSignal?: AbortSignal;
  /** Receives `lock-acquire` / `lock-release` events. */
  readonly logger?: (event: VmwareProviderEvent) => void;
}

/** Options of {@link acquireVm}. */
export interface AcquireVmOptions extends Omit<AcquireVmLockOptions, 'vmxPath'> {
  /** The pool, in order of preference: the first free VM is taken. The files need not exist yet. */
  readonly vmxPaths: readonly string[];
}

/** A lock file that names a takeover guard older than this is left over from a crash. */
const GUARD_STALE_MS = 10_000;
const TRIES = 50;

/** Lock files this process holds: lock path → token written in the file. */
const heldLocks = new Map<string, string>();
let exitHookInstalled = false;

/** Resolves `lockDir` like the provider does (setting, env, default). */
function resolveLockDir(lockDir: string | undefined): string {
  const fromEnv = process.env.OSHARM_VMWARE_LOCK_DIR;
  return resolve(lockDir ?? (fromEnv && fromEnv.trim() !== '' ? fromEnv : defaultLockDir()));
}

/** The absolute .vmx path (symlinks resolved when the file exists). */
function canonicalVmxPath(vmxPath: string): string {
  const absolute = resolve(vmxPath);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

/**
 * The lock file of a VM: `<lockDir>/<vmx name>-<first 16 hex of sha256(absolute vmx path)>.lock`.
 * The path is compared case-insensitively on macOS and Windows, whose file systems usually are.
 */
export function vmLockPath(vmxPath: string, lockDir?: string): string {
  const canonical = canonicalVmxPath(vmxPath);
  const key =
    process.platform === 'darwin' || process.platform === 'win32'
      ? canonical.toLowerCase()
      : canonical;
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 16);
  const name = basename(canonical).replace(/[^A-Za-z0-9._-]/g, '_');
  return join(resolveLockDir(lockDir), `${name}-${hash}.lock`);
}

type HolderRecord = VmwareVmLockHolder & { readonly token: string; readonly raw: string };

/** The lock file's content; `missing` when there is none, a record with pid NaN when unreadable. */
async function readHolder(lockPath: string): Promise<HolderRecord | 'missing'> {
  let raw: string;
  try {
    raw = await readFile(lockPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const parsed = JSON.parse(raw) as Partial<HolderRecord>;
    return {
      pid: typeof parsed.pid === 'number' ? parsed.pid : Number.NaN,
      hostname: String(parsed.hostname ?? ''),
      vmxPath: String(parsed.vmxPath ?? ''),
      acquiredAt: String(parsed.acquiredAt ?? ''),
      token: String(parsed.token ?? ''),
      raw,
    };
  } catch {
    return { pid: Number.NaN, hostname: '', vmxPath: '', acquiredAt: '', token: '', raw };
  }
}

function isProcessAlive(pid: number): boolean {
  // Guard: kill(0) / kill(-n) would address process groups.
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock is live when its owner may still run: stale only when we can tell its PID is dead. */
function isLive(holder: HolderRecord, lockPath: string): boolean {
  // On another host (a shared lock dir) the PID cannot be checked: assume it lives.
  if (holder.hostname !== '' && holder.hostname !== hostname()) return true;
  // Our own PID: live only when this process really took it (else a dead predecessor with the
  // same PID left it, as happens across container restarts).
  if (holder.pid === process.pid) return heldLocks.get(lockPath) === holder.token;
  return isProcessAlive(holder.pid);
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const [lockPath, token] of heldLocks) {
      try {
        if ((JSON.parse(readFileSync(lockPath, 'utf8')) as { token?: string }).token === token) {
          unlinkSync(lockPath);
        }
      } catch {
        // nothing left to release
      }
    }
    heldLocks.clear();
  });
}

/**
 * Removes a stale lock file. Removals by non-owners are serialised by a guard file, and the lock
 * is re-read under the guard, so a lock taken over meanwhile is never removed.
 */
async function removeStale(lockPath: string, stale: HolderRecord): Promise<void> {
  const guard = `${lockPath}.takeover`;
  try {
    await writeFile(guard, String(process.pid), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another process is taking over; a guard left by a crash mid-takeover expires.
    const guardStat = await stat(guard).catch(() => undefined);
    if (guardStat && Date.now() - guardStat.mtimeMs > GUARD_STALE_MS)
      await rm(guard, { force: true });
    return;
  }
  try {
    const again = await readHolder(lockPath);
    if (again !== 'missing' && again.raw === stale.raw && !isLive(again, lockPath)) {
      await rm(lockPath, { force: true });
    }
  } finally {
    await rm(guard, { force: true });
  }
}

type TryResult = { readonly lock: VmwareVmLock } | { readonly holder: HolderRecord };

/** One atomic attempt: create the lock file (taking over a stale one), or report its live holder. */
async function tryAcquire(
  vmxPath: string,
  lockDir: string | undefined,
  logger: ((event: VmwareProviderEvent) => void) | undefined,
): Promise<TryResult> {
  const canonical = canonicalVmxPath(vmxPath);
  const lockPath = vmLockPath(canonical, lockDir);
  await mkdir(resolveLockDir(lockDir), { recursive: true });
  const token = randomUUID();
  const content = `${JSON.stringify({
    pid: process.pid,
    hostname: hostname(),
    vmxPath: canonical,
    acquiredAt: new Date().toISOString(),
    token,
  })}\n`;
  // Written whole to a temporary file, then hard-linked into place: link() fails atomically when
  // the lock exists, and a reader never sees a half-written lock file.
  const temporary = `${lockPath}.${token}.tmp`;
  await writeFile(temporary, content, { flag: 'wx' });
  try {
    let holder: HolderRecord | undefined;
    for (let attempt = 0; attempt < TRIES; attempt += 1) {
      try {
        await link(temporary, lockPath);
        heldLocks.set(lockPath, token);
        installExitHook();
        emit(logger, { type: 'lock-acquire', vmxPath: canonical, lockPath });
        return { lock: createLockHandle(canonical, lockPath, token, logger) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const current = await readHolder(lockPath);
      if (current === 'missing') continue;
      holder = current;
      if (isLive(current, lockPath)) return { holder: current };
      await removeStale(lockPath, current);
      await delay(5 + Math.random() * 20);
    }
    return {
      holder: holder ?? {
        pid: Number.NaN,
        hostname: '',
        vmxPath: canonical,
        acquiredAt: '',
        token: '',
        raw: '',
      },
    };
  } finally {
    await rm(temporary, { force: true });
  }
}

function createLockHandle(
  vmxPath: string,
  lockPath: string,
  token: string,
  logger: ((event: VmwareProviderEvent) => void) | undefined,
): VmwareVmLock {
  let released = false;
  return {
    vmxPath,
    lockPath,
    get released() {
      return released;
    },
    async release() {
      if (released) return;
      released = true;
      if (heldLocks.get(lockPath) === token) heldLocks.delete(lockPath);
      const current = await readHolder(lockPath);
      if (current !== 'missing' && current.token === token) await rm(lockPath, { force: true });
      emit(logger, { type: 'lock-release', vmxPath, lockPath });
    },
  };
}

function describeHolder(holder: HolderRecord): string {
  if (!Number.isInteger(holder.pid)) return 'an unknown process';
  const where =
    holder.hostname !== '' && holder.hostname !== hostname() ? ` on ${holder.hostname}` : '';
  const self = holder.pid === process.pid && where === '' ? ' (this process)' : '';
  return `process ${holder.pid}${where}${self}`;
}

function abortedError(what: string, signal: AbortSignal): VmProviderError {
  return new VmProviderError({
    providerId: 'vmware',
    message: `${what} was aborted`,
    cause: signal.reason,
  });
}

/** Waits `ms`, or throws a VmProviderError when the signal aborts. */
async function pause(ms: number, signal: AbortSignal | undefined, what: string): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch (error) {
    if (signal?.aborted) throw abortedError(what, signal);
    throw error;
  }
}

/**
 * Takes the exclusive lock of one VM for this process.
 *
 * The lock file holds the owner's PID; a lock whose PID is dead (on this host) is stale and taken
 * over. The lock is released by `release()`, and on process exit.
 * @throws {VmProviderError} "VM … is in use by process N" (retryable) when a live process holds
 *   it past `timeoutMs`, or when aborted.
 */
export async function acquireVmLock(options: AcquireVmLockOptions): Promise<VmwareVmLock> {
  const timeoutMs = options.timeoutMs ?? 0;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const signal = options.abortSignal;
  const startedAt = Date.now();
  const what = `waiting for the lock of VM ${resolve(options.vmxPath)}`;
  for (;;) {
    if (signal?.aborted) throw abortedError(what, signal);
    const result = await tryAcquire(options.vmxPath, options.lockDir, options.logger);
    if ('lock' in result) return result.lock;
    const waited = Date.now() - startedAt;
    if (waited >= timeoutMs) {
      throw new VmProviderError({
        providerId: 'vmware',
        isRetryable: true,
        message: `VM ${canonicalVmxPath(options.vmxPath)} is in use by ${describeHolder(result.holder)}${
          timeoutMs > 0 ? ` (waited ${formatSeconds(waited)})` : ''
        }; lock file ${vmLockPath(options.vmxPath, options.lockDir)}`,
      });
    }
    await pause(Math.min(pollIntervalMs, timeoutMs - waited), signal, what);
  }
}

/**
 * Takes the first free VM of a pool: each VM is tried with an atomic lock, so the choice is made
 * inside the lock and parallel processes (e.g. `--num-envs 8`) always get distinct VMs (upstream
 * issue #332 picked the VM name outside its lock).
 * @throws {VmProviderError} (retryable) when every VM stays in use past `timeoutMs`, naming each
 *   holder; or when the pool is empty or the call is aborted.
 */
export async function acquireVm(options: AcquireVmOptions): Promise<VmwareVmLock> {
  const pool = [...new Map(options.vmxPaths.map(path => [canonicalVmxPath(path), path])).keys()];
  if (pool.length === 0) {
    throw new VmProviderError({
      providerId: 'vmware',
      message: 'acquireVm: the pool of VMs is empty',
    });
  }
  const timeoutMs = options.timeoutMs ?? 0;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const signal = options.abortSignal;
  const startedAt = Date.now();
  const what = `waiting for a free VM of the pool (${pool.length} VMs)`;
  for (;;) {
    const busy: string[] = [];
    for (const vmxPath of pool) {
      if (signal?.aborted) throw abortedError(what, signal);
      const result = await tryAcquire(vmxPath, options.lockDir, options.logger);
      if ('lock' in result) return result.lock;
      busy.push(`${vmxPath} (${describeHolder(result.holder)})`);
    }
    const waited = Date.now() - startedAt;
    if (waited >= timeoutMs) {
      throw new VmProviderError({
        providerId: 'vmware',
        isRetryable: true,
        message: `all ${pool.length} VMs of the pool are in use${
          timeoutMs > 0 ? ` (waited ${formatSeconds(waited)})` : ''
        }: ${busy.join(', ')}; lock dir ${resolveLockDir(options.lockDir)}`,
      });
    }
    await pause(Math.min(pollIntervalMs, timeoutMs - waited), signal, what);
  }
}

/** Who holds the lock of a VM, or undefined when it is free or its holder is dead. */
export async function readVmLock(
  vmxPath: string,
  lockDir?: string,
): Promise<VmwareVmLockHolder | undefined> {
  const lockPath = vmLockPath(vmxPath, lockDir);
  const holder = await readHolder(lockPath);
  if (holder === 'missing' || !isLive(holder, lockPath)) return undefined;
  return {
    pid: holder.pid,
    hostname: holder.hostname,
    vmxPath: holder.vmxPath,
    acquiredAt: holder.acquiredAt,
  };
}
