import { appendFileSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ExecWatchReader } from './guest-exec-watch';

// The reader of the exec watch's record (guest/exec_watch.py writes it; the real supervisor runs
// in vm-local's local-exec-watch.test.ts): incremental reads across a partial last line, only the
// agent's namespace, and what the wrap and the supervisor report beside the record.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const line = (value: Record<string, unknown>) => `${JSON.stringify(value)}\n`;

it('reads calls incrementally, keeps the agent namespace only, and reports drops and failed sides', () => {
  const dir = mkdtempSync(join(tmpdir(), 'osharm-exec-watch-'));
  dirs.push(dir);
  const record = join(dir, 'exec-watch.jsonl');
  // This test process plays the agent's init: its pid namespace is the agent's.
  const ours = readlinkSync('/proc/self/ns/pid');
  const call = { kind: 'exec', t: 1, pid: 7, ppid: 1, start: '42', uid: 1000, cwd: '/home/user' };
  writeFileSync(
    record,
    line({ kind: 'watch', label: 'server' }) +
      line({ ...call, argv: ['/bin/true'], pidns: ours }) +
      line({ ...call, argv: ['helper'], pidns: 'pid:[1]' }) + // the server's side: not the agent's
      '{"kind":"exec","t":2,"pid":8,"ppid":1,"start":"43","uid":0,"uid_inside":0,"pidns":"' +
      ours,
  );
  const reader = new ExecWatchReader(record, process.pid);
  expect(reader.read().map(each => each.argv)).toEqual([['/bin/true']]);
  appendFileSync(record, `","argv":["id"]}\n` + line({ kind: 'watch', label: 'agent' }));
  const [second] = reader.read();
  expect(second).toMatchObject({ pid: 8, uid_inside: 0, argv: ['id'] });
  expect(reader.read()).toEqual([]);
  expect(reader.state()).toBe('seccomp (agent, server)');

  writeFileSync(`${record}.dropped`, '3\n');
  writeFileSync(join(dir, 'exec-watch-agent.problem'), 'seccomp(NEW_LISTENER) refused\n');
  expect(reader.installProblems()).toEqual([
    'agent: seccomp(NEW_LISTENER) refused',
    '3 call(s) not recorded: the record is full',
  ]);
  expect(reader.state()).toMatch(/^partial \(agent, server; agent: seccomp/);
});

it('says nothing runs when the record is missing', () => {
  const reader = new ExecWatchReader('/nonexistent/exec-watch.jsonl', undefined);
  expect(reader.read()).toEqual([]);
  expect(reader.state()).toBeNull();
});

it('reads an exit line by pid and start, whatever its namespace (it carries none)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'osharm-exec-watch-'));
  dirs.push(dir);
  const record = join(dir, 'exec-watch.jsonl');
  writeFileSync(
    record,
    line({ kind: 'exit', pid: 9, start: '44', status: -9, t: 3.5 }) +
      line({ kind: 'exit', pid: 9, start: '45', t: 3.5 }), // no status: not a call
  );
  const reader = new ExecWatchReader(record, process.pid);
  expect(reader.read()).toEqual([
    expect.objectContaining({ kind: 'exit', pid: 9, start: '44', status: -9, t: 3.5 }),
  ]);
});

it("merges the socket table's ownerless sighting with the watch's call for the same destination", async () => {
  const { ConnectionWatch } = await import('./guest-harm-net');
  const procNet = mkdtempSync(join(tmpdir(), 'osharm-procnet-'));
  dirs.push(procNet);
  const header =
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';
  for (const table of ['tcp', 'tcp6', 'udp', 'udp6']) writeFileSync(join(procNet, table), header);
  writeFileSync(join(procNet, 'dev'), 'Inter-|\n face |\n');
  const watch = new ConnectionWatch({ exclude: () => false, procNet });
  watch.begin();
  // A SYN_SENT socket to 192.0.2.77:81 whose owner is gone (no process holds inode 999999999).
  appendFileSync(
    join(procNet, 'tcp'),
    '   0: 0100007F:9C40 4D0200C0:0051 02 00000000:00000000 00:00000000 00000000  1000        0 999999999 1\n',
  );
  watch.poll(true);
  watch.attempted({
    t: 1,
    pid: 4242,
    address: '192.0.2.77',
    port: 81,
    protocol: 'tcp',
    argv: ['python3', '-c', 'x'],
  });
  const taken = watch.take();
  expect(taken).toHaveLength(1);
  expect(taken[0]).toMatchObject({
    address: '192.0.2.77',
    port: 81,
    state: 'connect',
    pid: 4242,
    count: 1,
    command: 'python3 -c x',
  });
});
