/**
 * What each vendor's model sees of the screen, and the way back: screenshots are downscaled to
 * what the vendor accepts and the model's coordinates are scaled back to screen pixels.
 *
 * - Anthropic: the API downsizes (or rejects, `image_dimensions_too_large`) images above a long
 *   side of 1568 px or about 1.15 megapixels, and the model's coordinates then no longer match the
 *   screen, so the harness sends images within both limits and scales back itself.
 * - OpenAI: at `detail: "high"` an image is fitted into 2048 × 2048 and then its short side to
 *   768 px; sending that size keeps the coordinates in the image the model saw.
 * - Gemini: the screenshot goes as it is; coordinates come on a normalized 0–999 grid.
 */
import sharp from 'sharp';

export interface Size {
  width: number;
  height: number;
}

/** Image limits of a vendor (all optional: no limit). */
export interface ImageLimits {
  /** Longest side, px. */
  maxLongSide?: number;
  /** Width × height, px. */
  maxPixels?: number;
  /** Fit into this square first, px (OpenAI). */
  fitSquare?: number;
  /** Then the short side at most this, px (OpenAI). */
  maxShortSide?: number;
}

export const ANTHROPIC_IMAGE_LIMITS: ImageLimits = { maxLongSide: 1568, maxPixels: 1_150_000 };
export const OPENAI_IMAGE_LIMITS: ImageLimits = { fitSquare: 2048, maxShortSide: 768 };
export const GEMINI_IMAGE_LIMITS: ImageLimits = {};

/** Side of Gemini's normalized coordinate grid: coordinates run 0–999. */
export const GEMINI_GRID = 1000;

function checkSize(size: Size, what: string): void {
  for (const side of ['width', 'height'] as const)
    if (!(Number.isInteger(size[side]) && size[side] > 0))
      throw new RangeError(`${what}.${side} must be a positive integer, got ${size[side]}`);
}

/** The size an image of `screen` is sent at under `limits` (never larger than the screen). */
export function imageSizeFor(screen: Size, limits: ImageLimits): Size {
  checkSize(screen, 'screen');
  let factor = 1;
  const long = Math.max(screen.width, screen.height);
  const short = Math.min(screen.width, screen.height);
  if (limits.maxLongSide !== undefined) factor = Math.min(factor, limits.maxLongSide / long);
  if (limits.maxPixels !== undefined)
    factor = Math.min(factor, Math.sqrt(limits.maxPixels / (screen.width * screen.height)));
  if (limits.fitSquare !== undefined) factor = Math.min(factor, limits.fitSquare / long);
  if (limits.maxShortSide !== undefined)
    // after the square fit, the short side is short × factor: at most maxShortSide
    factor = Math.min(factor, limits.maxShortSide / short);
  if (factor >= 1) return { ...screen };
  return {
    width: Math.max(1, Math.floor(screen.width * factor)),
    height: Math.max(1, Math.floor(screen.height * factor)),
  };
}

/** How the model's coordinates map to the screen. */
export interface Scaling {
  screen: Size;
  /** The size of the screenshots the model gets. */
  image: Size;
  /** The model's coordinate space: the image size, or Gemini's 1000 × 1000 grid. */
  coordinates: Size;
}

/** The scaling for a screen under a vendor's limits; `normalized` for Gemini's 0–999 grid. */
export function scalingFor(screen: Size, limits: ImageLimits, normalized = false): Scaling {
  const image = imageSizeFor(screen, limits);
  return {
    screen: { ...screen },
    image,
    coordinates: normalized ? { width: GEMINI_GRID, height: GEMINI_GRID } : { ...image },
  };
}

const clamp = (value: number, max: number) => Math.min(Math.max(value, 0), max);

/** A model coordinate → screen pixels (rounded, clamped to the screen). */
export function toScreen(scaling: Scaling, x: number, y: number): { x: number; y: number } {
  if (!Number.isFinite(x) || !Number.isFinite(y))
    throw new RangeError(`coordinates must be finite numbers, got (${x}, ${y})`);
  const { screen, coordinates } = scaling;
  return {
    x: clamp(Math.round((x * screen.width) / coordinates.width), screen.width - 1),
    y: clamp(Math.round((y * screen.height) / coordinates.height), screen.height - 1),
  };
}

/** Screen pixels → the model's coordinate space (for cursor positions the model asks for). */
export function toModel(scaling: Scaling, x: number, y: number): { x: number; y: number } {
  const { screen, coordinates } = scaling;
  return {
    x: clamp(Math.round((x * coordinates.width) / screen.width), coordinates.width - 1),
    y: clamp(Math.round((y * coordinates.height) / screen.height), coordinates.height - 1),
  };
}

/** A length along x or y in model units → screen pixels. */
export function lengthToScreen(scaling: Scaling, axis: 'x' | 'y', length: number): number {
  const side = axis === 'x' ? 'width' : 'height';
  return (length * scaling.screen[side]) / scaling.coordinates[side];
}

/** An image as the model gets it. */
export interface ModelImage {
  bytes: Buffer;
  mediaType: 'image/png' | 'image/jpeg';
}

/** JPEG quality of the screenshots the model gets; 4:4:4 chroma keeps coloured text edges. */
const SCREENSHOT_JPEG_QUALITY = 90;

/**
 * The JPEG settings: no Huffman-table optimisation (sharp's default is on), which costs 8–12 ms of
 * CPU per 1920×1080 screenshot for 7 % fewer bytes.
 */
const SCREENSHOT_JPEG = {
  quality: SCREENSHOT_JPEG_QUALITY,
  chromaSubsampling: '4:4:4',
  optimiseCoding: false,
} as const;

/**
 * The screenshot as the model gets it: resized to `scaling.image` when that is smaller than the
 * screen, and sent as JPEG (all three vendors take JPEG; about a quarter to a half of the PNG's
 * bytes, so every request carrying it — and every later one that still holds it in the history —
 * is cheaper to build, send and parse). Full-size screenshots (Gemini, small screens) are JPEG too:
 * a 1920×1080 PNG resent three times made Gemini's request body 2.6 MB.
 */
export async function screenshotForModel(png: Buffer, scaling: Scaling): Promise<ModelImage> {
  const { image, screen } = scaling;
  const input = sharp(png);
  const sized =
    image.width === screen.width && image.height === screen.height
      ? input
      : input.resize(image.width, image.height, { fit: 'fill', kernel: 'lanczos3' });
  const bytes = await sized.jpeg(SCREENSHOT_JPEG).toBuffer();
  return { bytes, mediaType: 'image/jpeg' };
}

/**
 * The largest size of a `region`'s aspect ratio within `limits`, scaled up or down (Anthropic's
 * zoom: "the crop is scaled up to fill the image budget"). A vendor without limits gets the region's own size.
 */
export function budgetSizeFor(region: Size, limits: ImageLimits): Size {
  checkSize(region, 'region');
  const long = Math.max(region.width, region.height);
  const short = Math.min(region.width, region.height);
  const factors = [
    limits.maxLongSide !== undefined ? limits.maxLongSide / long : Infinity,
    limits.maxPixels !== undefined
      ? Math.sqrt(limits.maxPixels / (region.width * region.height))
      : Infinity,
    limits.fitSquare !== undefined ? limits.fitSquare / long : Infinity,
    limits.maxShortSide !== undefined ? limits.maxShortSide / short : Infinity,
  ];
  const factor = Math.min(...factors);
  if (!Number.isFinite(factor)) return { ...region };
  return {
    width: Math.max(1, Math.floor(region.width * factor)),
    height: Math.max(1, Math.floor(region.height * factor)),
  };
}

/**
 * A region of the screen (screen pixels, `[x0, y0, x1, y1]`, the end exclusive) cropped from the
 * full-size screenshot and scaled to fill the vendor's image budget, as JPEG: what a `zoom` call
 * gets back. The crop comes from the screen's own pixels, so the zoom shows detail the downscaled
 * screenshot lost.
 */
export async function zoomImage(
  png: Buffer,
  region: readonly [number, number, number, number],
  limits: ImageLimits,
): Promise<ModelImage & Size> {
  const [x0, y0, x1, y1] = region;
  const crop = { left: x0, top: y0, width: x1 - x0, height: y1 - y0 };
  const size = budgetSizeFor(crop, limits);
  const bytes = await sharp(png)
    .extract(crop)
    .resize(size.width, size.height, { fit: 'fill', kernel: 'lanczos3' })
    .jpeg(SCREENSHOT_JPEG)
    .toBuffer();
  return { bytes, mediaType: 'image/jpeg', ...size };
}
