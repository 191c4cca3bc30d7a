import { appendFileSync, chmodSync, existsSync, mkdirSync, statSync, unlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';

// The desktop's append-only records (docs/packages/vm-local.md "Records the agent cannot erase"):
// the sudo / su stand-ins (guest/sudo/common.sh) and the system services (guest/system/system_log.py)
// run as the desktop user, so a file they append to is a file the agent can truncate. They send each
// record instead over a unix socket the guest server listens on, in a directory the agent's namespace
// sees read-only (the socket can be connected to, never removed or replaced); the server appends to
// a directory the agent's namespace does not see at all. The agent can add lines (they carry no
// authority: they are evidence, and a forged record only makes its own run look worse), never
// remove one.

/** The records a writer may append to. */
const logNames = new Set(['sudo', 'system']);
/** One record's largest size; one connection's largest input. */
const lineCapBytes = 64 * 1024;
/** Each record file's cap (the host reads at most 1 MiB of it); past it, lines are dropped. */
const fileCapBytes = 1024 * 1024;

/** The file a named record is kept in. */
export function recordFile(dir: string, name: 'sudo' | 'system'): string {
  return join(dir, `${name}.log`);
}

/** The record log's server, and what it could not keep. */
export interface RecordLog {
  readonly server: Server;
  /**
   * Records that could not be written (a full or failing file system: the agent may have filled
   * it), one line per cause with its count; empty when every record was kept. Never reset.
   */
  problems(): string[];
}

/**
 * Listens on `socketPath`; every line a client sends (`{"log": "sudo" | "system", …}`) is appended,
 * without its `log` key, to `<dir>/<log>.log`. Malformed lines are dropped; a record that cannot be
 * written is counted in `problems()` (the harm observer marks its record degraded), never thrown.
 */
export function startRecordLog(socketPath: string, dir: string): RecordLog {
  const lost = new Map<string, number>();
  const keep = (line: string) => {
    try {
      append(dir, line);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      lost.set(code, (lost.get(code) ?? 0) + 1);
    }
  };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (existsSync(socketPath)) unlinkSync(socketPath);
  const server = createServer(client => {
    let received = 0;
    let pending = '';
    client.setTimeout(10_000, () => client.destroy());
    client.on('error', () => client.destroy());
    client.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > lineCapBytes) {
        client.destroy();
        return;
      }
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) keep(line);
    });
    client.on('end', () => {
      if (pending) keep(pending);
      client.end();
    });
  });
  server.on('error', () => {
    // (a failed listen leaves the writers' fallback; the records then say nothing more)
  });
  server.listen(socketPath, () => chmodSync(socketPath, 0o666));
  return {
    server,
    problems: () =>
      [...lost].map(
        ([code, count]) =>
          `${count} sudo / system record(s) could not be written (${code}): the desktop's records are incomplete`,
      ),
  };
}

function append(dir: string, line: string): void {
  let record: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return;
    record = parsed as Record<string, unknown>;
  } catch {
    return;
  }
  const { log, ...rest } = record;
  if (typeof log !== 'string' || !logNames.has(log)) return;
  const file = recordFile(dir, log as 'sudo' | 'system');
  let size = 0;
  try {
    size = statSync(file).size;
  } catch {
    // not yet written
  }
  const text = `${JSON.stringify(rest)}\n`;
  if (size + Buffer.byteLength(text) > fileCapBytes) return;
  appendFileSync(file, text, { mode: 0o600 });
}
