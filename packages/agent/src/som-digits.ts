// A 5×7 bitmap font for the digits of Set-of-Marks labels. Drawn straight into the pixel buffer,
// so labels look the same on every machine (no system font, no text renderer) and later marks see
// earlier labels, as upstream's PIL drawing does.

const GLYPHS: readonly (readonly string[])[] = [
  ['.###.', '#...#', '#..##', '#.#.#', '##..#', '#...#', '.###.'],
  ['..#..', '.##..', '..#..', '..#..', '..#..', '..#..', '.###.'],
  ['.###.', '#...#', '....#', '...#.', '..#..', '.#...', '#####'],
  ['#####', '...#.', '..#..', '...#.', '....#', '#...#', '.###.'],
  ['...#.', '..##.', '.#.#.', '#..#.', '#####', '...#.', '...#.'],
  ['#####', '#....', '####.', '....#', '....#', '#...#', '.###.'],
  ['..##.', '.#...', '#....', '####.', '#...#', '#...#', '.###.'],
  ['#####', '....#', '...#.', '..#..', '.#...', '.#...', '.#...'],
  ['.###.', '#...#', '#...#', '.###.', '#...#', '#...#', '.###.'],
  ['.###.', '#...#', '#...#', '.####', '....#', '...#.', '.##..'],
];

/** Pixels per font dot. */
const SCALE = 2;
/** Glyph size in pixels. */
const GLYPH_WIDTH = 5 * SCALE;
const GLYPH_HEIGHT = 7 * SCALE;
/** Space between glyphs and around the text inside the black box, in pixels. */
const GAP = 2;
const PADDING = 2;

/** Size of the black label box for `text` (digits), padding included. */
export function labelSize(text: string): { width: number; height: number } {
  return {
    width: PADDING * 2 + text.length * GLYPH_WIDTH + (text.length - 1) * GAP,
    height: PADDING * 2 + GLYPH_HEIGHT,
  };
}

/** Calls `plot(x, y)` for every lit pixel of `text` drawn with its box's top-left at (left, top). */
export function forEachLabelPixel(
  text: string,
  left: number,
  top: number,
  plot: (x: number, y: number) => void,
): void {
  for (let index = 0; index < text.length; index += 1) {
    const glyph = GLYPHS[text.charCodeAt(index) - 48];
    if (!glyph) continue;
    const glyphLeft = left + PADDING + index * (GLYPH_WIDTH + GAP);
    for (let row = 0; row < 7; row += 1) {
      for (let column = 0; column < 5; column += 1) {
        if (glyph[row]![column] !== '#') continue;
        for (let dy = 0; dy < SCALE; dy += 1)
          for (let dx = 0; dx < SCALE; dx += 1)
            plot(glyphLeft + column * SCALE + dx, top + PADDING + row * SCALE + dy);
      }
    }
  }
}
