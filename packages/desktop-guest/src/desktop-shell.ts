import type { GuestEndpoint, ProviderDesktopShell } from '@osharm/desktop-env';
import { readStateLines } from './guest-request';

// Which shell a desktop runs: chosen on the host, started inside (guest/shell/start-shell.sh),
// recorded there in /run/osharm/shell.json and read back once the desktop answers.

/** The desktop shells: GNOME Shell as on upstream's VM, or openbox (the lighter fallback). */
export const DESKTOP_SHELLS = ['gnome-shell', 'openbox'] as const;
export type DesktopShellName = (typeof DESKTOP_SHELLS)[number];

/** Which shell a started desktop runs (desktop-env's provider capability). */
export type DesktopShell = ProviderDesktopShell;

/**
 * The shell setting: `value` (or the environment's `OSHARM_DESKTOP_SHELL`), `gnome-shell` when
 * neither is set.
 * @throws {Error} naming the setting when the value is neither `gnome-shell` nor `openbox`.
 */
export function desktopShellSetting(
  value: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): DesktopShellName {
  const origin = value !== undefined ? 'shell' : 'OSHARM_DESKTOP_SHELL';
  const chosen = value ?? env.OSHARM_DESKTOP_SHELL ?? 'gnome-shell';
  if (!(DESKTOP_SHELLS as readonly string[]).includes(chosen)) {
    throw new Error(`${origin} must be gnome-shell or openbox, not "${chosen}"`);
  }
  return chosen as DesktopShellName;
}

function shellName(value: unknown): DesktopShellName | undefined {
  return (DESKTOP_SHELLS as readonly unknown[]).includes(value)
    ? (value as DesktopShellName)
    : undefined;
}

/**
 * Reads the desktop's shell record. Call it right after start, before any agent code runs inside
 * (the file belongs to the desktop user). A desktop without a record (an image built before
 * the shell choice existed) or with an unreadable one counts as openbox with the reason said.
 */
export async function readDesktopShell(
  endpoint: GuestEndpoint,
  requested: DesktopShellName,
): Promise<DesktopShell> {
  const lines = await readStateLines(endpoint, 'shell.json', 'shell record');
  let record: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(lines.join('\n'));
    if (parsed && typeof parsed === 'object') record = parsed as Record<string, unknown>;
  } catch {
    record = undefined;
  }
  const shell = shellName(record?.shell);
  if (!record || !shell) {
    return {
      shell: 'openbox',
      requested,
      fallback:
        lines.length === 0
          ? 'the desktop recorded no shell (an image built before GNOME Shell): openbox'
          : 'the desktop recorded an unreadable shell record',
      startMs: null,
    };
  }
  const fallback = typeof record.fallback === 'string' ? record.fallback : null;
  return {
    shell,
    requested: shellName(record.requested) ?? requested,
    // Never a silent downgrade: openbox where GNOME Shell was asked for always carries a reason.
    fallback:
      fallback ??
      (shell !== requested ? `${requested} was asked for and the desktop runs ${shell}` : null),
    startMs: typeof record.start_ms === 'number' ? record.start_ms : null,
  };
}
