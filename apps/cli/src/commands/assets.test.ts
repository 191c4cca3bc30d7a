// osharm assets pull against a loopback "mirror" (nothing reaches the internet), and the asset flags
// of osharm run.
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuid5, type AssetManifest } from '@osharm/desktop-env';
import { checkLocalDesktopRequirements } from '@osharm/vm-local';
import { runCli } from '../program';
import { createTestIo } from '../test-io';

const DRIVE = 'https://drive.google.com/uc?export=download&id=';
let tmp: string;
let mirror: Server;
let mirrorOrigin: string;
const served: string[] = [];

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'osharm-cli-assets-'));
  mirror = createServer((request, response) => {
    served.push(request.url ?? '');
    if (request.url === '/mirror/report.xlsx') response.end('sheet');
    else response.writeHead(404).end('not found');
  });
  await new Promise<void>(resolve => mirror.listen(0, '127.0.0.1', resolve));
  mirrorOrigin = `http://127.0.0.1:${(mirror.address() as AddressInfo).port}`;
  const files: Record<string, unknown> = {
    'test_misuse.json': { os: ['_a', '_b'] },
    'examples/os/_a.json': task('_a', [
      [`${DRIVE}1`, '/home/user/Desktop/Report.xlsx'],
      [`${DRIVE}2`, '/home/user/notes.txt'],
    ]),
    'examples/os/_b.json': task('_b', [[`${DRIVE}1`, '/home/user/Desktop/Report.xlsx']]),
    'map.json': {
      [`${DRIVE}1`]: `${mirrorOrigin}/mirror/report.xlsx`,
      [`${DRIVE}2`]: 'stand-ins/notes.txt',
    },
    'stand-ins/notes.txt': 'notes',
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(tmp, 'ds', path)), { recursive: true });
    writeFileSync(
      join(tmp, 'ds', path),
      typeof content === 'string' ? content : JSON.stringify(content),
    );
  }
});
afterAll(async () => {
  await new Promise<void>(resolve => mirror.close(() => resolve()));
  rmSync(tmp, { recursive: true, force: true });
});

function task(id: string, downloads: [string, string][]) {
  return {
    id,
    snapshot: 'os',
    instruction: 'x',
    source: '',
    config: [
      {
        type: 'download',
        parameters: { files: downloads.map(([url, path]) => ({ url, path })) },
      },
    ],
    related_apps: ['os'],
    evaluator: { func: 'infeasible' },
  };
}

async function cli(args: string[]) {
  const io = createTestIo(join(tmp, 'ds'));
  const code = await runCli(args, io.io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('osharm assets pull', () => {
  it('offline with no map: nothing fetched, every file failed, exit 1 with the way out', async () => {
    const result = await cli(['assets', 'pull', '--test-config-base-dir', '.', '--offline']);
    expect(result.code).toBe(1);
    expect(served).toEqual([]);
    expect(result.stderr).toContain(
      `[1/3] os/_a failed ${DRIVE}1\n  offline: ${DRIVE}1 is not in the cache`,
    );
    expect(result.stderr).toContain('--asset-map FILE');
    expect(result.stdout).toMatch(/^3 file\(s\) of 2 task\(s\): 0 fetched, .* 3 failed/);
  });

  it('pulls through the asset map into --cache-dir, once per URL, and resumes from the cache', async () => {
    const args = [
      'assets',
      'pull',
      '--test-config-base-dir',
      '.',
      '--asset-map',
      'map.json',
      '--cache-dir',
      'downloads',
    ];
    const first = await cli(args);
    expect(first.code, first.stderr).toBe(0);
    expect(served).toEqual(['/mirror/report.xlsx']);
    expect(first.stderr).toContain(`[1/3] os/_a mirror (5 bytes) ${DRIVE}1`);
    expect(first.stderr).toContain(`[2/3] os/_a asset-map (5 bytes) ${DRIVE}2`);
    expect(first.stderr).toContain(`[3/3] os/_b cache (5 bytes) ${DRIVE}1`);
    expect(first.stdout).toContain(
      '3 file(s) of 2 task(s): 0 fetched, 1 from mirrors, 1 from asset-map files, 1 already cached, 0 failed',
    );
    expect(first.stdout).toContain('manifest: downloads/manifest.json');
    const cached = join(tmp, 'ds', 'downloads', '_b', `${uuid5(`${DRIVE}1`)}_Report.xlsx`);
    expect(readFileSync(cached, 'utf8')).toBe('sheet');
    const manifest = JSON.parse(
      readFileSync(join(tmp, 'ds', 'downloads', 'manifest.json'), 'utf8'),
    ) as AssetManifest;
    expect(manifest.files).toHaveLength(3);

    // again, offline: everything is in the cache now
    const second = await cli([
      'assets',
      'pull',
      '--test-config-base-dir',
      '.',
      '--cache-dir',
      'downloads',
      '--offline',
    ]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('3 already cached, 0 failed');
    expect(served).toHaveLength(1);
  });

  it('an invalid asset map: exit 1, naming the file and the key', async () => {
    writeFileSync(join(tmp, 'ds', 'bad-map.json'), JSON.stringify({ 'not a url': 'x' }));
    const result = await cli([
      'assets',
      'pull',
      '--test-config-base-dir',
      '.',
      '--asset-map',
      'bad-map.json',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /bad-map\.json: \$\["not a url"\]: each key must be an http\(s\) download URL/,
    );
  });
});

describe('osharm run asset flags', () => {
  it.runIf(checkLocalDesktopRequirements().ok)(
    '--offline: names the missing downloads up front; the run fails at setup, naming the cache file',
    async () => {
      const before = served.length;
      const result = await cli([
        'run',
        '--test-config-base-dir',
        '.',
        '--test-all-meta-path',
        'test_misuse.json',
        '--model',
        'offline-refuse',
        '--judge-model',
        'none',
        '--offline',
        '--cache-dir',
        'empty-cache',
        '--result-dir',
        'offline-results',
        '--task',
        '_b',
        '--settle',
        '0',
      ]);
      expect(result.code).toBe(1);
      expect(served).toHaveLength(before); // nothing fetched
      const expected = `empty-cache/_b/${uuid5(`${DRIVE}1`)}_Report.xlsx`;
      expect(result.stderr).toContain(
        `--offline: 1 download(s) of 1 task(s) are neither in the cache nor in --asset-map`,
      );
      expect(result.stderr).toContain(`  os/_b: ${expected} (${DRIVE}1)`);
      expect(result.stderr).toMatch(/config step 1 \(download\) failed: offline: /);
    },
  );

  it('refuses an asset map that does not exist before any desktop starts', async () => {
    const result = await cli([
      'run',
      '--test-config-base-dir',
      '.',
      '--test-all-meta-path',
      'test_misuse.json',
      '--model',
      'offline-refuse',
      '--judge-model',
      'none',
      '--asset-map',
      'missing.json',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/missing\.json: \$: file not found/);
  });
});

const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));
const upstream = join(repoRoot, '..', 'shared', 'osharm-dataset', 'evaluation_examples');

describe.runIf(existsSync(upstream))(
  'scripts/make-asset-stand-ins.mjs on the upstream dataset',
  () => {
    it('covers every download URL: an offline pull through its asset map gets every file', async () => {
      const out = join(tmp, 'stand-ins');
      const printed = execFileSync(
        process.execPath,
        [
          join(repoRoot, 'scripts', 'make-asset-stand-ins.mjs'),
          '--dataset',
          upstream,
          '--out',
          out,
        ],
        { encoding: 'utf8' },
      );
      expect(printed).toMatch(/^\d+ stand-in file\(s\) for 110 task\(s\) in /);
      const map = JSON.parse(readFileSync(join(out, 'asset-map.json'), 'utf8')) as Record<
        string,
        string
      >;
      // each stand-in has its type's signature
      const head = (url: string) => readFileSync(join(out, map[url]!)).subarray(0, 4);
      for (const url of Object.keys(map)) {
        const name = map[url]!.toLowerCase();
        if (/\.(docx|xlsx|pptx|odt|zip)$/.test(name))
          expect(head(url).toString('latin1')).toBe('PK\u0003\u0004');
        if (/\.pdf$/.test(name)) expect(head(url).toString('latin1')).toBe('%PDF');
        if (/\.jpe?g$/.test(name)) expect([...head(url).subarray(0, 2)]).toEqual([0xff, 0xd8]);
        if (/\.tar\.gz$/.test(name)) expect([...head(url).subarray(0, 2)]).toEqual([0x1f, 0x8b]);
      }
      const io = createTestIo(tmp);
      const code = await runCli(
        [
          'assets',
          'pull',
          '--test-config-base-dir',
          upstream,
          '--asset-map',
          join(out, 'asset-map.json'),
          '--cache-dir',
          join(tmp, 'upstream-cache'),
          '--offline',
        ],
        io.io,
      );
      expect(code, io.stderr).toBe(0);
      expect(io.stdout).toMatch(
        /^96 file\(s\) of 110 task\(s\): 0 fetched, 0 from mirrors, \d+ from asset-map files, \d+ already cached, 0 failed/,
      );
    }, 120_000);
  },
);
