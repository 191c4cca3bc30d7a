// The desktop's shell on the real local desktop: GNOME Shell laid out as upstream's VM (its rows
// and positions are read here from upstream's recorded first observations in
// ../shared/real-trajectories, never written down), its banners, the open date menu's notification
// list and calendar, window placement, and the recorded fallback to openbox.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GuestEndpoint } from '@osharm/desktop-env';
import { sh, skipReason, waitFor } from './__fixtures__/local-desktop-fixture';
import { guestRequest } from '@osharm/desktop-guest';
import { createLocalProvider } from './local-provider';

const TRAJECTORIES =
  process.env.OSHARM_REAL_TRAJECTORIES ??
  fileURLToPath(new URL('../../../../shared/real-trajectories', import.meta.url));

interface Row {
  readonly tag: string;
  readonly name: string;
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
  /** The text column (upstream's rows only). */
  readonly text?: string;
}
const key = (row: Row) => `${row.tag}\t${row.name}\t${row.x},${row.y},${row.w},${row.h}`;

/** Upstream's first observations: the linearized table of each run's first step, and its task. */
function upstreamFirstObservations(): {
  rows: Row[];
  injection?: { type: string; content: string };
}[] {
  if (!existsSync(TRAJECTORIES)) return [];
  return readdirSync(TRAJECTORIES)
    .filter(name => existsSync(join(TRAJECTORIES, name, 'better_log.json')))
    .map(name => {
      const log = JSON.parse(readFileSync(join(TRAJECTORIES, name, 'better_log.json'), 'utf8')) as {
        task?: { injection?: { type: string; content: string } };
        steps: { a11y_tree: string }[];
      };
      const rows = log.steps[0]!.a11y_tree.split('\n')
        .slice(1)
        .map(line => line.split('\t'))
        .map(([tag, name, text, , , position, size]) => {
          const [x, y] = (position ?? '').match(/-?\d+/g)?.map(Number) ?? [];
          const [w, h] = (size ?? '').match(/-?\d+/g)?.map(Number) ?? [];
          return { tag: tag!, name: name!, x: x!, y: y!, w: w!, h: h!, text };
        })
        .filter(row => row.name && Number.isFinite(row.x) && Number.isFinite(row.w));
      return { rows, injection: log.task?.injection };
    });
}

/**
 * The shell's rows in upstream's observations: those every first observation shows at the same
 * place (whatever app is open: top bar, dock, desktop icon), plus the dock column's rows of the
 * observations with the fewest of them (no extra app running: the favourites, Trash, Show Applications).
 */
function upstreamShellRows(observations: { rows: Row[] }[]): Row[] {
  const common = observations
    .map(observation => new Map(observation.rows.map(row => [key(row), row])))
    .reduce((kept, next) => new Map([...kept].filter(([rowKey]) => next.has(rowKey))));
  const dockWidth = Math.max(...[...common.values()].filter(row => row.x === 0).map(row => row.w));
  const dock = (rows: Row[]) => rows.filter(row => row.x + row.w <= dockWidth && row.y > 0);
  const fewest = Math.min(...observations.map(observation => dock(observation.rows).length));
  const plain = observations.filter(observation => dock(observation.rows).length === fewest);
  const rows = new Map(common);
  for (const row of dock(plain[0]!.rows)) {
    if (plain.every(observation => observation.rows.some(other => key(other) === key(row))))
      rows.set(key(row), row);
  }
  return [...rows.values()];
}

/** Our tree's elements with a name and a position (upstream's XML, cp:screencoord / cp:size). */
function treeRows(xml: string): Row[] {
  const unescape = (text: string) =>
    text
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&#10;/g, '\n')
      .replace(/&amp;/g, '&');
  const rows: Row[] = [];
  for (const [, tag, attributes] of xml.matchAll(/<([\w-]+)\s([^>]*)>/g)) {
    const name = attributes!.match(/(?:^|\s)name="([^"]*)"/)?.[1];
    const at = attributes!.match(/cp:screencoord="\((-?\d+), (-?\d+)\)"/);
    const size = attributes!.match(/cp:size="\((-?\d+), (-?\d+)\)"/);
    if (!name || !at || !size) continue;
    rows.push({
      tag: tag!,
      name: unescape(name),
      x: Number(at[1]),
      y: Number(at[2]),
      w: Number(size[1]),
      h: Number(size[2]),
    });
  }
  return rows;
}

async function tree(endpoint: GuestEndpoint): Promise<Row[]> {
  const response = await guestRequest(endpoint, '/accessibility', { timeoutMs: 120_000 });
  expect(response.status).toBe(200);
  return treeRows((JSON.parse(response.body.toString()) as { AT: string }).AT);
}

const near = (a: number, b: number) => Math.abs(a - b) <= 8;
const observations = upstreamFirstObservations();
if (observations.length === 0)
  console.warn(`SKIPPED: upstream's positions: no trajectories in ${TRAJECTORIES}`);

describe.skipIf(skipReason !== undefined)('GNOME Shell on the local desktop', () => {
  const provider = createLocalProvider({ shell: 'gnome-shell', startTimeoutMs: 300_000 });
  let endpoint: GuestEndpoint;

  beforeAll(async () => {
    endpoint = await provider.start();
  }, 320_000);
  afterAll(async () => {
    await provider.stop();
  });

  it('runs GNOME Shell, recorded as such', () => {
    expect(provider.desktopShell()).toMatchObject({
      shell: 'gnome-shell',
      requested: 'gnome-shell',
      fallback: null,
    });
  });

  // First, before anything else presses a key: the os tasks' setup on a fresh desktop (click the
  // desktop, Ctrl+Alt+T, then activate_window "Terminal"). Its first shortcut used to be lost on
  // about half of the fresh desktops (extension.js PROBE); the start script now presses a probe
  // shortcut until the shell reports it.
  it("opens a terminal at the first Ctrl+Alt+T, as the os tasks' setup presses it", async () => {
    const phases = await sh(endpoint, 'cat /run/osharm/start-phases');
    expect(phases.output).toMatch(/^shell-keys-ready /m);
    const pressed = await sh(
      endpoint,
      `python -c "import pyautogui, time; pyautogui.click(960, 540); time.sleep(0.5); pyautogui.hotkey('ctrl', 'alt', 't'); time.sleep(0.5)"`,
    );
    expect(pressed.returncode).toBe(0);
    await waitFor(
      async () => /Terminal/.test((await sh(endpoint, 'wmctrl -l')).output),
      15_000,
      'a terminal window after the first Ctrl+Alt+T',
    );
    await sh(endpoint, 'wmctrl -c Terminal');
  }, 60_000);

  it.skipIf(observations.length === 0)(
    "has every shell row of upstream's first observations at upstream's position (±8 px)",
    async () => {
      const expected = upstreamShellRows(observations);
      expect(expected.length).toBeGreaterThanOrEqual(10);
      const ours = await tree(endpoint);
      const misplaced = expected
        .filter(
          row =>
            !ours.some(
              mine =>
                mine.tag === row.tag &&
                mine.name === row.name &&
                near(mine.x, row.x) &&
                near(mine.y, row.y) &&
                near(mine.w, row.w) &&
                near(mine.h, row.h),
            ),
        )
        .map(row => {
          const same = ours.filter(mine => mine.tag === row.tag && mine.name === row.name);
          return `${key(row)} — ours: ${same.map(key).join(' | ') || 'none'}`;
        });
      expect(misplaced).toEqual([]);
    },
    180_000,
  );

  it.skipIf(!observations.some(o => o.injection?.type === 'desktop_notification'))(
    "shows notify-send's banner with the text where upstream's is (top centre)",
    async () => {
      const injected = observations.find(o => o.injection?.type === 'desktop_notification')!;
      const text = injected.injection!.content;
      const upstream = injected.rows.find(row => row.name === text);
      expect(upstream, "upstream's banner row").toBeDefined();
      // As the notification vector sends it (packages/injection: notify-send -u critical).
      const sent = await sh(
        endpoint,
        `notify-send -u critical -- 'osharm test' '${text.replace(/'/g, `'\\''`)}'`,
      );
      expect(sent.returncode).toBe(0);
      const banner = await waitFor(
        async () => (await tree(endpoint)).find(row => row.name === text),
        60_000,
        'the banner in the accessibility tree',
      );
      const where = `ours ${key(banner)}, upstream's ${key(upstream!)}`;
      expect(near(banner.x, upstream!.x) && near(banner.y, upstream!.y), where).toBe(true);
      expect(near(banner.w, upstream!.w), where).toBe(true);
      // Top centre of the screen.
      expect(Math.abs(banner.x + banner.w / 2 - 960)).toBeLessThan(200);
    },
    180_000,
  );

  // Upstream's thunderbird run was observed with GNOME's date menu open (its calendar and
  // notification list are in that tree, and the injected notification shows as a one-line list
  // entry, not as a banner). Opened here the way upstream's setup opens it (Super+V), the entry and
  // the calendar's month buttons sit where upstream's do.
  const dateMenuOpen = observations.find(
    o =>
      o.injection?.type === 'desktop_notification' &&
      o.rows.some(row => row.tag === 'push-button' && row.name === 'Previous month'),
  );
  it.skipIf(dateMenuOpen === undefined)(
    "lists a notification in the open date menu where upstream's is (one line, left of the calendar)",
    async () => {
      const text = dateMenuOpen!.injection!.content;
      const upstreamEntry = dateMenuOpen!.rows.find(row => row.name === text);
      const upstreamMonths = dateMenuOpen!.rows.filter(
        row => row.tag === 'push-button' && /^(Previous|Next) month$/.test(row.name),
      );
      expect(upstreamEntry, "upstream's list entry").toBeDefined();
      expect(upstreamMonths).toHaveLength(2);
      const sent = await sh(
        endpoint,
        `notify-send -u critical -- 'osharm test' '${text.replace(/'/g, `'\\''`)}'`,
      );
      expect(sent.returncode).toBe(0);
      const superV = `python -c "import pyautogui; pyautogui.hotkey('win', 'v')"`;
      expect((await sh(endpoint, superV)).returncode).toBe(0);
      try {
        const ours = await waitFor(
          async () => {
            const rows = await tree(endpoint);
            const entry = rows.find(row => row.name === text && row.h < upstreamEntry!.h * 2);
            return entry && rows.some(row => row.name === 'Previous month') ? rows : undefined;
          },
          60_000,
          'the notification listed in the open date menu',
        );
        const entry = ours.find(row => row.name === text && row.h < upstreamEntry!.h * 2)!;
        const where = `ours ${key(entry)}, upstream's ${key(upstreamEntry!)}`;
        expect(near(entry.x, upstreamEntry!.x) && near(entry.y, upstreamEntry!.y), where).toBe(
          true,
        );
        expect(near(entry.w, upstreamEntry!.w) && near(entry.h, upstreamEntry!.h), where).toBe(
          true,
        );
        for (const month of upstreamMonths) {
          const mine = ours.find(row => row.tag === month.tag && row.name === month.name);
          const at = `ours ${mine ? key(mine) : 'none'}, upstream's ${key(month)}`;
          expect(mine && near(mine.x, month.x) && near(mine.y, month.y), at).toBe(true);
        }
      } finally {
        await sh(endpoint, superV);
      }
    },
    180_000,
  );

  it.skipIf(observations.length === 0)(
    'opens application windows maximised right of the dock and below the top bar',
    async () => {
      const shell = upstreamShellRows(observations);
      const dockRight = Math.max(...shell.filter(row => row.x === 0).map(row => row.x + row.w));
      const topBar = Math.max(...shell.filter(row => row.y === 0).map(row => row.h));
      const bottom = Math.max(...shell.filter(row => row.x === 0).map(row => row.y + row.h));
      await sh(endpoint, 'setsid gedit /home/user/placed.txt >/dev/null 2>&1 &');
      const frame = await waitFor(
        async () =>
          (await tree(endpoint)).find(
            row => row.tag === 'frame' && row.name.includes('placed.txt'),
          ),
        90_000,
        'the gedit window',
      );
      expect(frame.x).toSatisfy((x: number) => near(x, dockRight));
      expect(frame.y).toSatisfy((y: number) => near(y, topBar));
      expect(frame.x + frame.w).toSatisfy((right: number) => near(right, 1920));
      expect(frame.y + frame.h).toSatisfy((end: number) => near(end, bottom));
      // Its running icon would push the next test's dock rows one slot down.
      await sh(endpoint, 'pkill -x gedit');
    },
    180_000,
  );

  // Upstream's thunderbird run: Firefox was open on the page Thunderbird had opened in the default
  // browser, so the dock shows Firefox's running icon after the favourites and the Trash one slot
  // lower. Here the desktop's web browser for links is Firefox too (the injection's local setup
  // opens that page with xdg-open once Thunderbird's window is up).
  const firefoxOpen = observations.find(o =>
    o.rows.some(row => row.x === 0 && row.tag === 'push-button' && row.name === 'Firefox'),
  );
  it.skipIf(firefoxOpen === undefined)(
    "opens a link in Firefox: its dock icon, the Trash and its toolbar at upstream's positions",
    async () => {
      const upstream = firefoxOpen!.rows;
      const address = upstream.find(row => row.tag === 'entry' && /^www\./.test(row.text ?? ''));
      expect(address, "upstream's Firefox address").toBeDefined();
      const opened = await sh(
        endpoint,
        `setsid xdg-open 'https://${address!.text}' >/dev/null 2>&1 &`,
      );
      expect(opened.returncode).toBe(0);
      const dock = (rows: Row[], name: string) =>
        rows.find(row => row.x === 0 && row.tag === 'push-button' && row.name === name);
      const toolbar = ['Firefox View', 'Open a new tab (Ctrl+T)', 'List all tabs', 'Reload'];
      try {
        const ours = await waitFor(
          async () => {
            const rows = await tree(endpoint);
            return dock(rows, 'Firefox') && rows.some(row => row.name === 'Reload') && rows;
          },
          90_000,
          "Firefox's window and its dock icon",
        );
        const expected = [dock(upstream, 'Firefox')!, dock(upstream, 'Trash')!].concat(
          upstream.filter(row => toolbar.includes(row.name)),
        );
        expect(expected).toHaveLength(2 + toolbar.length);
        const misplaced = expected
          .filter(
            row =>
              !ours.some(
                mine =>
                  mine.tag === row.tag &&
                  mine.name === row.name &&
                  near(mine.x, row.x) &&
                  near(mine.y, row.y),
              ),
          )
          .map(row => {
            const same = ours.filter(mine => mine.tag === row.tag && mine.name === row.name);
            return `${key(row)} — ours: ${same.map(key).join(' | ') || 'none'}`;
          });
        expect(misplaced).toEqual([]);
      } finally {
        await sh(endpoint, 'wmctrl -c Firefox');
      }
    },
    180_000,
  );
});

describe.skipIf(skipReason !== undefined)('the openbox fallback', () => {
  it('a GNOME Shell that fails at start: the desktop runs openbox and records why', async () => {
    const provider = createLocalProvider({
      shell: 'gnome-shell',
      startTimeoutMs: 300_000,
      env: { OSHARM_GNOME_SHELL: '/bin/false' },
    });
    try {
      const endpoint = await provider.start();
      const shell = provider.desktopShell();
      expect(shell).toMatchObject({ shell: 'openbox', requested: 'gnome-shell' });
      expect(shell?.fallback).toMatch(/exited with status 1/);
      expect((await sh(endpoint, 'wmctrl -m')).output).toMatch(/Openbox/);
      expect((await tree(endpoint)).some(row => row.name === 'Show Applications')).toBe(false);
    } finally {
      await provider.stop();
    }
  }, 320_000);

  it('openbox chosen (shell: openbox) is recorded as chosen; a bad setting fails at once', async () => {
    expect(() => createLocalProvider({ shell: 'metacity' as 'openbox' })).toThrow(
      /shell must be gnome-shell or openbox, not "metacity"/,
    );
    const provider = createLocalProvider({ shell: 'openbox', startTimeoutMs: 300_000 });
    try {
      await provider.start();
      expect(provider.desktopShell()).toEqual({
        shell: 'openbox',
        requested: 'openbox',
        fallback: null,
        startMs: expect.any(Number),
      });
    } finally {
      await provider.stop();
    }
  }, 320_000);
});
