import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirectoryGuest } from './__fixtures__/directory-guest';
import { EvaluationError } from './evaluator-error';
import { getCacheFile, getCloudFile, getVmFile } from './getter-file';
import type { GetterContext } from './getter-types';

const scratch = mkdtempSync(join(tmpdir(), 'osharm-getter-file-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let counter = 0;
function setup(): { guest: DirectoryGuest; context: GetterContext; cacheDir: string } {
  const root = join(scratch, `guest${counter}`);
  const cacheDir = join(scratch, `cache${counter++}`);
  const guest = new DirectoryGuest(root);
  return {
    guest,
    cacheDir,
    context: { client: guest, cacheDir, now: () => new Date(2025, 0, 2, 3, 4, 5) },
  };
}

describe('vm_file', () => {
  it('fetches a guest file into cacheDir/dest and returns the local path', async () => {
    const { guest, context, cacheDir } = setup();
    guest.put('/home/user/Desktop/concat.docx', 'docx bytes');
    const path = await getVmFile(context, {
      type: 'vm_file',
      path: '/home/user/Desktop/concat.docx',
      dest: 'concat.docx',
    });
    expect(path).toBe(join(cacheDir, 'concat.docx'));
    expect(readFileSync(path as string, 'utf8')).toBe('docx bytes');
    // no temporary file is left behind
    expect(readdirSync(cacheDir)).toEqual(['concat.docx']);
  });

  it('gives null for a missing file or a failing request', async () => {
    const { guest, context } = setup();
    expect(
      await getVmFile(context, { type: 'vm_file', path: '/nope.txt', dest: 'nope.txt' }),
    ).toBeNull();
    guest.put('/x.txt', 'x');
    guest.failingPaths.add('/x.txt');
    expect(await getVmFile(context, { type: 'vm_file', path: '/x.txt', dest: 'x.txt' })).toBeNull();
  });

  it('tells the run of a file it did not get (a failed request), not of a missing one', async () => {
    const { guest, context } = setup();
    const withheld: unknown[] = [];
    const told = { ...context, onWithheld: (file: unknown) => withheld.push(file) };
    expect(await getVmFile(told, { type: 'vm_file', path: '/nope.txt', dest: 'n.txt' })).toBeNull();
    expect(withheld).toEqual([]);
    guest.put('/x.txt', 'x');
    guest.failingPaths.add('/x.txt');
    expect(await getVmFile(told, { type: 'vm_file', path: '/x.txt', dest: 'x.txt' })).toBeNull();
    expect(withheld).toEqual([{ path: '/x.txt', reason: expect.any(String), bytes: 0 }]);
  });

  it('a file cut at the download cap is given as missing and told, with the bytes received', async () => {
    const { context } = setup();
    const withheld: unknown[] = [];
    const capped = {
      ...context,
      client: {
        ...context.client,
        getFile: context.client.getFile.bind(context.client),
        downloadFile: async (_path: string, destination: string) => {
          writeFileSync(destination, 'first bytes');
          return { bytes: 11, truncated: true };
        },
      },
      onWithheld: (file: unknown) => withheld.push(file),
    };
    expect(
      await getVmFile(capped, { type: 'vm_file', path: '/big.bin', dest: 'big.bin' }),
    ).toBeNull();
    expect(withheld).toEqual([{ path: '/big.bin', reason: 'cut at its cap', bytes: 11 }]);
    expect(existsSync(join(context.cacheDir, 'big.bin'))).toBe(false);
  });

  it('multi + gives: returns the given entries in file order (null for missing ones)', async () => {
    const { guest, context, cacheDir } = setup();
    guest.put('/a.txt', 'a');
    guest.put('/c.txt', 'c');
    const config = {
      type: 'vm_file',
      multi: true,
      path: ['/a.txt', '/b.txt', '/c.txt'],
      dest: ['a.txt', 'b.txt', 'c.txt'],
    };
    expect(await getVmFile(context, { ...config, gives: [2, 0, 1] })).toEqual([
      join(cacheDir, 'a.txt'),
      null,
      join(cacheDir, 'c.txt'),
    ]);
    // one given index → the bare value; every file is fetched anyway
    expect(await getVmFile(context, { ...config, gives: [2] })).toBe(join(cacheDir, 'c.txt'));
    expect(await getVmFile(context, config)).toBe(join(cacheDir, 'a.txt'));
    expect(await getVmFile(context, { ...config, gives: [] })).toEqual([]);
  });

  it('time_suffix inserts the time before the extension of dest only (U26)', async () => {
    const { guest, context, cacheDir } = setup();
    guest.put('/home/user/report.tar.gz', 'r');
    const path = await getVmFile(context, {
      type: 'vm_file',
      path: '/home/user/report.tar.gz',
      dest: 'report.tar.gz',
      time_suffix: true,
    });
    expect(path).toBe(join(cacheDir, 'report.tar_20250102_030405.gz'));
    const custom = await getVmFile(context, {
      type: 'vm_file',
      path: '/home/user/report.tar.gz',
      dest: 'report',
      time_suffix: true,
      time_format: '%Y-%m-%d',
    });
    expect(custom).toBe(join(cacheDir, 'report_2025-01-02'));
    expect(
      guest.calls.filter(call => call.method === 'getFile').map(call => call.argument),
    ).toEqual(['/home/user/report.tar.gz', '/home/user/report.tar.gz']);
  });

  it('rejects bad configs', async () => {
    const { context } = setup();
    await expect(
      getVmFile(context, { type: 'vm_file', path: ['/a'], dest: ['a'] }),
    ).rejects.toThrow(/multi: true/);
    await expect(
      getVmFile(context, { type: 'vm_file', multi: true, path: '/a', dest: 'a' }),
    ).rejects.toThrow(EvaluationError);
    await expect(
      getVmFile(context, { type: 'vm_file', path: '/a', dest: '../escape' }),
    ).rejects.toThrow(/inside the cache directory/);
  });
});

describe('cloud_file (real loopback HTTP server)', () => {
  let base = '';
  let requests = 0;
  const server = createServer((request, response) => {
    requests++;
    if (request.url === '/gold.txt') {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('gold text\n');
    } else if (request.url === '/moved') {
      response.writeHead(302, { location: '/gold.txt' }).end();
    } else {
      response.writeHead(404).end('not found');
    }
  });
  beforeAll(async () => {
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>(resolve => server.close(() => resolve())));

  it('downloads once and reuses the cached file', async () => {
    const { context, cacheDir } = setup();
    const config = { type: 'cloud_file', path: `${base}/gold.txt`, dest: 'test_gold.py' };
    const before = requests;
    expect(await getCloudFile(context, config)).toBe(join(cacheDir, 'test_gold.py'));
    expect(await getCloudFile(context, config)).toBe(join(cacheDir, 'test_gold.py'));
    expect(requests - before).toBe(1);
    expect(readFileSync(join(cacheDir, 'test_gold.py'), 'utf8')).toBe('gold text\n');
  });

  it('follows redirects and supports multi/gives', async () => {
    const { context, cacheDir } = setup();
    const result = await getCloudFile(context, {
      type: 'cloud_file',
      multi: true,
      path: [`${base}/moved`, `${base}/gold.txt`],
      dest: ['a.txt', 'b.txt'],
      gives: [0, 1],
    });
    expect(result).toEqual([join(cacheDir, 'a.txt'), join(cacheDir, 'b.txt')]);
    expect(readFileSync(join(cacheDir, 'a.txt'), 'utf8')).toBe('gold text\n');
  });

  it('throws on a failed download and leaves no partial file', async () => {
    const { context, cacheDir } = setup();
    await expect(
      getCloudFile(context, { type: 'cloud_file', path: `${base}/missing`, dest: 'm.txt' }),
    ).rejects.toThrow(/HTTP 404/);
    expect(existsSync(join(cacheDir, 'm.txt'))).toBe(false);
  });
});

describe('cache_file', () => {
  it('returns cacheDir/path when it exists and throws otherwise', async () => {
    const { context, cacheDir } = setup();
    await expect(getCacheFile(context, { type: 'cache_file', path: 'x.txt' })).rejects.toThrow(
      /does not exist/,
    );
    const { mkdirSync } = await import('node:fs');
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(join(cacheDir, 'x.txt'), 'x');
    expect(await getCacheFile(context, { type: 'cache_file', path: 'x.txt' })).toBe(
      join(cacheDir, 'x.txt'),
    );
  });
});
