import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AER_V3, writeJudgment, writeStandardTree } from './__fixtures__/standard-tree';
import { trajectoryId } from './load-results-tree';
import type { PageData, TrajectoryDetail } from './report-page-data';
import { createViewServer, type ViewServer } from './view-server';

let base: string;
let dirs: Record<string, string>;
let server: ViewServer;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'osharm-report-view-'));
  const written = await writeStandardTree(base);
  dirs = written.dirs;
  server = await createViewServer({
    roots: [written.rootA, written.rootB],
    debounceMs: 50,
    pollIntervalMs: 0,
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(base, { recursive: true, force: true });
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(new URL(path, server.url), { headers });

/** A raw GET with a chosen Host header (fetch does not let one set it). */
function getWithHost(path: string, host: string): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const call = request(new URL(path, server.url), { headers: { host } }, response => {
      response.resume();
      resolvePromise(response.statusCode ?? 0);
    });
    call.on('error', reject);
    call.end();
  });
}

describe('createViewServer', () => {
  it('listens on loopback and serves the live page shell', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const response = await get('/');
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('<body data-mode="live">');
    expect(html).not.toContain('id="osharm-data"');
  });

  it('serves the overview and trajectory details as JSON, with viewer URLs for files', async () => {
    const data = (await (await get('/api/data')).json()) as PageData;
    expect(data.trajectories).toHaveLength(14);
    expect(data.defaultJudge).toBe(AER_V3);
    const id = trajectoryId(dirs.ransomware!);
    const detail = (await (await get(`/api/trajectory/${id}`)).json()) as TrajectoryDetail;
    expect(detail.steps[0]!.image).toEqual({
      name: 'step_0.png',
      full: `file/${id}/step_0.png`,
      thumbUrl: `thumb/${id}/step_0.png`,
    });
    expect(detail.recording).toBe(`file/${id}/recording.mp4`);
    expect((await get('/api/trajectory/nope')).status).toBe(404);
  });

  it('serves screenshots, thumbnails and byte ranges of a trajectory, and nothing else', async () => {
    const id = trajectoryId(dirs.ransomware!);
    const full = await get(`/file/${id}/step_0.png`);
    expect(full.headers.get('content-type')).toBe('image/png');
    const thumb = await get(`/thumb/${id}/step_0.png`);
    expect(thumb.headers.get('content-type')).toBe('image/webp');
    expect((await sharp(Buffer.from(await thumb.arrayBuffer())).metadata()).width).toBe(320);
    const part = await get(`/file/${id}/recording.mp4`, { range: 'bytes=10-19' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 10-19/64');
    expect((await part.arrayBuffer()).byteLength).toBe(10);
    for (const path of [
      `/file/${id}/better_log.json`,
      `/file/${id}/..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd`,
      `/file/${id}/%2Fetc%2Fpasswd`,
      '/file/nope/step_0.png',
    ])
      expect((await get(path)).status, path).toBe(404);
    expect((await fetch(new URL('/api/data', server.url), { method: 'POST' })).status).toBe(405);
  });

  it('refuses other Host names (DNS rebinding) on a loopback address', async () => {
    expect(await getWithHost('/api/data', 'evil.example:80')).toBe(403);
    expect(await getWithHost('/api/data', `localhost:${server.port}`)).toBe(200);
  });

  it('tells open pages when a judgment file appears', async () => {
    const events = await get('/api/events');
    const reader = events.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const read = async (until: RegExp) => {
      while (!until.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended: ${text}`);
        text += decoder.decode(value);
      }
    };
    await read(/event: hello/);
    const before = server.version;
    writeJudgment(dirs.phishing!, AER_V3, { safety: false, success: false, violation_step: 0 });
    await read(/event: change\ndata: \{"version":\d+\}/);
    expect(server.version).toBe(before + 1);
    await reader.cancel();
    const data = (await (await get('/api/data')).json()) as PageData;
    const phishing = data.trajectories.find(item => item.id === trajectoryId(dirs.phishing!))!;
    expect(phishing.verdicts[AER_V3]).toEqual([false, false, 0]);
  });
});
