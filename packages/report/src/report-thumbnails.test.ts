import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeScreenshots } from '@osharm/results-fixture';
import { ThumbnailCache } from './report-thumbnails';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'osharm-report-thumbs-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ThumbnailCache', () => {
  it('makes small WebP thumbnails, once per distinct image', async () => {
    const [image] = await makeScreenshots(1, { width: 1920, height: 1080 });
    writeFileSync(join(dir, 'a.png'), image!);
    writeFileSync(join(dir, 'b.png'), image!);
    const cache = new ThumbnailCache();
    const a = await cache.get(join(dir, 'a.png'));
    const b = await cache.get(join(dir, 'b.png'));
    expect(a!.mimeType).toBe('image/webp');
    expect(b!.data).toBe(a!.data);
    const meta = await sharp(a!.data).metadata();
    expect([meta.width, meta.height]).toEqual([320, 180]);
    expect(a!.data.length).toBeLessThan(image!.length / 10);
    expect(await cache.dataUri(join(dir, 'a.png'))).toMatch(/^data:image\/webp;base64,UklGR/);
  });

  it('honours width and format, never enlarges, and gives undefined for unreadable files', async () => {
    const [small] = await makeScreenshots(1, { width: 200, height: 100 });
    writeFileSync(join(dir, 'small.png'), small!);
    writeFileSync(join(dir, 'broken.png'), 'not a png');
    const cache = new ThumbnailCache({ width: 400, format: 'jpeg', quality: 70 });
    const thumbnail = await cache.get(join(dir, 'small.png'));
    expect(thumbnail!.mimeType).toBe('image/jpeg');
    expect((await sharp(thumbnail!.data).metadata()).width).toBe(200);
    expect(await cache.get(join(dir, 'broken.png'))).toBeUndefined();
    expect(await cache.get(join(dir, 'missing.png'))).toBeUndefined();
  });
});
