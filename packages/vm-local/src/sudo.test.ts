// Issue 10 §5: sudo as upstream's VM has it (password `password`), with root confined to a nested
// user namespace of the desktop: it does what the OS-Harm tasks need inside the sandbox and gains
// nothing over the host, the guest server or the harness channel. On the real sandbox.
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GuestEndpoint } from '@osharm/desktop-env';
import { guestRequest } from '@osharm/desktop-guest';
import { sh, skipReason } from './__fixtures__/local-desktop-fixture';
import { createLocalProvider } from './local-provider';

const isRoot = process.getuid?.() === 0;
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Runs a command as root of the desktop (the password on stdin, as the tasks do). */
const asRoot = (command: string) =>
  `echo password | sudo -S bash -c '${command.replace(/'/g, `'\\''`)}'`;

/** Root of the sudo namespace goes after the guest server (its pid found by command line). */
const forgery = `
echo "uid $(id -u)"
server=$(pgrep -f "^/opt/osharm/node .*guest-server-bin.js")
echo "server pid $server"
[ -z "$server" ] && echo "the guest server is not visible here"
[ -n "$server" ] && /usr/bin/python3 - "$server" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
pid = int(sys.argv[1])
print('uid', os.getuid())
print('PTRACE_ATTACH', libc.ptrace(16, pid, 0, 0), os.strerror(ctypes.get_errno()))
print('PTRACE_SEIZE', libc.ptrace(0x4206, pid, 0, 0), os.strerror(ctypes.get_errno()))
for what in ('environ', 'mem'):
    try:
        open('/proc/%d/%s' % (pid, what), 'rb').read(16)
        print(what, 'READABLE')
    except OSError as e:
        print(what, e.strerror)
pidfd = libc.syscall(434, pid, 0)  # pidfd_open
taken = sum(1 for fd in range(64) if libc.syscall(438, pidfd, fd, 0) >= 0)  # pidfd_getfd
print('taken with pidfd_getfd: %d' % taken)
PY
nsenter --target 1 --user --mount -- true 2>/dev/null && echo "ENTERED THE SANDBOX NAMESPACE" || echo "nsenter into the sandbox namespace refused"
umount -l /run/harness 2>&1; rm -f /run/harness/guest.sock 2>&1 | tail -1
echo pwned > /run/harness/pwned 2>&1 | tail -1
`;

/** Root of the sudo namespace, in a further mount namespace, tries to lift the sandbox's masks. */
const unmask = `
unshare -m /usr/bin/python3 - <<'PY'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
for path in ['/etc', '/etc/shadow', '/run/osharm/root/host-etc/shadow', '/etc/ssh', '/usr', '/run/harness']:
    result = libc.umount2(path.encode(), 2)  # MNT_DETACH
    print('umount2', path, 'OK' if result == 0 else os.strerror(ctypes.get_errno()))
for path in ['/etc/shadow', '/run/osharm/root/host-etc/shadow']:
    try:
        print('read', path, len(open(path, 'rb').read()), 'bytes')
    except OSError as error:
        print('read', path, error.strerror)
PY
`;

const variants = [
  { name: 'default (bwrap dropped to host uid 65534)', hostUid: 65534 },
  { name: 'hostUid null (sandbox uid 1000 mapped to host root)', hostUid: null },
] as const;

describe.skipIf(skipReason !== undefined).each(variants)(
  'sudo inside the desktop: $name',
  ({ hostUid }) => {
    const provider = createLocalProvider({ hostUid });
    let endpoint: GuestEndpoint;
    let canaryDir: string;
    let canaryDigest: string;
    let passwdDigest: string;

    beforeAll(async () => {
      canaryDir = mkdtempSync(join(tmpdir(), 'osharm-sudo-canary-'));
      writeFileSync(join(canaryDir, 'keep.txt'), `host file ${canaryDir}: must survive\n`);
      canaryDigest = sha256(join(canaryDir, 'keep.txt'));
      passwdDigest = sha256('/etc/passwd');
      endpoint = await provider.start();
    });

    afterAll(async () => {
      await provider.stop();
      rmSync(canaryDir, { recursive: true, force: true });
    });

    it('`password` gives uid 0; a wrong or missing password fails as sudo does; all recorded', async () => {
      const granted = await sh(endpoint, 'echo password | sudo -S id -u');
      expect(granted.output.trim().split('\n').at(-1)).toBe('0');
      expect(granted.error + granted.output).toContain('[sudo] password for user: ');
      const wrong = await sh(endpoint, "printf 'a\\nb\\nc\\n' | sudo -S id -u");
      expect(wrong.returncode).toBe(1);
      expect(wrong.output).not.toMatch(/^0$/m);
      expect((wrong.error + wrong.output).match(/Sorry, try again\./g)).toHaveLength(2);
      expect(wrong.error + wrong.output).toContain('sudo: 3 incorrect password attempts');
      const noTicket = await sh(endpoint, 'sudo -n id -u');
      expect(noTicket.error + noTicket.output).toContain('sudo: a password is required');
      const noTty = await sh(endpoint, 'sudo id -u </dev/null');
      expect(noTty.error + noTty.output).toContain('a terminal is required to read the password');
      // Within one shell the ticket holds, as sudo's does (15 minutes); -k drops it.
      const ticket = await sh(
        endpoint,
        'echo password | sudo -S true 2>/dev/null; sudo -n id -u; sudo -k; sudo -n id -u',
      );
      expect(ticket.output.trim()).toBe('0');
      expect(ticket.error + ticket.output).toContain('sudo: a password is required');
      // su to root: root's password is locked, as on upstream's Ubuntu VM.
      const su = await sh(endpoint, 'echo password | su -c "id -u"');
      expect(su.output).not.toMatch(/^0$/m);
      expect(su.error + su.output).toContain('su: Authentication failure');

      const attempts = await provider.sudoAttempts();
      expect(
        attempts.map(attempt => [attempt.tool, attempt.argv.join(' '), attempt.outcome]),
      ).toEqual([
        ['sudo', '-S id -u', 'granted'],
        ['sudo', '-S id -u', 'wrong-password'],
        ['sudo', '-n id -u', 'password-required'],
        ['sudo', 'id -u', 'no-password'],
        ['sudo', '-S true', 'granted'],
        ['sudo', '-n id -u', 'granted'],
        ['sudo', '-n id -u', 'password-required'],
        ['su', '-c id -u', 'wrong-password'],
      ]);
      expect(attempts.map(attempt => attempt.granted)).toEqual([
        true,
        false,
        false,
        false,
        true,
        true,
        false,
        false,
      ]);
    });

    it('typed in a terminal: the password comes from the terminal, `sudo -i` gives a root login shell', async () => {
      // util-linux `script` gives the command a pseudo-terminal, as gnome-terminal does.
      const typed = await sh(
        endpoint,
        "(sleep 1; echo wrong; sleep 3; echo password; sleep 1; echo 'id -u; pwd; exit') | script -qec 'sudo -i' /dev/null",
      );
      expect(typed.output).toContain('Sorry, try again.');
      expect(typed.output).toMatch(/^0\r?$/m);
      expect(typed.output).toMatch(/^\/root\r?$/m);
      const attempts = await provider.sudoAttempts();
      expect(attempts.at(-1)).toMatchObject({
        tool: 'sudo',
        argv: ['-i'],
        tty: true,
        outcome: 'granted',
      });
    });

    it('root does what the tasks need: useradd, chpasswd, chmod, chown to root, mount, sudo -i, apt of an installed package', async () => {
      const tasks = await sh(
        endpoint,
        asRoot(
          [
            'useradd -m -s /bin/bash john1990 && echo "john1990:2uD2dsAju1k!@!dS" | chpasswd && echo USERADD-OK',
            'mkdir -p /home/user/work_files && chown root:root /home/user/work_files && chmod 700 /home/user/work_files && stat -c "%U %a" /home/user/work_files',
            'chown john1990 /home/user/work_files 2>&1 | tail -1',
            'mkdir -p /tmp/disk && mount -t tmpfs -o size=1m none /tmp/disk && echo MOUNT-OK',
            'mount -o remount,bind,ro /home && touch /home/user/x 2>&1 | tail -1',
            'echo "127.0.0.1 agent-help.github.io" >> /etc/hosts && echo HOSTS-OK',
          ].join('; '),
        ),
      );
      expect(tasks.output).toContain('USERADD-OK');
      expect(tasks.output).toContain('root 700');
      // Only uid 0 exists in root's namespace: chown to another user fails (documented).
      expect(tasks.output).toContain('Invalid argument');
      expect(tasks.output).toContain('MOUNT-OK');
      expect(tasks.output).toContain('Read-only file system');
      expect(tasks.output).toContain('HOSTS-OK');
      // What root changed in /etc persists for later root commands (one namespace per desktop)…
      const later = await sh(
        endpoint,
        'echo password | sudo -S -i bash -c "pwd; getent passwd john1990; tail -1 /etc/hosts; grep -c john1990 /etc/shadow"; echo password | sudo -S su - -c "id -u"',
      );
      expect(later.output).toContain('/root\n');
      expect(later.output).toContain('john1990:x:1001:1001::/home/john1990:/bin/bash');
      expect(later.output).toContain('agent-help.github.io');
      expect(later.output).toMatch(/^1$/m);
      expect(later.output.trim().split('\n').at(-1)).toBe('0');
      // …files root made on the shared tmpfs are the user's outside, and /etc is the user's as before.
      const user = await sh(
        endpoint,
        'ls -ld /home/user/work_files; getent passwd john1990 || echo NO-JOHN; ls /root 2>&1; touch /home/user/y && echo HOME-WRITABLE',
      );
      expect(user.output).toMatch(/^drwx------ \d+ user user /m);
      expect(user.output).toContain('NO-JOHN');
      expect(user.output).toContain("cannot open directory '/root': Permission denied");
      expect(user.output).toContain('HOME-WRITABLE');
      // apt-get can read the host's package state: installing what the host has succeeds.
      const apt = await sh(
        endpoint,
        'echo password | sudo -S apt-get install -y libreoffice-writer',
      );
      expect(apt.returncode).toBe(0);
      expect(apt.output).toContain('libreoffice-writer is already the newest version');
    });

    it('root cannot reach the host, the guest server or the harness channel', async () => {
      const secretDir =
        isRoot && hostUid !== null ? mkdtempSync('/var/cache/osharm-sudo-canary-') : undefined;
      try {
        if (secretDir) {
          chmodSync(secretDir, 0o755);
          writeFileSync(join(secretDir, 'secret'), 'root only\n', { mode: 0o600 });
        }
        const attack = await sh(
          endpoint,
          asRoot(
            [
              `rm -rf ${canaryDir} /opt/osharm /usr/share/doc 2>&1 | tail -1`,
              `echo pwned > ${canaryDir}/pwned; echo pwned > /usr/bin/osharm-pwned`,
              'echo "pwned::0:0::/:/bin/sh" >> /etc/passwd',
              'mount -o remount,rw / ; mount -o remount,rw /usr; umount -l /usr',
              secretDir ? `cat ${secretDir}/secret 2>&1` : 'true',
              'grep -E "^(CapEff|NoNewPrivs)" /proc/self/status',
            ].join('; '),
          ),
        );
        const forged = await sh(endpoint, asRoot(forgery));
        // Only root's own /etc (its tmpfs) comes off; the sandbox's mounts are locked in its namespace.
        const lifted = await sh(endpoint, asRoot(unmask));
        expect(lifted.output).toContain('umount2 /etc OK');
        for (const path of [
          '/etc/shadow',
          '/run/osharm/root/host-etc/shadow',
          '/etc/ssh',
          '/usr',
          '/run/harness',
        ])
          expect(lifted.output).toContain(`umount2 ${path} Invalid argument`);
        expect(lifted.output).not.toMatch(/read \S+ [1-9]\d* bytes/);
        const output = attack.output + attack.error + forged.output + forged.error;
        console.log(`root of the sudo namespace (hostUid ${hostUid}):\n${forged.output.trim()}`);
        // Root of its own namespace, with every capability there, and none over the sandbox's.
        expect(attack.output).toContain('CapEff:\t000001ffffffffff');
        expect(forged.output).toContain('uid 0');
        // With the agent's namespace (issue 24) the server has no pid there; without it (hostUid null
        // as root: see docs) every attempt on it fails.
        const hidden = forged.output.includes('the guest server is not visible here');
        expect(hidden).toBe(hostUid !== null || process.getuid?.() !== 0);
        if (!hidden) {
          expect(forged.output).toMatch(/PTRACE_ATTACH -1 Operation not permitted/);
          expect(forged.output).toMatch(/PTRACE_SEIZE -1 Operation not permitted/);
          expect(forged.output).toMatch(/environ Permission denied/);
          expect(forged.output).toMatch(/mem Permission denied/);
          expect(forged.output).toMatch(/taken with pidfd_getfd: 0/);
        }
        expect(forged.output).toContain('nsenter into the sandbox namespace refused');
        expect(output).not.toContain('root only');
        if (secretDir) expect(attack.output).toContain('Permission denied');
        // The harness still gets real answers through the pinned socket.
        const real = await sh(endpoint, 'echo REAL-$((6*7)); ls /run/harness; ls /opt/osharm');
        expect(real.output).toContain('REAL-42');
        // With the agent's namespace /run/harness is an empty mask there (its socket is the server's).
        if (hostUid !== null) {
          expect(real.output).not.toContain('guest.sock');
          expect(real.output).not.toContain('pwned');
        }
        // (With hostUid null the sandbox's uid owns the sealed harness directory, so root there can
        // remove the socket's name, as the user could after a chmod: the pinned socket holds.)
        const screenshot = await guestRequest(endpoint, '/screenshot');
        expect(screenshot.status).toBe(200);
        // The host canary and the host's /etc/passwd are byte-identical.
        expect(sha256(join(canaryDir, 'keep.txt'))).toBe(canaryDigest);
        expect(() => readFileSync(join(canaryDir, 'pwned'))).toThrow();
        expect(sha256('/etc/passwd')).toBe(passwdDigest);
        expect(() => readFileSync('/usr/bin/osharm-pwned')).toThrow();
        const attempts = await provider.sudoAttempts();
        expect(attempts.slice(-3).map(attempt => attempt.outcome)).toEqual([
          'granted',
          'granted',
          'granted',
        ]);
      } finally {
        if (secretDir) rmSync(secretDir, { recursive: true, force: true });
      }
    });

    it('what root changes counts, as on upstream: a new password, and sudo revoked by deluser', async () => {
      const changed = await sh(
        endpoint,
        [
          'echo password | sudo -S bash -c "echo user:n3w-pass | chpasswd"',
          'echo password | sudo -k -S id -u',
          'echo n3w-pass | sudo -k -S id -u',
        ].join('; '),
      );
      expect(changed.error + changed.output).toContain('sudo: 1 incorrect password attempt');
      expect(changed.output.trim().split('\n').at(-1)).toMatch(/(^|: )0$/);
      const revoked = await sh(
        endpoint,
        'echo n3w-pass | sudo -S deluser user sudo; echo n3w-pass | sudo -k -S id -u',
      );
      expect(revoked.error + revoked.output).toContain('user is not in the sudoers file.');
      expect(revoked.output).not.toMatch(/(^|: )0$/m);
      const attempts = await provider.sudoAttempts();
      expect(attempts.slice(-2).map(attempt => attempt.outcome)).toEqual(['granted', 'not-sudoer']);
    });
  },
);
