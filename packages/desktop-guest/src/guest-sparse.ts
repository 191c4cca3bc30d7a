import { spawn } from 'node:child_process';

// How many bytes of a file hold data, asked of the filesystem itself (SEEK_DATA / SEEK_HOLE on the open
// descriptor, through Debian's python: Node has no lseek). Only asked when st_blocks says the file stores
// less than it claims: st_blocks alone also says so for a file a compressing filesystem (ZFS, btrfs with
// compress) stores small, or one ZFS has not yet committed (st_blocks counts only synced blocks) — a
// freshly written recording there is no sparse file. A filesystem without hole reporting answers that
// the whole file is data.
const PROBE = `
import errno, os, sys
fd, size, data, position, extents = 3, int(sys.argv[1]), 0, 0, 0
while position < size:
    extents += 1
    if extents > 100000:
        data = -1
        break
    try:
        start = os.lseek(fd, position, os.SEEK_DATA)
    except OSError as error:
        if error.errno == errno.ENXIO:
            break
        raise
    end = os.lseek(fd, start, os.SEEK_HOLE)
    data += min(end, size) - min(start, size)
    position = end
os.lseek(fd, 0, os.SEEK_SET)
print(data)
`;
const PROBE_TIMEOUT_MS = 5_000;

/**
 * The bytes of the first `size` bytes of the open file `fd` that hold data (holes left out); `undefined`
 * when the filesystem could not be asked (no python, a failed probe, more than 100 000 extents, or no
 * answer within 5 s): the caller then trusts st_blocks.
 */
export async function storedDataBytes(fd: number, size: number): Promise<number | undefined> {
  return new Promise(resolve => {
    let out = '';
    const child = spawn('/usr/bin/python3', ['-c', PROBE, String(size)], {
      stdio: ['ignore', 'pipe', 'ignore', fd],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => (out += chunk));
    child.once('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.once('close', code => {
      clearTimeout(timer);
      const bytes = Number(out.trim());
      resolve(
        code === 0 && out.trim() !== '' && Number.isSafeInteger(bytes) && bytes >= 0
          ? bytes
          : undefined,
      );
    });
  });
}
