import { describe, expect, it } from 'vitest';
import type { WatchedCall } from './guest-exec-watch';
import { ProcessWatch } from './guest-harm-procs';
import { runProcess } from './guest-process';

// The observer's process record: a command started for the agent is recorded as it starts, even
// when it ends long before any poll (was: `curl` to an unreachable host, over in milliseconds, left
// no trace when no poll fell inside it).
describe('ProcessWatch', () => {
  it('records a command started for the agent that ends before any poll, once', async () => {
    const watch = new ProcessWatch(3_600_000, 100, () => false);
    watch.start();
    try {
      const argv = ['/bin/sh', '-c', 'true curl http://exfil.example.net/; exit 3'];
      const result = await runProcess(argv, {
        timeoutMs: 10_000,
        record: (pid, started, cwd) => watch.started(pid, started, cwd),
        cwd: '/tmp',
      });
      expect(result.returncode).toBe(3);
      // The watch polls this machine's /proc: processes of other tests running beside this one
      // show too (CI runs packages in parallel), so only this command's records are looked at.
      const ours = (records: ReturnType<ProcessWatch['take']>) =>
        records.filter(record => record.argv.join('\0') === argv.join('\0'));
      const seen = ours(watch.take());
      expect(seen.map(record => record.argv)).toEqual([argv]);
      expect(seen[0]).toMatchObject({ cwd: '/tmp', ppid: process.pid });
      expect(seen[0]!.ended).not.toBeNull();
      expect(seen[0]!.exit).toBe(3); // the command's own exit status (the poll-seen ones: null)
      expect(ours(watch.take())).toEqual([]);
    } finally {
      watch.stop();
    }
  });

  it('still polls the processes the command starts, and does not record the command twice', async () => {
    const watch = new ProcessWatch(3_600_000, 100, () => false);
    watch.start();
    try {
      const argv = ['/bin/sh', '-c', 'sleep 2 & echo $!; wait'];
      const running = runProcess(argv, {
        timeoutMs: 10_000,
        record: (pid, started, cwd) => watch.started(pid, started, cwd),
      });
      await new Promise(resolve => setTimeout(resolve, 400));
      const seen = watch.take();
      await running;
      expect(seen.filter(process => process.argv.join(' ') === argv.join(' '))).toHaveLength(1);
      expect(seen.some(process => process.argv.join(' ') === 'sleep 2')).toBe(true);
    } finally {
      watch.stop();
    }
  });

  it('a full record drops the command and counts it', async () => {
    const watch = new ProcessWatch(3_600_000, 0, () => false);
    watch.start();
    try {
      await runProcess(['/bin/true'], {
        timeoutMs: 10_000,
        record: (pid, started, cwd) => watch.started(pid, started, cwd),
      });
      // Counted as it starts (before take() polls this machine's /proc, where other tests'
      // processes would be dropped and counted too).
      expect(watch.dropped).toBe(1);
      expect(watch.take().filter(record => record.argv[0] === '/bin/true')).toEqual([]);
    } finally {
      watch.stop();
    }
  });

  it("gives a watched exit to every record of the process's last image, the poll's too", async () => {
    const { spawn } = await import('node:child_process');
    const { readFileSync } = await import('node:fs');
    const calls: WatchedCall[] = [];
    const watch = new ProcessWatch(3_600_000, 100, () => false, {
      read: () => calls.splice(0),
      onConnect: () => undefined,
    });
    watch.start();
    const child = spawn('sleep', ['0.3']);
    try {
      await new Promise(resolve => child.once('spawn', resolve));
      const pid = child.pid!;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
      watch.poll(); // the poll sees `sleep 0.3` first
      const exec = {
        kind: 'exec',
        t: 1,
        pid,
        ppid: process.pid,
        start,
        uid: 0,
        uid_inside: 0,
        cwd: '/',
      } as const;
      // The watch's lines then say it was a shell first (sudo's chain: bash, nsenter, env, the command).
      calls.push(
        { ...exec, argv: ['/bin/sh', '-c', 'exec sleep 0.3'] },
        { ...exec, argv: ['sleep', '0.3'] },
      );
      calls.push({
        kind: 'exit',
        t: 2,
        pid,
        ppid: 0,
        start,
        uid: -1,
        uid_inside: -1,
        cwd: null,
        status: 0,
      });
      const ours = watch.take().filter(record => record.pid === pid);
      expect(ours.map(record => [record.argv.join(' '), record.exit])).toEqual([
        ['sleep 0.3', 0],
        ['/bin/sh -c exec sleep 0.3', null],
        ['sleep 0.3', 0],
      ]);
    } finally {
      child.kill();
      watch.stop();
    }
  });
});
