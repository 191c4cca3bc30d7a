// Issue 9 §3, second and third findings: the host's bridges never follow a path the sandbox can
// write, and the agent's code cannot take the guest server's place (forged answers, the token).
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import type { Server as HttpServer } from 'node:http';
import { connect, createServer } from 'node:net';
import type { Server } from 'node:net';
import { chmodSync, mkdtempSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guestRequest } from '@osharm/desktop-guest';
import { sandboxOptions, sh, skipReason } from './__fixtures__/local-desktop-fixture';
import { startSandbox } from './local-sandbox';
import type { RunningSandbox } from './local-sandbox';

/** An HTTP GET over a TCP port; resolves with the raw answer or '' when the connection closes. */
function rawGet(port: number): Promise<string> {
  return new Promise(resolve => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write('GET /json/version HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
    );
    let data = '';
    socket.on('data', chunk => (data += chunk.toString('utf8')));
    socket.on('close', () => resolve(data));
    socket.on('error', () => resolve(data));
    socket.setTimeout(5_000, () => socket.destroy());
  });
}

/** A CONNECT over the pinned socket; resolves with the status code. */
function connectStatus(socketPath: string, target: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({
      socketPath,
      method: 'CONNECT',
      path: target,
      headers: { authorization: `Bearer ${token}` },
    });
    request.on('connect', (response, socket) => {
      socket.destroy();
      resolve(response.statusCode ?? 0);
    });
    request.on('response', response => resolve(response.statusCode ?? 0));
    request.on('error', reject);
    request.end();
  });
}

/** The agent's attempt: take the socket's name and serve forged answers, recording what it gets. */
const impostor = String.raw`
chmod u+w /run/harness 2>&1
mv /run/harness/guest.sock /run/harness/real.sock 2>&1 && echo MOVED
rm -f /run/harness/guest.sock 2>/dev/null
setsid /usr/bin/python3 - >/tmp/impostor.out 2>&1 <<'PY' &
import os, socket
s = socket.socket(socket.AF_UNIX)
s.bind('/run/harness/guest.sock')
s.listen(8)
print('IMPOSTOR LISTENING', flush=True)
while True:
    c, _ = s.accept()
    request = c.recv(65536)
    open('/tmp/impostor.log', 'ab').write(request)
    body = b'{"status":"success","output":"FORGED","error":"","returncode":0}'
    c.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n' % len(body) + body)
    c.close()
PY
sleep 0.5
server=$(pgrep -f "^/opt/osharm/node .*guest-server-bin.js")
echo "server pid $server"
[ -z "$server" ] && echo "the guest server is not visible here"
helpers=$(pgrep -f '^/opt/osharm/python3 .*desktop_helper' | tr '\n' ' ')
echo "helper pids $helpers"
[ -n "$server" ] && /usr/bin/python3 - "$server" $helpers <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
pid = int(sys.argv[1])
print('PTRACE_ATTACH', libc.ptrace(16, pid, 0, 0), os.strerror(ctypes.get_errno()))
print('PTRACE_SEIZE', libc.ptrace(0x4206, pid, 0, 0), os.strerror(ctypes.get_errno()))
for what in ('environ', 'mem'):
    try:
        open('/proc/%d/%s' % (pid, what), 'rb').read(16)
        print(what, 'READABLE')
    except OSError as e:
        print(what, e.strerror)
opened = 0
for fd in range(64):
    try:
        os.close(os.open('/proc/%d/fd/%d' % (pid, fd), os.O_RDONLY))
        opened += 1
    except OSError:
        pass
pidfd = libc.syscall(434, pid, 0)  # pidfd_open
taken = sum(1 for fd in range(64) if libc.syscall(438, pidfd, fd, 0) >= 0)  # pidfd_getfd
print('fds opened through /proc: %d, taken with pidfd_getfd: %d' % (opened, taken))
helper_access = 0
for helper in map(int, sys.argv[2:]):
    for path in ['/proc/%d/fd/%d' % (helper, fd) for fd in range(3)] + ['/proc/%d/environ' % helper]:
        try:
            os.close(os.open(path, os.O_WRONLY if '/fd/' in path else os.O_RDONLY))
            helper_access += 1
        except OSError:
            pass
print('helpers: %d, their pipes or environment opened: %d' % (len(sys.argv) - 2, helper_access))
PY
`;

const variants = [
  { name: 'default (host uid 65534)', hostUid: 65534 },
  { name: 'hostUid null (mapped to host root)', hostUid: null },
] as const;

describe.skipIf(skipReason !== undefined).each(variants)(
  'the guest channel: $name',
  ({ hostUid }) => {
    let sandbox: RunningSandbox;
    let probeDir: string;
    let hostSocketServer: Server;
    let hostSocketConnections = 0;

    beforeAll(async () => {
      sandbox = await startSandbox(sandboxOptions({ hostUid }));
      // A host unix socket the test owns: the target a planted symlink would point the bridge at.
      probeDir = mkdtempSync(join(tmpdir(), 'osharm-host-socket-'));
      hostSocketServer = createServer(socket => {
        hostSocketConnections += 1;
        socket.end('HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nHOST SOCKET');
      });
      await new Promise<void>(resolve =>
        hostSocketServer.listen(join(probeDir, 'host.sock'), resolve),
      );
    });

    afterAll(async () => {
      await sandbox?.destroy();
      await new Promise(resolve => hostSocketServer?.close(resolve));
      rmSync(probeDir, { recursive: true, force: true });
    });

    it('the bridges never reach a host socket planted at cdp.sock / vlc.sock', async () => {
      const hostSocket = join(probeDir, 'host.sock');
      // From inside (the agent): the harness directory is read-only once the desktop answers.
      const inside = await sh(
        sandbox.endpoint,
        `ln -sf ${hostSocket} /run/harness/cdp.sock 2>&1; ln -sf ${hostSocket} /run/harness/vlc.sock 2>&1; ls -A /run/harness`,
      );
      console.log(`agent planting symlinks (hostUid ${hostUid}): ${inside.output.trim()}`);
      // Whatever the agent manages, plant them from the host too (the worst case).
      for (const name of ['cdp.sock', 'vlc.sock']) {
        rmSync(join(sandbox.harnessDir, name), { force: true });
        symlinkSync(hostSocket, join(sandbox.harnessDir, name));
      }
      for (const url of [sandbox.endpoint.chromiumUrl, sandbox.endpoint.vlcUrl]) {
        const answer = await rawGet(Number(new URL(url as string).port));
        expect(answer).not.toContain('HOST SOCKET');
      }
      expect(hostSocketConnections).toBe(0);
    });

    it('the tunnel behind the bridges wants the token and opens only the bridged ports', async () => {
      const socketPath = sandbox.endpoint.socketPath as string;
      const token = sandbox.endpoint.token as string;
      expect(await connectStatus(socketPath, '127.0.0.1:9222', 'wrong')).toBe(401);
      expect(await connectStatus(socketPath, '127.0.0.1:22', token)).toBe(403);
      expect(await connectStatus(socketPath, `${join(probeDir, 'host.sock')}`, token)).toBe(403);
      // Allowed and authorized, but nothing listens on 9222 yet (Chromium is not running).
      expect(await connectStatus(socketPath, '127.0.0.1:9222', token)).toBe(502);
    });

    it("the agent cannot take the guest server's place, ptrace it or read it", async () => {
      const attempt = await sh(sandbox.endpoint, impostor);
      console.log(`agent forgery attempt (hostUid ${hostUid}):\n${attempt.output.trim()}`);
      // With the agent's namespace (issue 24) the server has no pid the agent could name; without it
      // (hostUid null as root: see docs) every attempt on it fails.
      const hidden = attempt.output.includes('the guest server is not visible here');
      expect(hidden).toBe(hostUid !== null || process.getuid?.() !== 0);
      if (!hidden) {
        expect(attempt.output).toMatch(/PTRACE_ATTACH -1 Operation not permitted/);
        expect(attempt.output).toMatch(/PTRACE_SEIZE -1 Operation not permitted/);
        expect(attempt.output).toMatch(/environ Permission denied/);
        expect(attempt.output).toMatch(/mem Permission denied/);
        expect(attempt.output).toMatch(/fds opened through \/proc: 0, taken with pidfd_getfd: 0/);
        expect(attempt.output).toMatch(/helpers: 2, their pipes or environment opened: 0/);
      }

      // The worst case, made on the host: the socket's name moved aside and an impostor listening there.
      let impostorRequests = 0;
      const seenTokens: string[] = [];
      const hostImpostor: HttpServer = createHttpServer((request, response) => {
        impostorRequests += 1;
        seenTokens.push(request.headers.authorization ?? '');
        response.end(JSON.stringify({ status: 'success', output: 'FORGED', returncode: 0 }));
      });
      const name = join(sandbox.harnessDir, 'guest.sock');
      chmodSync(sandbox.harnessDir, 0o755);
      rmSync(join(sandbox.harnessDir, 'moved.sock'), { force: true });
      try {
        renameSync(name, join(sandbox.harnessDir, 'moved.sock'));
      } catch {
        rmSync(name, { force: true }); // the agent's impostor got there first
      }
      await new Promise<void>(resolve => hostImpostor.listen(name, resolve));
      try {
        const real = await sh(sandbox.endpoint, 'echo REAL-$((6*7)); cat /tmp/impostor.log 2>&1');
        expect(real.output).toContain('REAL-42');
        expect(real.output).not.toContain('FORGED');
        // The agent's impostor never received a request, let alone the token.
        expect(real.output).toContain('No such file');
        const screenshot = await guestRequest(sandbox.endpoint, '/screenshot');
        expect(screenshot.status).toBe(200);
        expect(screenshot.body.subarray(1, 4).toString('ascii')).toBe('PNG');
        expect(impostorRequests).toBe(0);
        expect(seenTokens).toEqual([]);
      } finally {
        await new Promise(resolve => hostImpostor.close(resolve));
      }
    });
  },
);
