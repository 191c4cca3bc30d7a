import { accessSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';

/**
 * Where the bench writes its trees: OSHARM_BENCH_DIR, else a tmpfs (/dev/shm) when there is one, else
 * the OS temp dir. On a disk file system the cost of creating a file depends on what anything on the
 * machine deleted lately (ext4 without a journal skips recently freed inodes: 0.03–1.1 ms CPU per
 * create minutes apart, docs/benchmarks.md), which is not the harness's work; a tmpfs keeps it flat.
 */
export function benchDir(): string {
  const chosen = process.env.OSHARM_BENCH_DIR;
  if (chosen) return chosen;
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}
