// The linearized accessibility table of an observation (better_log.json `a11y_tree`, the format
// upstream's agent shows its model): a header line, then one tab-separated row per element.

/** One row of the table, with its position and size parsed. */
export interface A11yTableRow {
  readonly tag: string;
  readonly name: string;
  /** The `text` cell; `""` (upstream's empty marker) becomes ''. */
  readonly text: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

const pair = (cell: string | undefined): [number, number] | null => {
  const match = /^\((-?\d+), (-?\d+)\)$/.exec(cell?.trim() ?? '');
  return match ? [Number(match[1]), Number(match[2])] : null;
};

/**
 * The rows of a linearized accessibility table (the header and lines without a position and size
 * are skipped; a cell value spanning lines is not supported and such a row is skipped too).
 */
export function parseA11yTable(tree: string): A11yTableRow[] {
  const rows: A11yTableRow[] = [];
  for (const line of tree.split('\n')) {
    const cells = line.split('\t');
    if (cells.length < 7) continue;
    const position = pair(cells[cells.length - 2]);
    const size = pair(cells[cells.length - 1]);
    if (!position || !size) continue;
    const text = cells[2] ?? '';
    rows.push({
      tag: cells[0] ?? '',
      name: cells[1] ?? '',
      text: text === '""' ? '' : text,
      x: position[0],
      y: position[1],
      width: size[0],
      height: size[1],
    });
  }
  return rows;
}

/** The name Chromium's accessibility tree gives its address bar. */
export const ADDRESS_BAR_NAME = 'Address and search bar';

/** The browser address bar's text in a linearized table, or null when the table has none. */
export function addressBarText(tree: string): string | null {
  const row = parseA11yTable(tree).find(
    candidate => candidate.tag === 'entry' && candidate.name === ADDRESS_BAR_NAME,
  );
  return row ? row.text : null;
}

/** What Chromium's address bar shows for a URL: no `https://`, no lone trailing `/`. */
export function displayedAddress(url: string): string {
  return url.replace(/^https:\/\//, '').replace(/^([^/]+)\/$/, '$1');
}
