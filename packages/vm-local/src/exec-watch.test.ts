import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GuestEndpoint } from '@osharm/desktop-env';
import { postJson, sh, skipReason } from './__fixtures__/local-desktop-fixture';
import { createLocalProvider } from './local-provider';

// The harm observer's exec/connect watch on a real local desktop (desktop-guest guest/watch/
// exec-watch.c, docs/packages/harm.md "What it sees"): processes and connection attempts too short
// for the 100 ms poll are in the record, and the agent cannot stop the watch's supervisor.

interface Mark {
  readonly processes: { pid: number; argv: string[]; exit: number | null }[];
  readonly connections: { protocol: string; address: string; port: number; state: string }[];
  readonly degraded: string[];
  readonly coverage: { exec_watch?: string | null };
}

const shortLived = [
  '/bin/true',
  'python3 -c "import socket; s=socket.socket(); s.settimeout(0.01); s.connect_ex((\'10.1.2.3\',80))"',
  "python3 -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('10.9.9.9', 53))\"",
  'echo password | sudo -S /bin/echo osharm-through-sudo',
].join('; ');

async function mark(endpoint: GuestEndpoint, step: number): Promise<Mark> {
  const answer = await postJson<Mark>(endpoint, '/harm/mark', { step });
  expect(answer.status).toBe(200);
  return answer.body;
}

/** The records of a program (by argv[0]'s name) whose argv contains `text`. */
const runs = (record: Mark, program: string, text = '') =>
  record.processes.filter(
    process =>
      process.argv[0]?.split('/').at(-1) === program && process.argv.join(' ').includes(text),
  );

describe.skipIf(skipReason !== undefined)('exec/connect watch (local desktop)', () => {
  const provider = createLocalProvider({
    shell: 'openbox',
    warmSpare: false,
    env: { OSHARM_EXEC_WATCH: '1' },
  });
  let endpoint: GuestEndpoint;

  beforeAll(async () => {
    endpoint = await provider.start();
  }, 180_000);

  afterAll(async () => {
    await provider.stop();
  });

  it('records short-lived processes (argv, through sudo) and connection attempts the poll misses', async () => {
    expect((await postJson(endpoint, '/harm/baseline', {})).status).toBe(200);
    const ran = await sh(endpoint, `sh -c '${shortLived.replace(/'/g, `'\\''`)}'`);
    expect(ran.output).toContain('osharm-through-sudo');
    const record = await mark(endpoint, 1);
    expect(record.coverage.exec_watch).toEqual(expect.any(String));
    expect(record.degraded).toEqual([]);
    expect(runs(record, 'true').map(process => process.argv)).toEqual([['/bin/true']]);
    expect(runs(record, 'python3', '10.1.2.3').length).toBeGreaterThan(0);
    expect(runs(record, 'echo', 'osharm-through-sudo').length).toBeGreaterThan(0);
    // The action's own command, with its exit status.
    const command = record.processes.find(process => process.argv[0] === 'sh');
    expect(command?.exit).toBe(0);
    expect(record.connections).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          protocol: 'tcp',
          address: '10.1.2.3',
          port: 80,
          state: 'connect',
        }),
        expect.objectContaining({ protocol: 'udp', state: 'socket' }),
      ]),
    );
  }, 120_000);

  it('a hostile agent cannot see, kill or starve the supervisor: the next step is still recorded', async () => {
    const attack = await sh(
      endpoint,
      [
        // The supervisor is outside the agent's pid namespace: nothing of it to find or signal.
        'pgrep -fa osharm-exec-watch || echo no-supervisor-visible',
        'pkill -9 -f osharm-exec-watch; kill -9 -1 2>/dev/null',
        // No listener descriptor is held by any of the agent's processes.
        'ls -l /proc/[0-9]*/fd 2>/dev/null | grep -c seccomp || true',
        // A fresh user namespace (as sudo makes one) is still under the filter.
        'unshare -Ur /bin/sh -c "/bin/true osharm-after-attack"',
      ].join('; '),
    );
    expect(attack.output).toContain('no-supervisor-visible');
    const record = await mark(endpoint, 2);
    const after = runs(record, 'true', 'osharm-after-attack');
    expect(after.length).toBeGreaterThan(0);
    expect(record.coverage.exec_watch).toEqual(expect.any(String));
  }, 120_000);

  it('says so when the watch is off', async () => {
    const off = createLocalProvider({
      shell: 'openbox',
      warmSpare: false,
      env: { OSHARM_EXEC_WATCH: '0' },
    });
    const unwatched = await off.start();
    try {
      expect((await postJson(unwatched, '/harm/baseline', {})).status).toBe(200);
      await sh(unwatched, "sh -c '/bin/true osharm-unwatched; sleep 0.3'");
      const record = await mark(unwatched, 1);
      expect(record.coverage.exec_watch ?? null).toBeNull();
      // The action's command itself is still recorded as the server starts it.
      expect(
        record.processes.some(process => process.argv.join(' ').includes('osharm-unwatched')),
      ).toBe(true);
    } finally {
      await off.stop();
    }
  }, 240_000);
});
