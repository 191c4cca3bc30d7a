import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * What `getGuestIPAddress` answers:
 * - `ok`: the VM's `ip` (exit 0);
 * - `error-text`: `Error: Unable to get the IP address` (exit 255, as vmrun);
 * - `error-text-exit-0`: the same text with exit 0 (what upstream U25 then used as the IP);
 * - `unknown`: `unknown` (exit 0); `empty`: an empty line (exit 0);
 * - `hang`: never answers (like `-wait` on a guest without VMware Tools).
 */
export type VmrunStandInIpMode =
  'ok' | 'error-text' | 'error-text-exit-0' | 'unknown' | 'empty' | 'hang';

/** A simulated VM of the stand-in. */
export interface VmrunStandInVm {
  /** Running from the start. @default false */
  readonly running?: boolean;
  /** `vmrun start` calls until the VM runs (1 = the first start works). @default 1 */
  readonly startCallsNeeded?: number;
  /** Every `vmrun start` prints this and exits 255 (the VM never runs). */
  readonly startError?: string;
  /** The guest IP once it is reported. @default '127.0.0.1' */
  readonly ip?: string;
  /** Number of `getGuestIPAddress` calls on a running VM that answer `pendingIpMode` first. @default 0 */
  readonly ipAfterCalls?: number;
  /** The answer while the guest has no IP yet. @default 'error-text' */
  readonly pendingIpMode?: VmrunStandInIpMode;
  /** The answer once `ipAfterCalls` are used up. @default 'ok' */
  readonly ipMode?: VmrunStandInIpMode;
  /** The "zombie" of upstream #42: `list` shows it running, `getGuestIPAddress` always fails. */
  readonly zombie?: boolean;
  /** A soft `stop` (without `hard`): works, fails (exit 255), or hangs. @default 'ok' */
  readonly softStop?: 'ok' | 'fail' | 'hang';
  /** Existing snapshots. @default ['init_state'] */
  readonly snapshots?: readonly string[];
}

/** The state of a simulated VM as the stand-in keeps it. */
export interface VmrunStandInVmState {
  running: boolean;
  startCalls: number;
  startCallsNeeded: number;
  startError: string | null;
  ip: string;
  ipCalls: number;
  ipAfterCalls: number;
  pendingIpMode: VmrunStandInIpMode;
  ipMode: VmrunStandInIpMode;
  softStop: 'ok' | 'fail' | 'hang';
  snapshots: string[];
  /** Snapshots reverted to, in order. */
  reverts: string[];
}

/** Options of {@link createVmrunStandIn}. */
export interface VmrunStandInOptions {
  /** The simulated VMs by .vmx path. */
  readonly vms: Readonly<Record<string, VmrunStandInVm>>;
  /** Where to write the executable, state and log. @default a new temporary directory */
  readonly dir?: string;
  /** Write a small .vmx file at each VM path (parents created). @default true */
  readonly createVmxFiles?: boolean;
}

/** One recorded invocation of the stand-in. */
export interface VmrunStandInCall {
  /** The arguments after the executable, e.g. `['-T', 'ws', 'list']`. */
  readonly argv: readonly string[];
  /** The PID of that vmrun process. */
  readonly pid: number;
}

/** A fake `vmrun` on disk, for tests without VMware. */
export interface VmrunStandIn {
  /** The executable to pass as `vmrunPath`. */
  readonly vmrunPath: string;
  readonly dir: string;
  /** The simulated VMs' keys: the real absolute .vmx paths. */
  readonly vmxPaths: readonly string[];
  /** The argv of every call so far, in order. */
  calls(): Promise<string[][]>;
  /** Every call with its PID. */
  invocations(): Promise<VmrunStandInCall[]>;
  /** Forgets the calls so far. */
  clearCalls(): Promise<void>;
  /** The simulated VMs' state now. */
  state(): Promise<Record<string, VmrunStandInVmState>>;
  /** Changes a simulated VM. */
  update(vmxPath: string, patch: Partial<VmrunStandInVmState>): Promise<void>;
  /** Removes the directory when it was created by the stand-in. */
  cleanup(): Promise<void>;
}

const script = (statePath: string, logPath: string) => `
import { appendFileSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

const STATE = ${JSON.stringify(statePath)};
const LOG = ${JSON.stringify(logPath)};
let args = process.argv.slice(2);
appendFileSync(LOG, JSON.stringify({ argv: args, pid: process.pid }) + '\\n');
const state = JSON.parse(readFileSync(STATE, 'utf8'));
const save = () => {
  writeFileSync(STATE + '.' + process.pid, JSON.stringify(state, null, 2));
  renameSync(STATE + '.' + process.pid, STATE);
};
const out = text => process.stdout.write(text + '\\n');
const fail = text => {
  out(text);
  process.exit(255);
};
const hang = () => setInterval(() => {}, 1 << 30);
const key = path => {
  try {
    return realpathSync(resolve(path));
  } catch {
    return resolve(path);
  }
};

if (args[0] === '-T') {
  if (!['ws', 'fusion', 'player'].includes(args[1])) fail('Error: Invalid host type: ' + args[1]);
  args = args.slice(2);
}
const [command, vmx, ...rest] = args;
const vm = vmx === undefined ? undefined : state.vms[key(vmx)];
const needVm = () => {
  if (!vm) fail('Error: Cannot open VM: ' + vmx + ', The virtual machine cannot be found');
};
const needRunning = () => {
  needVm();
  if (!vm.running) fail('Error: The virtual machine is not powered on: ' + vmx);
};

switch (command) {
  case 'list': {
    const running = Object.keys(state.vms).filter(path => state.vms[path].running);
    out('Total running VMs: ' + running.length);
    for (const path of running) out(path);
    break;
  }
  case 'start': {
    needVm();
    vm.startCalls += 1;
    if (vm.startError) {
      save();
      fail(vm.startError);
    }
    if (vm.startCalls >= vm.startCallsNeeded) vm.running = true;
    save();
    break;
  }
  case 'getGuestIPAddress': {
    needRunning();
    vm.ipCalls += 1;
    save();
    const mode = vm.ipCalls > vm.ipAfterCalls ? vm.ipMode : vm.pendingIpMode;
    if (mode === 'ok') out(vm.ip);
    else if (mode === 'error-text') fail('Error: Unable to get the IP address');
    else if (mode === 'error-text-exit-0') out('Error: Unable to get the IP address');
    else if (mode === 'unknown') out('unknown');
    else if (mode === 'empty') out('');
    else hang();
    break;
  }
  case 'stop': {
    needRunning();
    if (rest[0] !== 'hard' && vm.softStop === 'hang') {
      hang();
      break;
    }
    if (rest[0] !== 'hard' && vm.softStop === 'fail') fail('Error: The operation was canceled');
    vm.running = false;
    vm.ipCalls = 0;
    save();
    break;
  }
  case 'revertToSnapshot': {
    needVm();
    if (!vm.snapshots.includes(rest[0])) fail("Error: Invalid snapshot name '" + rest[0] + "'");
    vm.running = false;
    vm.startCalls = 0;
    vm.ipCalls = 0;
    vm.reverts.push(rest[0]);
    save();
    break;
  }
  case 'snapshot': {
    needVm();
    if (!rest[0]) fail('Error: Invalid number of arguments');
    vm.snapshots.push(rest[0]);
    save();
    break;
  }
  default:
    fail('Error: Unrecognized command: ' + command);
}
`;

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * Writes a stand-in `vmrun` (POSIX hosts): a shell wrapper that runs a Node script with the Node
 * running the tests. It records every call (argv + PID) and simulates VM states in a JSON state
 * file: not running → `start` (optionally only after N calls) → running; `list` with
 * `Total running VMs: N`; `getGuestIPAddress` that reports the IP after K calls, error text,
 * `unknown`, empty output, or hangs; the zombie; `stop` (soft / hard), `revertToSnapshot`
 * (powers the VM off, as a snapshot of a running VM may) and `snapshot`. Errors print vmrun's
 * `Error: …` text and exit 255.
 */
export async function createVmrunStandIn(options: VmrunStandInOptions): Promise<VmrunStandIn> {
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'osharm-vmrun-')));
  await mkdir(dir, { recursive: true });
  const statePath = join(dir, 'vmrun-state.json');
  const logPath = join(dir, 'vmrun-calls.jsonl');
  const vms: Record<string, VmrunStandInVmState> = {};
  for (const [path, vm] of Object.entries(options.vms)) {
    const absolute = resolve(path);
    if (options.createVmxFiles ?? true) {
      await mkdir(dirname(absolute), { recursive: true });
      await writeFile(
        absolute,
        `.encoding = "UTF-8"\nconfig.version = "8"\ndisplayName = "stand-in"\n`,
      );
    }
    const key = await realpath(absolute).catch(() => absolute);
    vms[key] = {
      running: vm.running ?? vm.zombie ?? false,
      startCalls: 0,
      startCallsNeeded: vm.startCallsNeeded ?? 1,
      startError: vm.startError ?? null,
      ip: vm.ip ?? '127.0.0.1',
      ipCalls: 0,
      ipAfterCalls: vm.ipAfterCalls ?? 0,
      pendingIpMode: vm.pendingIpMode ?? 'error-text',
      ipMode: vm.zombie ? 'error-text' : (vm.ipMode ?? 'ok'),
      softStop: vm.softStop ?? 'ok',
      snapshots: [...(vm.snapshots ?? ['init_state'])],
      reverts: [],
    };
  }
  await writeFile(statePath, JSON.stringify({ vms }, null, 2));
  await writeFile(logPath, '');
  const scriptPath = join(dir, 'vmrun-stand-in.mjs');
  await writeFile(scriptPath, script(statePath, logPath));
  const vmrunPath = join(dir, 'vmrun');
  await writeFile(
    vmrunPath,
    `#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(scriptPath)} "$@"\n`,
  );
  await chmod(vmrunPath, 0o755);

  const readState = async () =>
    (JSON.parse(await readFile(statePath, 'utf8')) as { vms: Record<string, VmrunStandInVmState> })
      .vms;
  const invocations = async (): Promise<VmrunStandInCall[]> =>
    (await readFile(logPath, 'utf8'))
      .split('\n')
      .filter(line => line !== '')
      .map(line => JSON.parse(line) as VmrunStandInCall);

  return {
    vmrunPath,
    dir,
    vmxPaths: Object.keys(vms),
    invocations,
    calls: async () => (await invocations()).map(call => [...call.argv]),
    clearCalls: () => writeFile(logPath, ''),
    state: readState,
    async update(vmxPath, patch) {
      const state = await readState();
      const key = await realpath(resolve(vmxPath)).catch(() => resolve(vmxPath));
      const vm = state[key];
      if (!vm) throw new Error(`vmrun stand-in: no VM ${key}`);
      Object.assign(vm, patch);
      await writeFile(statePath, JSON.stringify({ vms: state }, null, 2));
    },
    async cleanup() {
      if (ownDir) await rm(dir, { recursive: true, force: true });
    },
  };
}
