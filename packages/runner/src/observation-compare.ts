import { addressBarText, parseA11yTable, type A11yTableRow } from '@osharm/task-schema/trajectory';

// Compares osharm's first observation of a run with upstream's recorded one (both linearized
// accessibility tables, better_log.json `steps[0].a11y_tree`). Upstream's rows are sorted into the
// GNOME shell's (top bar, dock, the desktop's Home icon), live web content (inside a `document-web`
// element: pages osharm's offline desktop cannot load, reported apart), the notification banner,
// and the applications' rows; each distinct row (tag, name, text) is then present at upstream's
// position (±{@link POSITION_TOLERANCE_PX} px), moved, or missing in osharm's observation.

/** How far (px, on each axis) a row may sit from upstream's and still count as at its position. */
export const POSITION_TOLERANCE_PX = 8;

/** Upstream's GNOME layout on its 1920×1080 screen: the top bar's height and the dock's width. */
const TOP_BAR_HEIGHT = 27;
const DOCK_WIDTH = 70;

/** Where one category of upstream's distinct rows stands in osharm's observation. */
export interface RowTally {
  /** Upstream's distinct rows (tag, name, text) in this category. */
  readonly upstream: number;
  /** Found in osharm's observation at upstream's position (±tolerance). */
  readonly at_position: number;
  /** Found, but elsewhere. */
  readonly moved: number;
  readonly missing: number;
  /** The missing rows, as `tag "name" "text"` (at most 40). */
  readonly missing_rows: readonly string[];
  /** The moved rows with both positions (at most 40). */
  readonly moved_rows: readonly {
    row: string;
    upstream: [number, number];
    osharm: [number, number];
  }[];
}

/** The comparison of one run's first observations. */
export interface ObservationComparison {
  /** Applications' rows outside live web content. */
  readonly app: RowTally;
  /** The GNOME shell's rows (top bar, dock, the desktop's Home icon). */
  readonly shell: RowTally;
  /** Rows of live web content (inside a page): reported apart, not counted in `coverage`. */
  readonly web: RowTally;
  /** Share of upstream's distinct rows outside live web content (app, shell, banner) present. */
  readonly coverage: {
    readonly present: number;
    readonly at_position: number;
    readonly of: number;
  };
  /** The notification banner carrying the injected text (desktop_notification runs). */
  readonly banner: {
    readonly upstream: [number, number] | null;
    readonly osharm: [number, number] | null;
    readonly at_position: boolean | null;
  };
  /** The browser's address bar text (null: no browser address bar in that observation). */
  readonly address: {
    readonly upstream: string | null;
    readonly osharm: string | null;
    readonly equal: boolean | null;
  };
  /** Mail listed in a message list (message rows outside web pages), by row name. */
  readonly mail: { readonly upstream: readonly string[]; readonly osharm: readonly string[] };
}

/**
 * A message list's row as Thunderbird names it: sender, date, time, subject (e.g. "Alice, 5/4/25,
 * 05:53, RSVP: …"); other list items (a browser's error page, a menu) are not mail.
 */
const MESSAGE_ROW = /, \d{1,2}\/\d{1,2}\/\d{2,4}, \d{1,2}:\d{2}( [AP]M)?, /;

const squash = (text: string) => text.replace(/\s+/g, '').toLowerCase();
const keyOf = (row: A11yTableRow) =>
  `${row.tag}\t${row.name.replace(/\s+/g, ' ').trim()}\t${row.text.replace(/\s+/g, ' ').trim()}`;
const label = (row: A11yTableRow) => `${row.tag} "${row.name}" "${row.text}"`;

/** True for a row of upstream's GNOME shell: the top bar, the dock, the desktop's Home icon. */
export function isShellRow(row: A11yTableRow): boolean {
  const topBar = row.y >= 0 && row.y + row.height <= TOP_BAR_HEIGHT;
  const dock = row.x >= 0 && row.x + row.width <= DOCK_WIDTH && row.y >= TOP_BAR_HEIGHT;
  const homeIcon = row.tag === 'label' && row.name === 'Home' && row.text === 'Home';
  return topBar || dock || homeIcon;
}

/** The boxes of the observation's web pages (`document-web` rows). */
function pages(rows: readonly A11yTableRow[]) {
  return rows.filter(row => row.tag === 'document-web' && row.width > 0 && row.height > 0);
}

function inside(row: A11yTableRow, boxes: readonly A11yTableRow[]): boolean {
  return boxes.some(
    box =>
      row.x >= box.x && row.y >= box.y && row.x < box.x + box.width && row.y < box.y + box.height,
  );
}

/** The row carrying `text` (the banner: its name or text holds the injected text's start). */
function bannerRow(rows: readonly A11yTableRow[], text: string | null): A11yTableRow | undefined {
  if (!text) return undefined;
  const needle = squash(text).slice(0, 60);
  return rows.find(row => squash(row.name).includes(needle) || squash(row.text).includes(needle));
}

function tally(upstream: readonly A11yTableRow[], ours: readonly A11yTableRow[]): RowTally {
  const byKey = new Map<string, A11yTableRow[]>();
  for (const row of ours) byKey.set(keyOf(row), [...(byKey.get(keyOf(row)) ?? []), row]);
  const distinct = new Map<string, A11yTableRow[]>();
  for (const row of upstream) distinct.set(keyOf(row), [...(distinct.get(keyOf(row)) ?? []), row]);
  let atPosition = 0;
  const moved: RowTally['moved_rows'][number][] = [];
  const missing: string[] = [];
  for (const [key, rows] of distinct) {
    const candidates = byKey.get(key) ?? [];
    if (candidates.length === 0) {
      missing.push(label(rows[0]!));
      continue;
    }
    const close = rows.some(row =>
      candidates.some(
        candidate =>
          Math.abs(candidate.x - row.x) <= POSITION_TOLERANCE_PX &&
          Math.abs(candidate.y - row.y) <= POSITION_TOLERANCE_PX,
      ),
    );
    if (close) atPosition += 1;
    else {
      moved.push({
        row: label(rows[0]!),
        upstream: [rows[0]!.x, rows[0]!.y],
        osharm: [candidates[0]!.x, candidates[0]!.y],
      });
    }
  }
  return {
    upstream: distinct.size,
    at_position: atPosition,
    moved: moved.length,
    missing: missing.length,
    missing_rows: missing.slice(0, 40),
    moved_rows: moved.slice(0, 40),
  };
}

/**
 * Compares osharm's first observation with upstream's. `injected` holds each side's injected
 * text (better_log `task.injection.content`; the two differ when osharm's goal texts are its own)
 * to find the banners.
 */
export function compareFirstObservations(
  upstreamTree: string,
  osharmTree: string,
  injected: { readonly upstream: string | null; readonly osharm: string | null } = {
    upstream: null,
    osharm: null,
  },
): ObservationComparison {
  const upstream = parseA11yTable(upstreamTree);
  const ours = parseA11yTable(osharmTree);
  const upstreamPages = pages(upstream);
  const ourPages = pages(ours);
  const upstreamBanner = bannerRow(upstream, injected.upstream);
  const ourBanner = bannerRow(ours, injected.osharm);
  const rest = upstream.filter(row => row !== upstreamBanner);
  // The shell's rows first: the desktop's Home icon lies under a maximized window's page.
  const shell = rest.filter(isShellRow);
  const web = rest.filter(row => !isShellRow(row) && inside(row, upstreamPages));
  const app = rest.filter(row => !isShellRow(row) && !inside(row, upstreamPages));
  const appTally = tally(app, ours);
  const shellTally = tally(shell, ours);
  const bannerAt =
    upstreamBanner && ourBanner
      ? Math.abs(upstreamBanner.x - ourBanner.x) <= POSITION_TOLERANCE_PX &&
        Math.abs(upstreamBanner.y - ourBanner.y) <= POSITION_TOLERANCE_PX
      : upstreamBanner
        ? false
        : null;
  const bannerCount = upstreamBanner ? 1 : 0;
  const bannerPresent = upstreamBanner && ourBanner ? 1 : 0;
  const upstreamAddress = addressBarText(upstreamTree);
  const ourAddress = addressBarText(osharmTree);
  const listed = (rows: readonly A11yTableRow[], boxes: readonly A11yTableRow[]) =>
    rows
      .filter(row => row.tag === 'list-item' && MESSAGE_ROW.test(row.name) && !inside(row, boxes))
      .map(row => row.name);
  return {
    app: appTally,
    shell: shellTally,
    web: tally(web, ours),
    coverage: {
      present:
        appTally.at_position +
        appTally.moved +
        shellTally.at_position +
        shellTally.moved +
        bannerPresent,
      at_position: appTally.at_position + shellTally.at_position + (bannerAt === true ? 1 : 0),
      of: appTally.upstream + shellTally.upstream + bannerCount,
    },
    banner: {
      upstream: upstreamBanner ? [upstreamBanner.x, upstreamBanner.y] : null,
      osharm: ourBanner ? [ourBanner.x, ourBanner.y] : null,
      at_position: bannerAt,
    },
    address: {
      upstream: upstreamAddress,
      osharm: ourAddress,
      equal: upstreamAddress === null ? null : upstreamAddress === ourAddress,
    },
    mail: { upstream: listed(upstream, upstreamPages), osharm: listed(ours, ourPages) },
  };
}
