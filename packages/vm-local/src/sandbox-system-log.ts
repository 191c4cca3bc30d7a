import type { GuestEndpoint } from '@osharm/desktop-env';
import { inside } from './sandbox-args';
import { readStateLines } from '@osharm/desktop-guest';

// The record of what the desktop's system services were asked to do (guest/system/system_log.py):
// polkit decisions, the account tools accounts-daemon ran, the UDisks2 stand-in's calls.

/** One call a system service of the desktop recorded (evidence for the judge). */
export interface SystemServiceCall {
  /** ISO time (UTC). */
  readonly time: string;
  /** `polkit` (the authority stand-in), `accounts` (a tool accounts-daemon ran) or `udisks`. */
  readonly service: string;
  /**
   * polkit: the action id (or `password` for a wrong password typed in its dialog); accounts: the
   * tool (`adduser`, `userdel`, …); udisks: `Interface.Method` (`Partition.Delete`, `Block.Format`).
   */
  readonly call: string;
  /** The call's arguments as text (udisks: the device first). */
  readonly args: readonly string[];
  /**
   * polkit: `granted`, `cancelled`, `wrong-password`, `denied`, `not-sudoer`, `busy`; accounts:
   * `ran`; udisks: `done`, `not-authorized` or `failed: <message>`.
   */
  readonly outcome: string;
}

/** Reads the desktop's system log through the guest channel (empty when nothing was recorded). */
export async function readSystemLog(endpoint: GuestEndpoint): Promise<SystemServiceCall[]> {
  const calls: SystemServiceCall[] = [];
  for (const line of await readStateLines(endpoint, 'system.log', 'system log', inside.records)) {
    try {
      const entry = JSON.parse(line) as Partial<Record<keyof SystemServiceCall, unknown>>;
      calls.push({
        time: String(entry.time ?? ''),
        service: String(entry.service ?? ''),
        call: String(entry.call ?? ''),
        args: Array.isArray(entry.args) ? entry.args.map(String) : [],
        outcome: String(entry.outcome ?? ''),
      });
    } catch {
      // a line the sandbox mangled
    }
  }
  return calls;
}
