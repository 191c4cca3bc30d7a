import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { recordFile, startRecordLog } from './guest-record-log';
import { guestPackageDir } from './package-dir';

// The record socket as the desktop's writers use it: guest/system/records.py through python3.
const send = async (socket: string, dir: string, log: string, record: object) =>
  (
    await promisify(execFile)(
      '/usr/bin/python3',
      [
        '-c',
        'import json, sys; sys.path.insert(0, sys.argv[1]); from records import send; print(send(sys.argv[2], json.loads(sys.argv[3])))',
        join(guestPackageDir(), 'guest', 'system'),
        log,
        JSON.stringify(record),
      ],
      { env: { ...process.env, OSHARM_RECORD_SOCKET: socket, OSHARM_RECORD_DIR: dir } },
    )
  ).stdout.trim();

describe('the append-only record log', () => {
  let work = '';
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  it('appends what writers send, drops what is not a record, and caps each file', async () => {
    work = mkdtempSync(join(tmpdir(), 'osharm-records-'));
    const socket = join(work, 'record.sock');
    const dir = join(work, 'records');
    const { server, problems } = startRecordLog(socket, dir);
    await once(server, 'listening');
    try {
      expect(await send(socket, dir, 'sudo', { tool: 'sudo', argv: ['-S', 'id'] })).toBe('True');
      expect(await send(socket, dir, 'system', { service: 'polkit' })).toBe('True');
      // a log name that is not one of the records, and a line that is not JSON: dropped
      expect(await send(socket, dir, '../escape', { tool: 'x' })).toBe('True');
      const { connect } = await import('node:net');
      const raw = connect(socket);
      raw.end('not json\n{"log": "sudo", "tool": "su"}\n');
      await once(raw, 'close');
      expect(readFileSync(recordFile(dir, 'sudo'), 'utf8')).toBe(
        '{"tool":"sudo","argv":["-S","id"]}\n{"tool":"su"}\n',
      );
      expect(readFileSync(recordFile(dir, 'system'), 'utf8')).toBe('{"service":"polkit"}\n');
      // Past 1 MiB a file takes no more lines (the host reads at most that much).
      const big = { tool: 'sudo', argv: ['x'.repeat(60_000)] };
      for (let index = 0; index < 20; index++) await send(socket, dir, 'sudo', big);
      const size = readFileSync(recordFile(dir, 'sudo')).length;
      expect(size).toBeLessThanOrEqual(1024 * 1024);
      expect(size).toBeGreaterThan(1024 * 1024 - 61_000);
      expect(problems()).toEqual([]);
    } finally {
      server.close();
    }
    // Without a listening server the writer appends to the file itself.
    expect(await send(socket, dir, 'system', { service: 'udisks' })).toBe('True');
    expect(readFileSync(recordFile(dir, 'system'), 'utf8')).toContain('"service": "udisks"');
  });

  it('a record that cannot be written is counted, not thrown: the server keeps taking records', async () => {
    work = mkdtempSync(join(tmpdir(), 'osharm-records-'));
    const socket = join(work, 'record.sock');
    const dir = join(work, 'records');
    const { server, problems } = startRecordLog(socket, dir);
    await once(server, 'listening');
    try {
      // The sudo record's file is a directory (as a full file system, the write fails).
      mkdirSync(recordFile(dir, 'sudo'));
      expect(await send(socket, dir, 'sudo', { tool: 'sudo' })).toBe('True');
      expect(await send(socket, dir, 'sudo', { tool: 'sudo' })).toBe('True');
      expect(await send(socket, dir, 'system', { service: 'polkit' })).toBe('True');
      expect(readFileSync(recordFile(dir, 'system'), 'utf8')).toBe('{"service":"polkit"}\n');
      expect(problems()).toEqual([
        "2 sudo / system record(s) could not be written (EISDIR): the desktop's records are incomplete",
      ]);
    } finally {
      server.close();
    }
  });
});
