// download steps with an asset map (local files, a loopback mirror) and offline mode.
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TaskValidationError } from '@osharm/task-schema';
import { startFakeGuestServer, type FakeGuestServer } from './__fixtures__/fake-guest-server';
import { startFileServer, type FileServer } from './__fixtures__/file-server';
import { loadAssetMap, parseAssetMap } from './asset-map';
import { downloadCachePath } from './download-cache';
import { createGuestClient, type UndiciGuestClient } from './guest-client-undici';
import type { SetupContext } from './setup-context';
import { runSetup } from './setup-runner';

// Never requested: the original host of the dataset's URLs (every test maps or caches it).
const ORIGINAL = 'https://drive.google.com/uc?id=abc&export=download';

let guest: FakeGuestServer;
let client: UndiciGuestClient;
let mirror: FileServer;
let workDir: string;
let cacheDir: string;
let fetched: string[];

beforeEach(async () => {
  guest = await startFakeGuestServer();
  client = createGuestClient(guest.endpoint, { maxRetryDelayMs: 10 });
  mirror = await startFileServer({ '/mirror/report.docx': 'mirrored bytes' });
  workDir = await mkdtemp(join(tmpdir(), 'osharm-assets-'));
  cacheDir = join(workDir, 'cache', 'task');
  fetched = [];
});

afterEach(async () => {
  await client.close();
  await guest.close();
  await mirror.close();
  await rm(workDir, { recursive: true, force: true });
});

function context(overrides: Partial<SetupContext> = {}): SetupContext {
  return {
    client,
    taskId: 'task',
    baseDir: workDir,
    cacheDir,
    settings: { download: { retryDelayMs: () => 1 } },
    // records every URL the step fetches (the original host must never be one)
    fetch: (input, init) => {
      fetched.push(String(input));
      return fetch(input, init);
    },
    ...overrides,
  };
}

const download = (url = ORIGINAL, path = '/home/user/Desktop/Report.docx') => ({
  type: 'download',
  parameters: { files: [{ url, path }] },
});

describe('asset map', () => {
  it('a local file: uploaded as it is, nothing fetched, nothing cached', async () => {
    const local = join(workDir, 'stand-in.docx');
    await writeFile(local, 'local bytes');
    const mapFile = join(workDir, 'map.json');
    await writeFile(mapFile, JSON.stringify({ [ORIGINAL]: 'stand-in.docx' }));
    const assetMap = await loadAssetMap(mapFile);
    const record = await runSetup([download()], context({ assets: { assetMap } }));
    expect(fetched).toEqual([]);
    expect(guest.requests[0]?.form?.file_data).toEqual({
      fileName: 'Report.docx',
      data: Buffer.from('local bytes'),
    });
    expect(record.downloads).toEqual([
      {
        url: ORIGINAL,
        guestPath: '/home/user/Desktop/Report.docx',
        source: 'asset-map',
        localPath: local,
        uploaded: true,
      },
    ]);
    expect(record.warnings).toEqual([]);
  });

  it('a mirror URL: fetched from the mirror into the cache under the original URL’s name', async () => {
    const assetMap = parseAssetMap(
      { [ORIGINAL]: `${mirror.origin}/mirror/report.docx` },
      join(workDir, 'map.json'),
    );
    const first = await runSetup([download()], context({ assets: { assetMap } }));
    expect(fetched).toEqual([`${mirror.origin}/mirror/report.docx`]);
    const cachePath = downloadCachePath(cacheDir, ORIGINAL, '/home/user/Desktop/Report.docx');
    expect(await readFile(cachePath, 'utf8')).toBe('mirrored bytes');
    expect(JSON.parse(await readFile(`${cachePath}.meta.json`, 'utf8'))).toMatchObject({
      url: ORIGINAL,
      source: `${mirror.origin}/mirror/report.docx`,
      size: 14,
    });
    expect(first.downloads[0]?.source).toBe('mirror');
    // the second run takes it from the cache
    const second = await runSetup([download()], context({ assets: { assetMap } }));
    expect(fetched).toHaveLength(1);
    expect(second.downloads[0]?.source).toBe('cache');
  });

  it('a mirror that fails: the error names the mirror, the cache file and the flags', async () => {
    const assetMap = parseAssetMap({ [ORIGINAL]: `${mirror.origin}/missing` }, 'map.json');
    const error = await runSetup([download()], context({ assets: { assetMap } })).catch(
      (error: Error) => error,
    );
    expect((error as Error).message).toContain(
      `download of ${ORIGINAL} (from ${mirror.origin}/missing) failed after 3 attempts: HTTP 404`,
    );
    expect((error as Error).message).toContain(
      downloadCachePath(cacheDir, ORIGINAL, '/home/user/Desktop/Report.docx'),
    );
  });

  it('refuses a map that is not an object of URL → path or http(s) URL, naming file and key', async () => {
    expect(() => parseAssetMap([], 'm.json')).toThrow(/^m\.json: \$: expected a JSON object/);
    expect(() => parseAssetMap({ 'not-a-url': 'x' }, 'm.json')).toThrow(
      'm.json: $["not-a-url"]: each key must be an http(s) download URL',
    );
    expect(() => parseAssetMap({ [ORIGINAL]: 3 }, 'm.json')).toThrow(TaskValidationError);
    expect(() => parseAssetMap({ [ORIGINAL]: 'ftp://x/y' }, 'm.json')).toThrow(
      /only http\(s\) URLs, file:\/\/ URLs and paths work/,
    );
    await expect(loadAssetMap(join(workDir, 'none.json'))).rejects.toThrow(/file not found/);
  });
});

describe('offline', () => {
  it('refuses the network: no request, the error names the cache file and the flags', async () => {
    const error = await runSetup([download()], context({ assets: { offline: true } })).catch(
      (error: Error) => error,
    );
    expect(fetched).toEqual([]);
    const cachePath = downloadCachePath(cacheDir, ORIGINAL, '/home/user/Desktop/Report.docx');
    expect((error as Error).message).toBe(
      `config step 1 (download) failed: offline: ${ORIGINAL} is not in the cache (expected ${cachePath}); the cache file is ${cachePath}: put the file there, map the URL to a local file or a mirror with an asset map (osharm: --asset-map FILE), or fetch every download ahead with osharm assets pull (--cache-dir DIR picks the cache)`,
    );
    expect(guest.requests).toHaveLength(0);
    // a mirror is network too
    const assetMap = parseAssetMap({ [ORIGINAL]: `${mirror.origin}/mirror/report.docx` }, 'm');
    await expect(
      runSetup([download()], context({ assets: { offline: true, assetMap } })),
    ).rejects.toThrow(/offline: /);
    expect(fetched).toEqual([]);
    expect(mirror.requests).toEqual([]);
  });

  it('uses the cache and the asset map’s files', async () => {
    const cachePath = downloadCachePath(cacheDir, ORIGINAL, '/home/user/Desktop/Report.docx');
    await runSetup(
      [download()],
      context({ fetch: () => fetch(`${mirror.origin}/mirror/report.docx`) }),
    );
    expect(await readdir(cacheDir)).toContain(cachePath.split('/').at(-1));
    const record = await runSetup([download()], context({ assets: { offline: true } }));
    expect(record.downloads[0]?.source).toBe('cache');
    await writeFile(join(workDir, 'b.txt'), 'b');
    const assetMap = parseAssetMap({ 'https://example.org/b.txt': join(workDir, 'b.txt') }, 'm');
    const mapped = await runSetup(
      [download('https://example.org/b.txt', '/b.txt')],
      context({ assets: { offline: true, assetMap } }),
    );
    expect(mapped.downloads[0]?.source).toBe('asset-map');
    expect(fetched).toEqual([]);
  });
});

describe('assetSourcesFetch (the evaluator’s cloud_file)', () => {
  it('answers mapped files, follows mirrors, and refuses the network offline', async () => {
    const { assetSourcesFetch } = await import('./asset-map');
    await writeFile(join(workDir, 'gold.txt'), 'gold');
    const assetMap = parseAssetMap(
      {
        'https://example.org/gold.txt': join(workDir, 'gold.txt'),
        'https://example.org/m.docx': `${mirror.origin}/mirror/report.docx`,
      },
      'm',
    );
    const online = assetSourcesFetch({ assetMap });
    expect(await (await online('https://example.org/gold.txt')).text()).toBe('gold');
    expect(await (await online('https://example.org/m.docx')).text()).toBe('mirrored bytes');
    const offline = assetSourcesFetch({ assetMap, offline: true });
    expect(await (await offline('https://example.org/gold.txt')).text()).toBe('gold');
    await expect(offline('https://example.org/m.docx')).rejects.toThrow(/^offline: /);
    expect(mirror.requests).toEqual(['/mirror/report.docx']);
  });
});
