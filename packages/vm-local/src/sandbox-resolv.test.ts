import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLocalDesktopRequirements } from './local-requirements';
import { resolvConfArgs } from './sandbox-args';

// The sandbox's resolv.conf reaches /etc/resolv.conf whether the host's is a file or a link into
// /run (systemd-resolved, resolvconf): checked with real bwrap over a stand-in /etc.

const dir = mkdtempSync(join(tmpdir(), 'osharm-resolv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'resolv.conf');
writeFileSync(file, 'nameserver 127.0.0.1\n');

function readInside(etc: string): string {
  const args = resolvConfArgs(file, join(etc, 'resolv.conf'));
  const mapped = (list: string[]) => list.map(arg => arg.replace(etc, '/etc'));
  const result = spawnSync(
    'bwrap',
    [
      '--ro-bind',
      '/',
      '/',
      '--ro-bind',
      etc,
      '/etc',
      ...mapped(args.before),
      '--tmpfs',
      '/run',
      ...args.after,
      '--unshare-net',
      '--',
      'cat',
      '/etc/resolv.conf',
    ],
    { encoding: 'utf8' },
  );
  return result.stdout + result.stderr;
}

describe.runIf(checkLocalDesktopRequirements().ok)('the sandbox resolv.conf', () => {
  it('is bound over a plain /etc/resolv.conf', () => {
    const etc = join(dir, 'plain');
    mkdirSync(etc);
    writeFileSync(join(etc, 'resolv.conf'), 'nameserver 10.9.9.9\n');
    expect(resolvConfArgs(file, join(etc, 'resolv.conf')).after).toEqual([]);
    expect(readInside(etc)).toBe('nameserver 127.0.0.1\n');
  });

  it("is bound at the link's target on the sandbox's /run when the host's is a link (systemd-resolved)", () => {
    const etc = join(dir, 'linked');
    mkdirSync(etc);
    symlinkSync('/run/systemd/resolve/stub-resolv.conf', join(etc, 'resolv.conf'));
    expect(resolvConfArgs(file, join(etc, 'resolv.conf')).before).toEqual([]);
    expect(readInside(etc)).toBe('nameserver 127.0.0.1\n');
  });

  it('follows /var/run to /run', () => {
    const etc = join(dir, 'varrun');
    mkdirSync(etc);
    symlinkSync('/var/run/resolvconf/resolv.conf', join(etc, 'resolv.conf'));
    expect(resolvConfArgs(file, join(etc, 'resolv.conf')).after).toContain(
      '/run/resolvconf/resolv.conf',
    );
    expect(readInside(etc)).toBe('nameserver 127.0.0.1\n');
  });
});
