import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  ANTHROPIC_IMAGE_LIMITS,
  GEMINI_IMAGE_LIMITS,
  OPENAI_IMAGE_LIMITS,
  budgetSizeFor,
  imageSizeFor,
  scalingFor,
  screenshotForModel,
  toModel,
  toScreen,
} from './scaling';

const screens = [
  { width: 1920, height: 1080 },
  { width: 1280, height: 720 },
  { width: 1024, height: 768 },
  { width: 2560, height: 1440 },
  { width: 1280, height: 800 },
];

describe('screenshot sizes per vendor', () => {
  it.each([
    [1920, 1080, 1429, 804],
    [1280, 720, 1280, 720],
    [1024, 768, 1024, 768],
    [2560, 1440, 1429, 804],
    [1568, 1000, 1342, 856],
  ])('Anthropic: %i×%i → %i×%i (long side ≤ 1568, ≤ 1.15 MP)', (width, height, w, h) => {
    const size = imageSizeFor({ width, height }, ANTHROPIC_IMAGE_LIMITS);
    expect(size).toEqual({ width: w, height: h });
    expect(Math.max(size.width, size.height)).toBeLessThanOrEqual(1568);
    expect(size.width * size.height).toBeLessThanOrEqual(1_150_000);
  });

  it.each([
    [1920, 1080, 1365, 768],
    [1280, 720, 1280, 720],
    [1024, 768, 1024, 768],
    [2560, 1440, 1365, 768],
    [4096, 1024, 2048, 512],
  ])('OpenAI: %i×%i → %i×%i (fit 2048², short side ≤ 768)', (width, height, w, h) => {
    expect(imageSizeFor({ width, height }, OPENAI_IMAGE_LIMITS)).toEqual({ width: w, height: h });
  });

  it('Gemini: the screen size as it is', () => {
    for (const screen of screens) expect(imageSizeFor(screen, GEMINI_IMAGE_LIMITS)).toEqual(screen);
  });

  it('refuses a size that is not a positive integer', () => {
    expect(() => imageSizeFor({ width: 0, height: 10 }, {})).toThrow(RangeError);
    expect(() => imageSizeFor({ width: 10.5, height: 10 }, {})).toThrow(/screen.width/);
  });
});

describe('coordinates both ways', () => {
  it.each(screens)('image corners and centre map onto the screen at %o', screen => {
    for (const limits of [ANTHROPIC_IMAGE_LIMITS, OPENAI_IMAGE_LIMITS]) {
      const scaling = scalingFor(screen, limits);
      const { width, height } = scaling.image;
      expect(toScreen(scaling, 0, 0)).toEqual({ x: 0, y: 0 });
      expect(toScreen(scaling, width, height)).toEqual({
        x: screen.width - 1,
        y: screen.height - 1,
      });
      const centre = toScreen(scaling, width / 2, height / 2);
      expect(Math.abs(centre.x - screen.width / 2)).toBeLessThanOrEqual(1);
      expect(Math.abs(centre.y - screen.height / 2)).toBeLessThanOrEqual(1);
      // screen → model → screen is off by less than one model pixel's worth of screen pixels
      for (const [x, y] of [
        [17, screen.height - 9],
        [screen.width - 3, 5],
        [Math.floor(screen.width / 3), Math.floor(screen.height / 2)],
      ] as const) {
        const model = toModel(scaling, x, y);
        const back = toScreen(scaling, model.x, model.y);
        expect(Math.abs(back.x - x)).toBeLessThanOrEqual(Math.ceil(screen.width / width));
        expect(Math.abs(back.y - y)).toBeLessThanOrEqual(Math.ceil(screen.height / height));
      }
    }
  });

  it('1920×1080 for Anthropic: (715, 402) in the 1429×804 image is (961, 540) on the screen', () => {
    const scaling = scalingFor({ width: 1920, height: 1080 }, ANTHROPIC_IMAGE_LIMITS);
    expect(toScreen(scaling, 715, 402)).toEqual({ x: 961, y: 540 });
    expect(toModel(scaling, 960, 540)).toEqual({ x: 715, y: 402 });
  });

  it.each(screens)('Gemini 0–999 grid onto %o', screen => {
    const scaling = scalingFor(screen, GEMINI_IMAGE_LIMITS, true);
    expect(scaling.coordinates).toEqual({ width: 1000, height: 1000 });
    expect(toScreen(scaling, 500, 500)).toEqual({ x: screen.width / 2, y: screen.height / 2 });
    expect(toScreen(scaling, 999, 999).x).toBe(Math.round((999 * screen.width) / 1000));
    expect(toScreen(scaling, 0, 0)).toEqual({ x: 0, y: 0 });
    expect(toModel(scaling, screen.width / 2, screen.height / 2)).toEqual({ x: 500, y: 500 });
  });

  it('clamps coordinates outside the image to the screen and refuses non-numbers', () => {
    const scaling = scalingFor({ width: 1280, height: 720 }, OPENAI_IMAGE_LIMITS);
    expect(toScreen(scaling, -40, 5000)).toEqual({ x: 0, y: 719 });
    expect(() => toScreen(scaling, Number.NaN, 1)).toThrow(RangeError);
  });
});

describe('screenshotForModel', () => {
  it('downscales a 1920×1080 PNG to the vendor size and keeps a full-size one at its size, as JPEG', async () => {
    const png = await sharp({
      create: { width: 1920, height: 1080, channels: 3, background: { r: 20, g: 120, b: 200 } },
    })
      .png()
      .toBuffer();
    const anthropic = await screenshotForModel(
      png,
      scalingFor({ width: 1920, height: 1080 }, ANTHROPIC_IMAGE_LIMITS),
    );
    expect(anthropic.mediaType).toBe('image/jpeg');
    expect(await sharp(anthropic.bytes).metadata()).toMatchObject({
      width: 1429,
      height: 804,
      format: 'jpeg',
    });
    const openai = await screenshotForModel(
      png,
      scalingFor({ width: 1920, height: 1080 }, OPENAI_IMAGE_LIMITS),
    );
    expect(await sharp(openai.bytes).metadata()).toMatchObject({
      width: 1365,
      height: 768,
      format: 'jpeg',
    });
    const gemini = await screenshotForModel(
      png,
      scalingFor({ width: 1920, height: 1080 }, GEMINI_IMAGE_LIMITS, true),
    );
    // full size (Gemini): the same size, as JPEG (the request carries a third to a half of the bytes)
    expect(gemini.mediaType).toBe('image/jpeg');
    expect(await sharp(gemini.bytes).metadata()).toMatchObject({
      width: 1920,
      height: 1080,
      format: 'jpeg',
    });
  });
});

describe('budgetSizeFor (zoom)', () => {
  it('scales a region up or down to the largest size of its aspect ratio within the limits', () => {
    // Anthropic: 1.15 MP binds for a small region (70×40 × 20.27)
    expect(budgetSizeFor({ width: 70, height: 40 }, ANTHROPIC_IMAGE_LIMITS)).toEqual({
      width: 1418,
      height: 810,
    });
    // a wide strip: the long side (1568) binds
    expect(budgetSizeFor({ width: 400, height: 20 }, ANTHROPIC_IMAGE_LIMITS)).toEqual({
      width: 1568,
      height: 78,
    });
    // the whole 1920×1080 screen comes down to the screenshot size
    expect(budgetSizeFor({ width: 1920, height: 1080 }, ANTHROPIC_IMAGE_LIMITS)).toEqual(
      imageSizeFor({ width: 1920, height: 1080 }, ANTHROPIC_IMAGE_LIMITS),
    );
    // no limits: the region's own size
    expect(budgetSizeFor({ width: 70, height: 40 }, GEMINI_IMAGE_LIMITS)).toEqual({
      width: 70,
      height: 40,
    });
    expect(() => budgetSizeFor({ width: 0, height: 40 }, ANTHROPIC_IMAGE_LIMITS)).toThrow(
      RangeError,
    );
  });
});
