import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { compact, UBUNTU_NAMESPACES } from './__fixtures__/a11y-fixtures';
import { SOM_TABLE_HEADER, tagPrelude, tagScreenshot } from './som-tag';

const WIDTH = 400;
const HEIGHT = 300;

/** A white screen with a blue button face, a green panel and an orange icon. */
async function screenshot(channels: 3 | 4 = 3): Promise<Buffer> {
  const svg =
    `<svg width="${WIDTH}" height="${HEIGHT}" xmlns="http://www.w3.org/2000/svg">` +
    `<rect x="0" y="0" width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>` +
    `<rect x="30" y="25" width="40" height="20" fill="#2050d0"/>` +
    `<rect x="40" y="170" width="60" height="20" fill="#20a040"/>` +
    `<rect x="310" y="210" width="30" height="30" fill="#f08020"/>` +
    `</svg>`;
  const image = sharp(Buffer.from(svg));
  return (channels === 4 ? image.ensureAlpha() : image.removeAlpha()).png().toBuffer();
}

const node = (tag: string, name: string, [x, y, w, h]: number[], extra = '') =>
  `<${tag} name="${name}" ${extra} st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(${x}, ${y})" cp:size="(${w}, ${h})"></${tag}>`;

const XML = compact(`
<desktop-frame ${UBUNTU_NAMESPACES}>
  ${node('push-button', 'Save', [20, 20, 100, 40])}
  ${node('push-button', 'Blank', [200, 20, 80, 40])}
  ${node('label', 'Across the Save border', [110, 30, 40, 20])}
  ${node('panel', 'not kept', [0, 0, 400, 300])}
  ${node('table-cell', '', [20, 150, 151, 61]).replace('></table-cell>', '>say "cell"</table-cell>')}
  ${node('image', '', [300, 200, 50, 50], 'image="true"')}
</desktop-frame>`);

async function pixel(png: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const offset = (y * info.width + x) * info.channels;
  return [...data.subarray(offset, offset + 3)];
}

describe('tagScreenshot', () => {
  it('marks the kept nodes whose crop is not one colour, in document order', async () => {
    const { marks, table } = await tagScreenshot(await screenshot(), XML);
    expect(marks).toEqual([
      [20, 20, 100, 40],
      // Plain white in the screenshot, but it crosses the red border drawn for mark 1: upstream
      // crops from the image as drawn so far, so it is marked.
      [110, 30, 40, 20],
      [20, 150, 151, 61],
      [300, 200, 50, 50],
    ]);
    expect(table).toBe(
      [
        SOM_TABLE_HEADER,
        '1\tpush-button\tSave\t""',
        '2\tlabel\tAcross the Save border\t""',
        '3\ttable-cell\t\t"say ""cell"""',
        '4\timage\t\t""',
      ].join('\n'),
    );
  });

  it('draws red 1-px boxes and white-on-black labels at the bottom-left', async () => {
    const { taggedPng } = await tagScreenshot(await screenshot(), XML);
    const meta = await sharp(taggedPng).metadata();
    expect([meta.width, meta.height, meta.format]).toEqual([WIDTH, HEIGHT, 'png']);
    // Box corners (both inclusive, as PIL's rectangle) and edges.
    expect(await pixel(taggedPng, 20, 20)).toEqual([255, 0, 0]);
    expect(await pixel(taggedPng, 120, 20)).toEqual([255, 0, 0]);
    expect(await pixel(taggedPng, 120, 25)).toEqual([255, 0, 0]);
    expect(await pixel(taggedPng, 70, 20)).toEqual([255, 0, 0]);
    // One pixel wide: inside and outside the border are untouched.
    expect(await pixel(taggedPng, 119, 26)).toEqual([255, 255, 255]);
    expect(await pixel(taggedPng, 19, 26)).toEqual([255, 255, 255]);
    // The label of mark 1 sits on the box's bottom-left corner (20, 60): black box, white digit.
    expect(await pixel(taggedPng, 21, 59)).toEqual([0, 0, 0]);
    expect(await pixel(taggedPng, 20, 60)).toEqual([0, 0, 0]);
    const label = await sharp(taggedPng)
      .extract({ left: 20, top: 43, width: 14, height: 18 })
      .raw()
      .toBuffer();
    const white = [...Array(label.length / 3).keys()].filter(
      index =>
        label[index * 3] === 255 && label[index * 3 + 1] === 255 && label[index * 3 + 2] === 255,
    );
    expect(white.length).toBeGreaterThan(10);
    // The skipped node's area is unchanged.
    expect(await pixel(taggedPng, 200, 20)).toEqual([255, 255, 255]);
    expect(await pixel(taggedPng, 280, 60)).toEqual([255, 255, 255]);
  });

  it('handles RGBA screenshots and boxes running off the screen', async () => {
    const xml = compact(`
      <desktop-frame ${UBUNTU_NAMESPACES}>
        ${node('push-button', 'Edge', [380, 280, 50, 50])}
        ${node('push-button', 'Icon', [305, 205, 40, 40])}
      </desktop-frame>`);
    const { marks, taggedPng } = await tagScreenshot(await screenshot(4), xml);
    // The first crop is white plus the zeros PIL pads outside the image: two colours, marked.
    expect(marks).toEqual([
      [380, 280, 50, 50],
      [305, 205, 40, 40],
    ]);
    expect((await sharp(taggedPng).metadata()).channels).toBe(4);
    expect(await pixel(taggedPng, 399, 280)).toEqual([255, 0, 0]);
  });

  it('gives no marks for a tree with nothing to mark', async () => {
    const { marks, table } = await tagScreenshot(
      await screenshot(),
      compact(
        `<desktop-frame ${UBUNTU_NAMESPACES}>${node('push-button', 'Blank', [200, 20, 80, 40])}</desktop-frame>`,
      ),
    );
    expect(marks).toEqual([]);
    expect(table).toBe(SOM_TABLE_HEADER);
  });
});

describe('tagPrelude', () => {
  it('defines tag_<i> as the centre (x + w//2, y + h//2), from 1', () => {
    expect(
      tagPrelude([
        [20, 20, 100, 40],
        [20, 150, 151, 61],
      ]),
    ).toBe('tag_1=(70, 40)\ntag_2=(95, 180)\n');
    expect(tagPrelude([])).toBe('');
  });
});
