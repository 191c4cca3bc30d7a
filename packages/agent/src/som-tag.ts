import sharp from 'sharp';
import { filterAccessibilityNodes, parsePair } from './a11y-filter';
import { a11yTextCell } from './a11y-linearize';
import { a11yNamespaces, type A11yPlatform } from './a11y-namespaces';
import { toParsedTree, type ParsedAccessibilityTree } from './a11y-xml';
import { forEachLabelPixel, labelSize } from './som-digits';

/** A Set-of-Marks box: `[x, y, width, height]` in screen pixels. */
export type SomMark = [x: number, y: number, width: number, height: number];

/** The header of the Set-of-Marks element table. */
export const SOM_TABLE_HEADER = 'index\ttag\tname\ttext';

/** What {@link tagScreenshot} returns. */
export interface TaggedScreenshot {
  /** The screenshot with a red box and a numbered label on every mark (PNG). */
  readonly taggedPng: Buffer;
  /** One box per label; label `i` is `marks[i - 1]`. */
  readonly marks: SomMark[];
  /** {@link SOM_TABLE_HEADER}, then `index\ttag\tname\ttext` per mark. Not trimmed. */
  readonly table: string;
}

/** Options of {@link tagScreenshot}. */
export interface TagScreenshotOptions {
  /** @default 'ubuntu' */
  readonly platform?: A11yPlatform;
  /** zlib level of the tagged PNG (0–9): lower is faster and larger. @default 6 */
  readonly compressionLevel?: number;
}

interface Raster {
  readonly data: Buffer;
  readonly width: number;
  readonly height: number;
  readonly channels: number;
}

const RED = [255, 0, 0, 255];
const BLACK = [0, 0, 0, 255];
const WHITE = [255, 255, 255, 255];

function plot(raster: Raster, x: number, y: number, colour: readonly number[]): void {
  if (x < 0 || y < 0 || x >= raster.width || y >= raster.height) return;
  const offset = (y * raster.width + x) * raster.channels;
  for (let channel = 0; channel < raster.channels; channel += 1)
    raster.data[offset + channel] = colour[channel]!;
}

/**
 * True when the crop `[left, right) × [top, bottom)` has one colour, as PIL's
 * `len(set(image.crop(box).getdata())) == 1`: pixels outside the image count as zeros.
 */
function isSingleColour(
  raster: Raster,
  left: number,
  top: number,
  right: number,
  bottom: number,
): boolean {
  const { data, width, height, channels } = raster;
  const x0 = Math.max(0, left);
  const y0 = Math.max(0, top);
  const x1 = Math.min(width, right);
  const y1 = Math.min(height, bottom);
  if (x0 >= x1 || y0 >= y1) return true;
  const padded = left < 0 || top < 0 || right > width || bottom > height;
  const first = (y0 * width + x0) * channels;
  const rowBytes = (x1 - x0) * channels;
  // The first row: every pixel equals the reference (zeros when the crop runs off the image).
  for (let offset = first; offset < first + rowBytes; offset += channels) {
    for (let channel = 0; channel < channels; channel += 1) {
      const reference = padded ? 0 : data[first + channel]!;
      if (data[offset + channel] !== reference) return false;
    }
  }
  // Every other row equals the first (memcmp).
  for (let y = y0 + 1; y < y1; y += 1) {
    const start = (y * width + x0) * channels;
    if (data.compare(data, first, first + rowBytes, start, start + rowBytes) !== 0) return false;
  }
  return true;
}

function drawOutline(raster: Raster, x0: number, y0: number, x1: number, y1: number): void {
  // PIL's `rectangle([(x0, y0), (x1, y1)], outline=…, width=1)`: both corners inclusive.
  for (let x = x0; x <= x1; x += 1) {
    plot(raster, x, y0, RED);
    plot(raster, x, y1, RED);
  }
  for (let y = y0 + 1; y < y1; y += 1) {
    plot(raster, x0, y, RED);
    plot(raster, x1, y, RED);
  }
}

function drawLabel(raster: Raster, text: string, left: number, bottom: number): void {
  // Anchored left-bottom at the box's bottom-left corner, as upstream's `anchor="lb"`.
  const { width, height } = labelSize(text);
  const top = bottom - height + 1;
  for (let y = top; y <= bottom; y += 1)
    for (let x = left; x < left + width; x += 1) plot(raster, x, y, BLACK);
  forEachLabelPixel(text, left, top, (x, y) => plot(raster, x, y, WHITE));
}

/**
 * Set-of-Marks tagging, as upstream's `tag_screenshot` / `draw_bounding_boxes`: the nodes the
 * filter keeps (with the image allowance), in document order; a node whose crop of the screenshot
 * has a single colour is skipped (the crop is read from the image as drawn so far, as upstream's
 * PIL drawing does); every other node gets a red 1-px rectangle and a white-on-black index label
 * (from 1) at its bottom-left corner, a mark `[x, y, w, h]` and a table row.
 *
 * Drawn straight into the decoded pixels with a built-in digit font and encoded once with sharp:
 * identical output on every machine, no system fonts needed.
 */
export async function tagScreenshot(
  png: Uint8Array,
  tree: string | ParsedAccessibilityTree,
  { platform = 'ubuntu', compressionLevel = 6 }: TagScreenshotOptions = {},
): Promise<TaggedScreenshot> {
  const decoded = await sharp(png)
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raster: Raster = {
    data: decoded.data,
    width: decoded.info.width,
    height: decoded.info.height,
    channels: decoded.info.channels,
  };
  const ns = a11yNamespaces(platform);
  const screencoordKey = `{${ns.component}}screencoord`;
  const sizeKey = `{${ns.component}}size`;
  const marks: SomMark[] = [];
  const rows = [SOM_TABLE_HEADER];
  for (const node of filterAccessibilityNodes(toParsedTree(tree), { platform, forSom: true })) {
    const [x, y] = parsePair(node.get(screencoordKey));
    const [width, height] = parsePair(node.get(sizeKey));
    const right = x + width;
    const bottom = y + height;
    if (isSingleColour(raster, x, y, right, bottom)) continue;
    const index = marks.length + 1;
    drawOutline(raster, x, y, right, bottom);
    drawLabel(raster, String(index), x, bottom);
    marks.push([x, y, width, height]);
    rows.push(`${index}\t${node.tag}\t${node.get('name')}\t${a11yTextCell(node, ns)}`);
  }
  const taggedPng = await sharp(raster.data, {
    raw: { width: raster.width, height: raster.height, channels: raster.channels as 1 | 2 | 3 | 4 },
  })
    .png({ compressionLevel })
    .toBuffer();
  return { taggedPng, marks, table: rows.join('\n') };
}

/**
 * The lines upstream prepends to every non-special code action of a Set-of-Marks step: one
 * `tag_<i>=(cx, cy)` per mark, the centre `(x + w//2, y + h//2)` of mark `i` (from 1), each ending
 * in a newline.
 */
export function tagPrelude(marks: readonly (readonly number[])[]): string {
  let prelude = '';
  marks.forEach(([x = 0, y = 0, width = 0, height = 0], index) => {
    prelude += `tag_${index + 1}=(${Math.trunc(x + Math.floor(width / 2))}, ${Math.trunc(y + Math.floor(height / 2))})\n`;
  });
  return prelude;
}
