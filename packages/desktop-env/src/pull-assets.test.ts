// osharm assets pull's engine: every download of a dataset into the cache, with a manifest and resume.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TaskConfig } from '@osharm/task-schema';
import { startFileServer, type FileServer } from './__fixtures__/file-server';
import { parseAssetMap } from './asset-map';
import { uuid5 } from './download-cache';
import { pullAssets, type AssetManifest, type PullAssetsEvent } from './pull-assets';
import { listTaskDownloads } from './task-downloads';

let server: FileServer;
let cacheRoot: string;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

beforeEach(async () => {
  server = await startFileServer({
    '/a.xlsx': 'sheet',
    '/b.zip': 'zip bytes',
    '/gold.txt': 'gold',
  });
  cacheRoot = await mkdtemp(join(tmpdir(), 'osharm-pull-'));
});

afterEach(async () => {
  await server.close();
  await rm(cacheRoot, { recursive: true, force: true });
});

const task = (id: string, urls: string[], cloud?: string): TaskConfig =>
  ({
    id,
    instruction: 'x',
    config: [
      {
        type: 'download',
        parameters: {
          files: urls.map((url, i) => ({
            url,
            path: `/home/user/f${i}${url.slice(url.lastIndexOf('.'))}`,
          })),
        },
      },
      { type: 'launch', parameters: { command: ['x'] } },
    ],
    evaluator: {
      func: 'compare_text_file',
      ...(cloud ? { expected: { type: 'cloud_file', path: cloud, dest: 'gold.txt' } } : {}),
    },
  }) as unknown as TaskConfig;

it('lists download steps and cloud_file getters with their cache file names', () => {
  const url = `${server.origin}/a.xlsx`;
  expect(listTaskDownloads(task('t', [url], `${server.origin}/gold.txt`))).toEqual([
    { kind: 'download', url, cacheFile: `${uuid5(url)}_f0.xlsx`, guestPath: '/home/user/f0.xlsx' },
    { kind: 'cloud_file', url: `${server.origin}/gold.txt`, cacheFile: 'gold.txt' },
  ]);
});

describe('pullAssets', () => {
  it('fetches every file once, in upstream layout, with a manifest of sizes and sha256', async () => {
    const a = `${server.origin}/a.xlsx`;
    const b = `${server.origin}/b.zip`;
    const events: PullAssetsEvent[] = [];
    const manifest = await pullAssets({
      tasks: [
        { domain: 'os', config: task('one', [a, b], `${server.origin}/gold.txt`) },
        { domain: 'os', config: task('two', [a]) },
      ],
      cacheRoot,
      onProgress: event => events.push(event),
    });
    // the URL both tasks use went over the network once
    expect(server.requests.sort()).toEqual(['/a.xlsx', '/b.zip', '/gold.txt']);
    expect(
      events.map(event => `${event.index + 1}/${event.count} ${event.task} ${event.outcome}`),
    ).toEqual([
      '1/4 os/one network',
      '2/4 os/one network',
      '3/4 os/one network',
      '4/4 os/two cache',
    ]);
    expect(await readFile(join(cacheRoot, 'one', `${uuid5(a)}_f0.xlsx`), 'utf8')).toBe('sheet');
    expect(await readFile(join(cacheRoot, 'two', `${uuid5(a)}_f0.xlsx`), 'utf8')).toBe('sheet');
    expect(await readFile(join(cacheRoot, 'one', 'gold.txt'), 'utf8')).toBe('gold');
    const written = JSON.parse(
      await readFile(join(cacheRoot, 'manifest.json'), 'utf8'),
    ) as AssetManifest;
    expect(written).toEqual(manifest);
    expect(written.files[0]).toEqual({
      task: 'os/one',
      kind: 'download',
      url: a,
      file: `one/${uuid5(a)}_f0.xlsx`,
      size: 5,
      sha256: sha('sheet'),
      source: 'network',
    });
    expect(written.failed).toEqual([]);
  });

  it('resumes: a second pull fetches only what the first could not get', async () => {
    const a = `${server.origin}/a.xlsx`;
    const b = `${server.origin}/b.zip`;
    const tasks = [{ domain: 'os', config: task('one', [a, b]) }];
    // b.zip: the connection breaks mid-transfer on every attempt of the first pull
    server.modes = ['ok', 'truncate', 'truncate', 'truncate'];
    const first = await pullAssets({ tasks, cacheRoot, download: { retryDelayMs: () => 1 } });
    expect(first.files.map(file => file.url)).toEqual([a]);
    expect(first.failed).toEqual([
      { task: 'os/one', url: b, error: expect.stringMatching(/failed after 3 attempts/) },
    ]);
    // no partial file is left behind
    expect(
      (await readdir(join(cacheRoot, 'one'))).filter(name => !name.endsWith('.meta.json')),
    ).toEqual([`${uuid5(a)}_f0.xlsx`]);
    server.requests.length = 0;
    const second = await pullAssets({ tasks, cacheRoot });
    expect(server.requests).toEqual(['/b.zip']);
    expect(second.files.map(file => [file.url, file.source])).toEqual([
      [a, 'cache'],
      [b, 'network'],
    ]);
    expect(second.failed).toEqual([]);
    expect(second.files[1]?.sha256).toBe(sha('zip bytes'));
  });

  it('takes mirrors and local files from the asset map; offline fetches nothing', async () => {
    const original = 'https://drive.google.com/uc?id=1&export=download';
    const other = 'https://drive.google.com/uc?id=2&export=download';
    const local = join(cacheRoot, '..', `stand-in-${Date.now()}.zip`);
    await writeFile(local, 'local zip');
    try {
      const assetMap = parseAssetMap(
        { [original]: `${server.origin}/a.xlsx`, [other]: local },
        'm',
      );
      const tasks = [{ domain: 'os', config: task('t', [original, other]) }];
      const offline = await pullAssets({ tasks, cacheRoot, assets: { assetMap, offline: true } });
      expect(server.requests).toEqual([]);
      expect(offline.files.map(file => file.source)).toEqual(['asset-map']);
      expect(offline.failed[0]?.error).toMatch(/^offline: /);
      const online = await pullAssets({ tasks, cacheRoot, assets: { assetMap } });
      expect(server.requests).toEqual(['/a.xlsx']);
      expect(online.files.map(file => [file.source, file.sha256])).toEqual([
        ['mirror', sha('sheet')],
        ['asset-map', sha('local zip')],
      ]);
      const name = listTaskDownloads(tasks[0]!.config)[1]!.cacheFile;
      expect(await readFile(join(cacheRoot, 't', name), 'utf8')).toBe('local zip');
    } finally {
      await rm(local, { force: true });
    }
  });
});
