import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFileServer } from './__fixtures__/file-server';
import type { FileServer } from './__fixtures__/file-server';
import {
  NAMESPACE_URL,
  defaultTaskCacheDir,
  downloadCachePath,
  ensureDownloadCached,
  uuid5,
} from './download-cache';

describe('uuid5', () => {
  it("matches Python's uuid.uuid5 (values computed with CPython)", () => {
    expect(uuid5('https://example.com/a.docx')).toBe('90ee2211-6675-588d-a596-a1df0e268392');
    expect(
      uuid5(
        'https://huggingface.co/datasets/xlangai/ubuntu_osworld_file_cache/resolve/main/x.xlsx',
        NAMESPACE_URL,
      ),
    ).toBe('595d5059-34a9-55e9-b3d2-dfd5f38f5863');
    expect(uuid5('http://127.0.0.1:8000/file.bin')).toBe('e37b13fe-f7f8-52b9-8403-0f3b477abb95');
    expect(uuid5('https://example.com/ünïcode?q=1')).toBe('1f43615c-de22-5c9d-8a93-55904dd215c5');
    // the example of Python's documentation (NAMESPACE_DNS)
    expect(uuid5('python.org', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(
      '886313e1-3b8a-5372-9b90-0c9aee199e5d',
    );
  });

  it('refuses a namespace that is not a UUID', () => {
    expect(() => uuid5('x', 'nope')).toThrow(TypeError);
  });

  it('names cache files <cache_dir>/<uuid5(url)>_<basename(path)>, cache_dir = cache/<task id>', () => {
    expect(defaultTaskCacheDir('task-1')).toBe(join('cache', 'task-1'));
    expect(
      downloadCachePath(
        'cache/task-1',
        'https://example.com/a.docx',
        '/home/user/Desktop/Report.docx',
      ),
    ).toBe(join('cache/task-1', '90ee2211-6675-588d-a596-a1df0e268392_Report.docx'));
  });
});

describe('ensureDownloadCached', () => {
  let files: FileServer;
  let directory: string;
  const body = Buffer.from('0123456789'.repeat(1000));
  const noDelay = () => 1;

  beforeEach(async () => {
    files = await startFileServer({ '/data.bin': body });
    directory = await mkdtemp(join(tmpdir(), 'osharm-cache-'));
  });

  afterEach(async () => {
    await files.close();
    await rm(directory, { recursive: true, force: true });
  });

  const url = () => `${files.origin}/data.bin`;
  const cachePath = () =>
    downloadCachePath(join(directory, 'cache', 't1'), url(), '/home/user/data.bin');
  const leftovers = async () =>
    (await readdir(join(directory, 'cache', 't1')).catch(() => [])).filter(name =>
      name.endsWith('.part'),
    );

  it('downloads once, then serves the cache with zero requests', async () => {
    const first = await ensureDownloadCached(url(), cachePath(), { retryDelayMs: noDelay });
    expect(first).toEqual({ path: cachePath(), cacheHit: false, size: body.length });
    expect(await readFile(cachePath())).toEqual(body);
    expect(files.requests).toEqual(['/data.bin']);

    const second = await ensureDownloadCached(url(), cachePath(), { retryDelayMs: noDelay });
    expect(second).toEqual({ path: cachePath(), cacheHit: true, size: body.length });
    expect(files.requests).toHaveLength(1);
    expect(await leftovers()).toEqual([]);
  });

  it('downloads again when the cached file no longer has the announced size', async () => {
    await ensureDownloadCached(url(), cachePath(), { retryDelayMs: noDelay });
    await writeFile(cachePath(), 'corrupted');
    const messages: string[] = [];
    const again = await ensureDownloadCached(url(), cachePath(), {
      retryDelayMs: noDelay,
      logger: message => messages.push(message),
    });
    expect(again.cacheHit).toBe(false);
    expect(await readFile(cachePath())).toEqual(body);
    expect(files.requests).toHaveLength(2);
    expect(messages[0]).toContain(`has 9 bytes but the server announced ${body.length}`);
  });

  it('trusts a cache file without a size record (e.g. left by upstream OSWorld)', async () => {
    await mkdir(join(directory, 'cache', 't1'), { recursive: true });
    await writeFile(cachePath(), 'upstream bytes');
    const result = await ensureDownloadCached(url(), cachePath());
    expect(result).toMatchObject({ cacheHit: true, size: 14 });
    expect(files.requests).toEqual([]);
  });

  it('retries a transfer cut short of Content-Length, then succeeds', async () => {
    files.modes = ['truncate', 'error'];
    const messages: string[] = [];
    const result = await ensureDownloadCached(url(), cachePath(), {
      retryDelayMs: noDelay,
      logger: message => messages.push(message),
    });
    expect(result.cacheHit).toBe(false);
    expect(await readFile(cachePath())).toEqual(body);
    expect(files.requests).toHaveLength(3);
    expect(messages).toHaveLength(2);
    expect(messages[1]).toContain('HTTP 500');
    expect(await leftovers()).toEqual([]);
  });

  it('accepts a body without Content-Length and records its size', async () => {
    files.modes = ['chunked'];
    const result = await ensureDownloadCached(url(), cachePath());
    expect(result.size).toBe(body.length);
    const metadata = JSON.parse(await readFile(`${cachePath()}.meta.json`, 'utf8')) as {
      size: number;
      url: string;
    };
    expect(metadata).toMatchObject({ size: body.length, url: url() });
  });

  it('fails after 3 attempts, leaving neither a cache file nor a temporary file', async () => {
    files.modes = ['truncate', 'truncate', 'truncate'];
    await expect(
      ensureDownloadCached(url(), cachePath(), { retryDelayMs: noDelay }),
    ).rejects.toThrow(new RegExp(`download of ${url()} failed after 3 attempts`));
    expect(files.requests).toHaveLength(3);
    expect(await leftovers()).toEqual([]);
    await expect(readFile(cachePath())).rejects.toThrow(/ENOENT/);
  });

  it('bounds each attempt with a timeout', async () => {
    files.modes = ['hang', 'hang'];
    const started = performance.now();
    await expect(
      ensureDownloadCached(url(), cachePath(), {
        attempts: 2,
        timeoutMs: 200,
        retryDelayMs: noDelay,
      }),
    ).rejects.toThrow(/within 200 ms/);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(await leftovers()).toEqual([]);
  });

  it('stops at once when aborted', async () => {
    files.modes = ['hang'];
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop now')), 100);
    await expect(
      ensureDownloadCached(url(), cachePath(), { abortSignal: controller.signal }),
    ).rejects.toThrow('stop now');
    expect(files.requests).toHaveLength(1);
    expect(await leftovers()).toEqual([]);
  });

  it('reports a 404 as a failed download', async () => {
    await expect(
      ensureDownloadCached(`${files.origin}/missing.bin`, cachePath(), {
        attempts: 1,
      }),
    ).rejects.toThrow(/HTTP 404/);
  });
});
