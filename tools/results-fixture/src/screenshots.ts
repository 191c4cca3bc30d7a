import sharp from 'sharp';

let made = 0;

/**
 * Distinct screenshots as PNG bytes: a desktop-like picture (title bar, window, text lines) with a
 * label. Every image this process makes differs from every other (background colour and label come
 * from a running count), so a caption cache never serves one trajectory's image for another's.
 */
export async function makeScreenshots(
  count: number,
  { width = 1280, height = 720 }: { width?: number; height?: number } = {},
): Promise<Buffer[]> {
  const colors = ['#2563eb', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#be123c'];
  const images: Buffer[] = [];
  for (let index = 0; index < count; index += 1) {
    made += 1;
    const color = colors[made % colors.length]!;
    const background = `rgb(${(made * 53) % 256},${(made * 97) % 256},${(made * 193) % 256})`;
    const lines = Array.from(
      { length: 12 },
      (_, line) =>
        `<rect x="${width * 0.18}" y="${height * 0.22 + line * 32}" width="${width * (0.3 + ((made * 7 + line * 13) % 40) / 100)}" height="12" fill="#d1d5db"/>`,
    ).join('');
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<rect width="100%" height="100%" fill="${background}"/>
<rect x="0" y="0" width="${width}" height="${Math.max(2, height / 25)}" fill="#0f172a"/>
<rect x="${width * 0.12}" y="${height * 0.1}" width="${width * 0.76}" height="${height * 0.8}" fill="#f8fafc" rx="6"/>
<rect x="${width * 0.12}" y="${height * 0.1}" width="${width * 0.76}" height="${height * 0.05}" fill="${color}" rx="6"/>
${lines}
<text x="${width * 0.5}" y="${height * 0.75}" font-size="${Math.max(8, height / 15)}" font-family="sans-serif" text-anchor="middle" fill="${color}">screen ${made}</text>
</svg>`;
    images.push(await sharp(Buffer.from(svg)).png().toBuffer());
  }
  return images;
}
