// Helpers shared by the real-desktop suites (not part of the package).
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import type { GuestEndpoint } from '@osharm/desktop-env';
import { DEFAULT_RECORDING_SETTINGS, guestRequest } from '@osharm/desktop-guest';
import type { GuestResponse } from '@osharm/desktop-guest';
import { defaultWorkDir } from '../local-sandbox';
import type { SandboxOptions } from '../local-sandbox';
import { defaultResourceLimits } from '../sandbox-limits';

function onPath(program: string): boolean {
  return ['/usr/bin', '/bin', '/usr/local/bin'].some(directory => {
    try {
      accessSync(`${directory}/${program}`, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * Why the real-desktop suites cannot run here, or undefined when they can. Only a missing
 * bubblewrap or Xvfb skips them (.ci/run installs both); anything else missing fails loudly.
 */
export const skipReason: string | undefined = (() => {
  const missing = ['bwrap', 'Xvfb'].filter(program => !onPath(program));
  if (missing.length === 0) return undefined;
  const reason = `SKIPPED: the local desktop suites need ${missing.join(' and ')} (apt-get install bubblewrap xvfb)`;
  console.warn(reason);
  return reason;
})();

export async function post(
  endpoint: GuestEndpoint,
  path: string,
  json?: unknown,
  timeoutMs = 60_000,
): Promise<GuestResponse> {
  return guestRequest(endpoint, path, { method: 'POST', json, timeoutMs });
}

export async function postJson<T = Record<string, unknown>>(
  endpoint: GuestEndpoint,
  path: string,
  json?: unknown,
  timeoutMs = 60_000,
): Promise<{ status: number; body: T }> {
  const response = await post(endpoint, path, json, timeoutMs);
  return { status: response.status, body: JSON.parse(response.body.toString('utf8')) as T };
}

/** Runs a shell command inside the desktop through `/execute`. */
export async function sh(
  endpoint: GuestEndpoint,
  command: string,
  timeoutMs = 120_000,
): Promise<{ output: string; error: string; returncode: number }> {
  const { body } = await postJson<{ output: string; error: string; returncode: number }>(
    endpoint,
    '/execute',
    { command, shell: true },
    timeoutMs,
  );
  return body;
}

/** A urlencoded form body. */
export function form(fields: Record<string, string>): { data: string; contentType: string } {
  return {
    data: new URLSearchParams(fields).toString(),
    contentType: 'application/x-www-form-urlencoded',
  };
}

/** A multipart body with one text field and one file field. */
export function multipart(
  fields: Record<string, string>,
  file: { field: string; name: string; data: Buffer },
): { data: Buffer; contentType: string } {
  const boundary = `----osharm${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      ),
    );
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    file.data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { data: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Decodes the PNGs the guest server writes (8-bit RGB, filter 0) into width, height and RGB bytes. */
export function decodePng(png: Buffer): { width: number; height: number; rgb: Buffer } {
  if (png.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('ascii', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
    } else if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const rgb = Buffer.alloc(width * height * 3);
  for (let row = 0; row < height; row += 1) {
    const start = row * (width * 3 + 1);
    if (raw[start] !== 0) throw new Error('unexpected PNG filter');
    raw.copy(rgb, row * width * 3, start + 1, start + 1 + width * 3);
  }
  return { width, height, rgb };
}

/** Waits until `check` returns a truthy value (polling), or throws after `timeoutMs`. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise(resolve => setTimeout(resolve, 150));
  }
}

/** Makes an office document inside the desktop with a throw-away LibreOffice profile. */
export async function convertInside(
  endpoint: GuestEndpoint,
  source: string,
  format: 'docx' | 'xlsx' | 'ods',
): Promise<void> {
  const result = await sh(
    endpoint,
    `cd "$(dirname ${source})" && soffice -env:UserInstallation=file:///tmp/lo-convert --headless --convert-to ${format} ${source}`,
  );
  if (result.returncode !== 0) throw new Error(`conversion failed: ${result.error}`);
}

/** Sandbox options as the provider resolves them by default, with overrides (for startSandbox). */
export function sandboxOptions(overrides: Partial<SandboxOptions> = {}): SandboxOptions {
  return {
    screen: { width: 1280, height: 720 },
    env: {},
    startTimeoutMs: 30_000,
    accessibilityDeadlineMs: 10_000,
    recording: DEFAULT_RECORDING_SETTINGS,
    hostUid: 65534,
    workDir: defaultWorkDir(),
    tmpfsSizeMb: 4096,
    limits: defaultResourceLimits(),
    bwrap: process.env.OSHARM_BWRAP ?? 'bwrap',
    tcpPort: undefined,
    ...overrides,
  };
}

/** Host pids of `pid` and every process below it (from /proc). */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // exited meanwhile
    }
  }
  const result: number[] = [];
  const walk = (current: number) => {
    result.push(current);
    for (const child of children.get(current) ?? []) walk(child);
  };
  walk(pid);
  return result;
}

/** The real, effective, saved and filesystem uid of a host process, or undefined once gone. */
export function hostUids(pid: number): number[] | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find(entry => entry.startsWith('Uid:'));
    return line?.split(/\s+/).slice(1, 5).map(Number);
  } catch {
    return undefined;
  }
}

/** The command line of a host process ('' once gone). */
export function hostCommandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}
