import type { GuestEndpoint } from '@osharm/desktop-env';
import { readStateLines } from '@osharm/desktop-guest';
import { inside } from './sandbox-args';

// The record of `sudo` / `su` inside a sandbox: what the stand-ins write and how the host reads it.

/** The outcomes the sudo / su stand-ins write (anything else reads back as `unknown`). */
const sudoOutcomeNames = [
  'granted',
  'wrong-password',
  'no-password',
  'password-required',
  'not-sudoer',
  'unknown-user',
  'unsupported-user',
  'usage',
] as const;
const sudoOutcomes: ReadonlySet<string> = new Set(sudoOutcomeNames);

/** How a `sudo` / `su` invocation ended (the stand-ins' record; see docs "sudo"). */
export type SudoOutcome = (typeof sudoOutcomeNames)[number];

/** One invocation of `sudo` or `su` inside a sandbox, as the stand-ins record it. */
export interface SudoAttempt {
  /** ISO time (UTC). */
  readonly time: string;
  /** `sudo` or `su`. */
  readonly tool: string;
  /** The arguments after the tool name. */
  readonly argv: readonly string[];
  /** Working directory of the caller. */
  readonly cwd: string;
  /** Whether stdin was a terminal (typed in a terminal window) or not (a script / `-S`). */
  readonly tty: boolean;
  /** How it ended; `granted`: the command ran as root of the desktop's nested namespace. */
  readonly outcome: SudoOutcome | 'unknown';
  /** The same as `outcome === 'granted'`. */
  readonly granted: boolean;
}

/** Reads the sudo log the stand-in keeps inside the sandbox (see {@link readStateLines}). */
export async function readSudoLog(endpoint: GuestEndpoint): Promise<SudoAttempt[]> {
  const lines = await readStateLines(endpoint, 'sudo.log', 'sudo log', inside.records);
  const attempts: SudoAttempt[] = [];
  for (const line of lines) {
    try {
      const entry = JSON.parse(line) as Partial<SudoAttempt>;
      attempts.push({
        time: String(entry.time ?? ''),
        tool: String(entry.tool ?? 'sudo'),
        argv: Array.isArray(entry.argv) ? entry.argv.map(String) : [],
        cwd: String(entry.cwd ?? ''),
        tty: Boolean(entry.tty),
        outcome: sudoOutcomes.has(String(entry.outcome))
          ? (entry.outcome as SudoOutcome)
          : 'unknown',
        granted: entry.outcome === 'granted',
      });
    } catch {
      // a line the sandbox mangled
    }
  }
  return attempts;
}
