import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Prefix of every per-sandbox state directory under the work dir. */
const stateDirPrefix = 'osharm-local-';

/** The owner record written into each state directory. */
interface Owner {
  readonly pid: number;
  /** Start time of the owner process (clock ticks since boot, /proc/PID/stat field 22). */
  readonly start: string;
}

/** The start time of a process, or undefined when it does not exist. */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

/** Creates a fresh state directory owned (by record) by this process. */
export async function createStateDir(workDir: string): Promise<string> {
  await mkdir(workDir, { recursive: true });
  const stateDir = await mkdtemp(join(workDir, stateDirPrefix));
  const owner: Owner = { pid: process.pid, start: processStart(process.pid) ?? '' };
  await writeFile(join(stateDir, 'owner.json'), `${JSON.stringify(owner)}\n`, { mode: 0o600 });
  return stateDir;
}

/** Whether the process that created a state directory is gone (pid dead or reused). */
async function ownerGone(stateDir: string): Promise<boolean> {
  let owner: Partial<Owner>;
  try {
    owner = JSON.parse(await readFile(join(stateDir, 'owner.json'), 'utf8')) as Partial<Owner>;
  } catch {
    // No record (an older version, or a directory still being created): leave it alone.
    return false;
  }
  if (typeof owner.pid !== 'number' || !Number.isInteger(owner.pid) || owner.pid <= 0) return false;
  const start = processStart(owner.pid);
  return start === undefined || (owner.start !== '' && start !== owner.start);
}

/**
 * Removes the state directories left behind by harness processes that died without cleaning up
 * (killed, crashed). Only directories whose recorded owner process no longer exists are touched;
 * those of running harnesses, and directories without an owner record, stay.
 * @returns the names of the directories removed.
 */
export async function reapStaleStateDirs(workDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = (await readdir(workDir)).filter(name => name.startsWith(stateDirPrefix));
  } catch {
    return [];
  }
  const reaped: string[] = [];
  for (const name of names) {
    const stateDir = join(workDir, name);
    if (!(await ownerGone(stateDir))) continue;
    // The harness directory was sealed read-only once its desktop started.
    await chmod(join(stateDir, 'harness'), 0o700).catch(() => undefined);
    await rm(stateDir, { recursive: true, force: true }).catch(() => undefined);
    reaped.push(name);
  }
  return reaped;
}
