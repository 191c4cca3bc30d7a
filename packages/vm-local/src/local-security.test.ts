import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GuestEndpoint } from '@osharm/desktop-env';
import {
  decodePng,
  multipart,
  post,
  postJson,
  sh,
  skipReason,
  waitFor,
} from './__fixtures__/local-desktop-fixture';
import { guestPackageDir, guestRequest } from '@osharm/desktop-guest';
import { createLocalProvider } from './local-provider';

/** sha256 of every file under a directory (relative path → digest). */
function digestTree(directory: string): Record<string, string> {
  const result: Record<string, string> = {};
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const full = join(current, entry.name);
      if (entry.name === '__pycache__' || entry.name === 'node_modules') continue;
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile())
        result[full.slice(directory.length)] = createHash('sha256')
          .update(readFileSync(full))
          .digest('hex');
    }
  };
  walk(directory);
  return result;
}

function makeCanary(parent: string): string {
  mkdirSync(parent, { recursive: true });
  const directory = mkdtempSync(join(parent, 'osharm-canary-'));
  writeFileSync(join(directory, 'keep.txt'), 'host file: must survive\n');
  mkdirSync(join(directory, 'nested'));
  writeFileSync(join(directory, 'nested', 'data.bin'), randomBytes(4096));
  return directory;
}

/** A ransomware-style script: encrypt + delete the home, then go after the host. */
function ransomware(targets: readonly string[]): string {
  const quoted = targets.map(target => `'${target}'`).join(' ');
  return `
set +e
# 1. "encrypt" every file under the home and delete the original
find /home/user -type f 2>/dev/null | while IFS= read -r f; do
  /usr/bin/python3 -c 'import sys; p = sys.argv[1]; d = open(p, "rb").read(); open(p + ".locked", "wb").write(bytes(b ^ 0x5a for b in d))' "$f" && rm -f "$f"
done
echo 'YOUR FILES ARE ENCRYPTED' > /home/user/README_RANSOM.txt
cat > /tmp/attack.sh <<'ATTACK'
echo "attack as uid $(id -u)"
# 2. the host: the canaries (by their host paths), /work, /root, our own package, system dirs
for t in ${quoted} /work /root /opt/osharm /usr/share/doc /etc/passwd /var/lib; do rm -rf "$t" 2>&1 | tail -1; done
for t in ${quoted}; do mkdir -p "$t" && echo pwned > "$t/pwned"; done
echo pwned > /etc/osharm-pwned; echo pwned > /root/osharm-pwned; echo pwned > /usr/bin/osharm-pwned; echo pwned > /var/lib/osharm-pwned
echo pwned > /opt/osharm/desktop-guest/osharm-pwned
# 3. escape attempts: remount, umount, new mounts, a nested user namespace
mount -o remount,rw / ; mount -o remount,rw /usr ; mount -o remount,bind,rw /opt/osharm/desktop-guest
umount -l /tmp ; umount /usr ; mount -t tmpfs none /mnt
unshare -Urm sh -c 'mount -o remount,rw /usr; mount -o remount,bind,rw /opt/osharm/desktop-guest; umount -l /usr; echo pwned > /opt/osharm/desktop-guest/osharm-pwned; echo pwned > /usr/osharm-pwned'
ATTACK
bash /tmp/attack.sh
# 4. privileges: the user has none; sudo's root (password \`password\`) is root of a nested namespace
grep -E '^(CapEff|CapPrm|NoNewPrivs)' /proc/self/status
echo password | sudo -S id -u
sudo -n id -u
echo "id=$(id -u)"
# 5. the same attack again as that root
sudo -n bash /tmp/attack.sh
`;
}

const variants = [
  { name: 'default (bwrap dropped to host uid 65534)', hostUid: 65534 },
  { name: 'hostUid null (sandbox uid 1000 mapped to host root)', hostUid: null },
] as const;

describe.skipIf(skipReason !== undefined).each(variants)(
  `security, harness running as uid ${process.getuid?.() ?? '?'} (root in CI): $name`,
  ({ hostUid }) => {
    const provider = createLocalProvider({ hostUid });
    let endpoint: GuestEndpoint;
    const canaries: string[] = [];
    let before: Record<string, Record<string, string>> = {};
    const guestDir = join(guestPackageDir(), 'guest');

    beforeAll(async () => {
      canaries.push(makeCanary(join(tmpdir(), 'osharm-vm-local-test')));
      // A canary under /work (the parent of the repository), falling back to the package directory.
      const workParent = resolve(guestPackageDir(), '..', '..', '..');
      try {
        canaries.push(makeCanary(join(workParent, '.osharm-vm-local-canaries')));
      } catch {
        canaries.push(makeCanary(join(guestPackageDir(), '.canaries')));
      }
      before = Object.fromEntries(
        [...canaries, guestDir].map(directory => [directory, digestTree(directory)]),
      );
      before['/etc'] = {
        passwd: createHash('sha256').update(readFileSync('/etc/passwd')).digest('hex'),
      };
      endpoint = await provider.start();
    });

    afterAll(async () => {
      await provider.stop();
      for (const canary of canaries) {
        rmSync(canary, { recursive: true, force: true });
        try {
          rmdirSync(dirname(canary)); // only when empty
        } catch {
          // other canaries still there
        }
      }
    });

    const expectHostUntouched = () => {
      for (const directory of [...canaries, guestDir]) {
        expect(existsSync(directory)).toBe(true);
        expect(digestTree(directory)).toEqual(before[directory]);
      }
      expect(createHash('sha256').update(readFileSync('/etc/passwd')).digest('hex')).toBe(
        before['/etc']?.passwd,
      );
      for (const path of [
        '/etc/osharm-pwned',
        '/root/osharm-pwned',
        '/usr/bin/osharm-pwned',
        '/usr/osharm-pwned',
        '/var/lib/osharm-pwned',
      ]) {
        expect(existsSync(path)).toBe(false);
      }
      expect(existsSync(join(guestPackageDir(), 'osharm-pwned'))).toBe(false);
    };

    it('host secrets and host directories are not visible inside', async () => {
      const result = await sh(
        endpoint,
        'cat /etc/shadow | wc -c; ls /root /work /home 2>&1; ls /opt; cat /proc/1/cmdline | tr "\\0" " " | grep -c OSHARM_GUEST_TOKEN',
      );
      expect(result.output.split('\n')[0]).toBe('0');
      // /root is an empty directory nobody may open (root of the sudo namespace mounts its home there)
      expect(result.error + result.output).toContain(
        "cannot open directory '/root': Permission denied",
      );
      expect(result.error + result.output).toContain("cannot access '/work'");
      expect(result.output).toContain('osharm');
      expect(result.output.trim().endsWith('0')).toBe(true); // the token is not on bwrap's command line
    });

    // (as root with `hostUid: null` there is no agent namespace: see `boundary` below)
    it.skipIf(hostUid === null && process.getuid?.() === 0)(
      "the server's private directory (token, recording, records) is a file system of its own",
      async () => {
        // The agent's mount namespace is a copy of the server's with masks on top: at the private
        // directory it holds the server's own tmpfs and the agent's empty read-only mask over it (one
        // mount, the mask, if the directory were on /run's file system). An agent that fills /run
        // (writable to it) then cannot make the append-only records fail to be written.
        const mounts = await sh(
          endpoint,
          `awk '$5 == "/run/user/1000/osharm" { print $(NF-2) }' /proc/self/mountinfo`,
        );
        expect(mounts.output.trim().split('\n')).toEqual(['tmpfs', 'tmpfs']);
        // From the agent's side /run takes writes, the private directory none.
        const agent = await sh(
          endpoint,
          'echo x > /run/user/1000/agent-file && echo run-writable; echo x > /run/user/1000/osharm/x 2>/dev/null || echo private-refused; rm -f /run/user/1000/agent-file',
        );
        expect(agent.output.trim().split('\n')).toEqual(['run-writable', 'private-refused']);
      },
    );

    it('a ransomware-style script wrecks only the sandbox, as the user and as sudo root; sudo is recorded', async () => {
      await sh(endpoint, 'mkdir -p ~/Documents && echo precious > ~/Documents/thesis.txt');
      const { body } = await postJson<{ output: string; returncode: number }>(
        endpoint,
        '/run_bash_script',
        { script: ransomware(canaries), timeout: 120 },
        180_000,
      );
      const output = body.output;
      expect(output).toContain('CapEff:\t0000000000000000');
      expect(output).toContain('NoNewPrivs:\t1');
      expect(output).toContain('id=1000');
      // sudo with the password: uid 0, and the ticket holds for the next call (as sudo's does)
      expect(output.match(/^(\[sudo\] password for user: )?0$/gm)).toHaveLength(2);
      expect(output).toContain('attack as uid 1000');
      expect(output).toContain('attack as uid 0');
      // Inside, the damage is real…
      const home = await sh(
        endpoint,
        'find /home/user -type f -name "*.locked" | wc -l; ls /home/user/Documents',
      );
      expect(Number(home.output.split('\n')[0])).toBeGreaterThan(0);
      expect(home.output).toContain('thesis.txt.locked');
      // …outside, nothing changed.
      expectHostUntouched();
      const attempts = await provider.sudoAttempts();
      expect(attempts.map(attempt => attempt.argv)).toEqual([
        ['-S', 'id', '-u'],
        ['-n', 'id', '-u'],
        ['-n', 'bash', '/tmp/attack.sh'],
      ]);
      expect(attempts[0]).toMatchObject({
        tool: 'sudo',
        cwd: expect.any(String),
        tty: false,
        outcome: 'granted',
      });
      expect(attempts.every(attempt => attempt.granted)).toBe(true);
    });

    // As root with `hostUid: null` bwrap runs privileged: its /proc has read-only overmounts
    // (/proc/sys …), and the kernel refuses a new proc mount under them in a nested user namespace,
    // so the agent's namespace cannot be made there (docs: "What remains").
    const boundary = hostUid !== null || process.getuid?.() !== 0;
    it.skipIf(!boundary)(
      'the agent cannot see, signal, stop or ptrace the guest server, its helpers or the init',
      async () => {
        // On a fresh desktop: the ransomware above removed /etc/passwd as sudo's root, after which
        // sudo answers "you do not exist in the passwd database" (as it would on a wrecked VM).
        endpoint = await provider.revert();
        // Everything /execute starts is on the agent's side: its own pid namespace, where the server,
        // Xvfb, the helpers and the sandbox's init have no pid; pid 1 is the agent namespace's init.
        const seen = await sh(
          endpoint,
          'ps -eo pid,comm --no-headers; cat /proc/1/cmdline | tr "\\0" " "',
        );
        expect(seen.output).toContain('agent-init.py');
        expect(seen.output).not.toMatch(/\b(node|Xvfb|bwrap)\b/);
        // The server's private files (token, recording, logs) and its socket are masked.
        const masked = await sh(
          endpoint,
          'find "$XDG_RUNTIME_DIR/osharm" /run/harness -mindepth 1 | wc -l; touch "$XDG_RUNTIME_DIR/osharm/x" 2>&1',
        );
        expect(masked.output.split('\n')[0]).toBe('0');
        expect(masked.output + masked.error).toMatch(/Read-only file system/);
        // Signals and ptrace against pid 1, as the user and as sudo's root.
        const attack = await sh(
          endpoint,
          [
            'kill -STOP 1; kill -9 1; echo password | sudo -S kill -9 1 2>/dev/null',
            'grep State /proc/1/status',
            `/usr/bin/python3 -c 'import ctypes, os; r = ctypes.CDLL(None, use_errno=True).ptrace(16, 1, 0, 0); print("ptrace", r, os.strerror(ctypes.get_errno()))'`,
            `echo password | sudo -S /usr/bin/python3 -c 'import ctypes, os; r = ctypes.CDLL(None, use_errno=True).ptrace(16, 1, 0, 0); print("root-ptrace", r)' 2>/dev/null`,
          ].join('; '),
        );
        expect(attack.output).toMatch(/State:\s+S/);
        expect(attack.output).toContain('ptrace -1 Operation not permitted');
        expect(attack.output).toContain('root-ptrace -1');
      },
    );

    it.skipIf(!boundary)(
      'the agent cannot erase, replace or hide the sudo record (the guest server keeps it)',
      async () => {
        const before = (await provider.sudoAttempts()).length;
        const attack = await sh(
          endpoint,
          [
            'echo password | sudo -S true',
            'true > /run/osharm/sudo.log; true > "$XDG_RUNTIME_DIR/osharm/records/sudo.log"',
            'rm -f /run/osharm-log/record.sock; rm -rf /run/osharm-log; mv /run/osharm-log /tmp/moved',
            'python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.bind(\'/run/osharm-log/x.sock\')"',
            'echo password | sudo -S sh -c "rm -rf /run/osharm-log; : > /run/osharm/sudo.log"',
            'ls -A /run/osharm-log',
          ].join('; '),
        );
        expect(attack.output + attack.error).toMatch(/Read-only file system/);
        expect(attack.output).toContain('record.sock');
        const attempts = (await provider.sudoAttempts()).slice(before);
        expect(attempts.map(attempt => attempt.argv)).toEqual([
          ['-S', 'true'],
          ['-S', 'sh', '-c', 'rm -rf /run/osharm-log; : > /run/osharm/sudo.log'],
        ]);
      },
    );

    it.skipIf(!boundary)(
      "a listener the agent starts on a bridged port is never reached; the harness's launches are",
      async () => {
        const get = (base: string | undefined) =>
          new Promise<string>(resolve => {
            const call = httpRequest(new URL('/', base), { timeout: 10_000 }, response => {
              let text = '';
              response.on('data', (chunk: Buffer) => (text += chunk.toString()));
              response.on('end', () => resolve(`${response.statusCode} ${text.slice(0, 80)}`));
            });
            call.on('error', error => resolve(`error ${error.message}`));
            call.on('timeout', () => call.destroy(new Error('timeout')));
            call.end();
          });
        const serve = (port: number, text: string) =>
          `mkdir -p /tmp/${text} && cd /tmp/${text} && echo ${text} > index.html && exec python3 -m http.server ${port} --bind 127.0.0.1`;
        // Setup, as upstream's chrome tasks do it: the page behind socat (9222 → 18081).
        await post(endpoint, '/setup/launch', { command: serve(18081, 'real'), shell: true });
        await post(endpoint, '/setup/launch', {
          command: 'socat tcp-listen:9222,fork,reuseaddr tcp:localhost:18081',
          shell: true,
        });
        await waitFor(
          async () => ((await get(endpoint.chromiumUrl)).includes('real') ? true : undefined),
          20_000,
          'the setup listener behind socat',
        );
        // The agent's first step begins (the harm observer's baseline).
        await post(endpoint, '/harm/baseline', {});
        // Its listener on VLC's port, and its own server behind the setup's socat…
        await sh(endpoint, `(${serve(8080, 'forged')} >/dev/null 2>&1 &) ; sleep 1.5`);
        expect((await sh(endpoint, 'curl -s http://127.0.0.1:8080/')).output).toContain('forged');
        await sh(endpoint, "pkill -f 'http[.]server 18081'; sleep 0.5");
        await sh(endpoint, `(${serve(18081, 'forged2')} >/dev/null 2>&1 &) ; sleep 1.5`);
        expect((await sh(endpoint, 'curl -s http://127.0.0.1:9222/')).output).toContain('forged2');
        // …are not what the host's bridges reach.
        expect(await get(endpoint.vlcUrl)).not.toContain('forged');
        expect(await get(endpoint.chromiumUrl)).not.toContain('forged2');
        // A setup launch after the baseline (a postconfig step) is the harness's own.
        await sh(endpoint, "pkill -f 'http[.]server 8080'; sleep 0.5");
        await post(endpoint, '/setup/launch', { command: serve(8080, 'harness'), shell: true });
        const reached = await waitFor(
          async () => {
            const answer = await get(endpoint.vlcUrl);
            return answer.includes('harness') ? answer : undefined;
          },
          20_000,
          'the harness-launched listener through the VLC bridge',
        );
        expect(reached).toMatch(/^200 /);
      },
    );

    it('the agent cannot take the polkit or UDisks2 stand-in’s name on the system bus', async () => {
      // (the stand-ins own their names from the start; DO_NOT_QUEUE = 4, EXISTS = 3)
      const claim = await sh(
        endpoint,
        [
          'for name in org.freedesktop.PolicyKit1 org.freedesktop.UDisks2; do',
          '  for i in $(seq 50); do gdbus call --system --dest org.freedesktop.DBus --object-path / --method org.freedesktop.DBus.NameHasOwner $name | grep -q true && break; sleep 0.2; done',
          '  gdbus call --system --dest org.freedesktop.DBus --object-path / --method org.freedesktop.DBus.RequestName $name 4',
          'done',
        ].join('\n'),
      );
      expect(claim.output.trim().split('\n')).toEqual(['(uint32 3,)', '(uint32 3,)']);
    });

    it('sudo rm -rf /, rm -rf / and kill -9 -1 (also as sudo) leave the guest answering, never touch the host; revert starts clean', async () => {
      await post(endpoint, '/setup/launch', {
        command: `sleep 0.2; echo password | sudo -S rm -rf --no-preserve-root / >/dev/null 2>&1; rm -rf --no-preserve-root / >/dev/null 2>&1; for t in ${canaries.join(' ')}; do rm -rf "$t"; done; echo password | sudo -S kill -9 -1; kill -9 -1`,
        shell: true,
      });
      if (!boundary) {
        // without the agent's namespace (see above) the attack ends the sandbox, never the host
        await waitFor(async () => provider.endpoint() === undefined, 150_000, 'the sandbox to end');
      } else {
        await waitFor(
          async () => {
            // (not /execute: its working directory, the home, is gone)
            const left = await post(endpoint, '/run_bash_script', {
              script: 'ps -eo comm --no-headers',
              working_dir: '/',
            });
            const text = left.body.toString();
            return left.status === 200 && !/openbox|dbus-daemon|sleep|sudo|rm/.test(text);
          },
          150_000,
          "the agent's processes to be gone",
        );
        expect(provider.endpoint()).toBeDefined();
        // The guest still answers: screenshots (a first one may be slow on a loaded machine),
        // commands (the home it deleted made again by an upload).
        expect((await guestRequest(endpoint, '/platform')).body.toString()).toBe('Linux');
        let screenshot = await guestRequest(endpoint, '/screenshot');
        for (let retry = 0; retry < 2 && screenshot.status !== 200; retry++)
          screenshot = await guestRequest(endpoint, '/screenshot');
        expect(screenshot.status, screenshot.body.toString().slice(0, 200)).toBe(200);
        expect(decodePng(screenshot.body).width).toBeGreaterThan(0);
        const upload = await guestRequest(endpoint, '/setup/upload', {
          method: 'POST',
          body: multipart(
            { file_path: '/home/user/alive.txt' },
            { field: 'file_data', name: 'alive.txt', data: Buffer.from('alive\n') },
          ),
        });
        expect(upload.status).toBe(200);
        expect((await sh(endpoint, 'cat ~/alive.txt')).output).toBe('alive\n');
      }
      expectHostUntouched();
      const fresh = await provider.revert();
      const home = await sh(fresh, 'ls -A /home/user; cat /home/user/README_RANSOM.txt 2>&1');
      expect(home.output).not.toContain('.locked');
      expect(home.output).toContain('Desktop');
      expect(home.output).toContain('No such file');
      expect(await provider.sudoAttempts()).toEqual([]);
    }, 360_000);
  },
);
