import { spawn } from 'node:child_process';

// Runs a small Python helper inside the network namespace of a sandbox process (never the host's):
// as root the namespace is joined directly; otherwise first its owning user namespace
// (NS_GET_USERNS), which the caller created through bwrap and so holds every capability in.
const JOIN_NETNS = String.raw`
import ctypes, fcntl, os, sys
libc = ctypes.CDLL(None, use_errno=True)
net = os.open("/proc/%s/ns/net" % sys.argv[1], os.O_RDONLY)
if os.geteuid() != 0:
    owner = fcntl.ioctl(net, 0xB701)
    if libc.setns(owner, 0x10000000) != 0:
        raise OSError(ctypes.get_errno(), "setns(user namespace)")
if libc.setns(net, 0x40000000) != 0:
    raise OSError(ctypes.get_errno(), "setns(network namespace)")
`;

/**
 * Runs `body` (Python; `sys.argv[1]` is `childPid`, `sys.argv[2…]` are `args`) in the network
 * namespace of `childPid`; resolves with its stdout.
 * @throws {Error} with the helper's last stderr line (or its exit status) when it fails.
 */
export async function runInSandboxNetns(
  childPid: number,
  body: string,
  args: readonly string[] = [],
): Promise<string> {
  const child = spawn(
    '/usr/bin/python3',
    ['-I', '-c', JOIN_NETNS + body, String(childPid), ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: '/usr/bin:/bin' },
    },
  );
  let output = '';
  let error = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-2000)));
  child.stderr?.on('data', (chunk: Buffer) => (error = (error + chunk.toString()).slice(-2000)));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    // 'close', not 'exit': only then has all of stdout and stderr been read (at 'exit' the last
    // chunks may still be in the pipes: a cut error message, or an answer cut short).
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(error.trim().split('\n').pop() || `exit ${code}`);
  return output;
}
