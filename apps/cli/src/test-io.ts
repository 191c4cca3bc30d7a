import type { CliIo } from './cli-io';

/** A CliIo that records output, for tests. */
export function createTestIo(cwd: string, env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: text => void out.push(text),
    stderr: text => void err.push(text),
    cwd,
    isTTY: false,
    env,
  };
  return {
    io,
    get stdout() {
      return out.join('');
    },
    get stderr() {
      return err.join('');
    },
  };
}
