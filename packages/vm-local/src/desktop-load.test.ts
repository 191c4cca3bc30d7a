import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDesktopEnv,
  createGuestClient,
  waitForWindow,
  type GuestEndpoint,
} from '@osharm/desktop-env';
import type { TaskConfig } from '@osharm/task-schema';
import { convertInside, post, sh, skipReason, waitFor } from './__fixtures__/local-desktop-fixture';
import { guestRequest } from '@osharm/desktop-guest';
import { createLocalProvider } from './local-provider';

/** Whether the host's Python (xml.dom.minidom, as strict as lxml on well-formedness) parses it. */
function wellFormed(xml: string): boolean {
  try {
    execFileSync(
      'python3',
      ['-c', 'import sys, xml.dom.minidom; xml.dom.minidom.parseString(sys.stdin.buffer.read())'],
      {
        input: xml,
        stdio: ['pipe', 'ignore', 'ignore'],
      },
    );
    return true;
  } catch {
    return false;
  }
}

/** A task whose setup opens gedit on a file (a window with an accessibility tree to walk). */
const geditTask: TaskConfig = {
  id: '_load_gedit',
  snapshot: 'os',
  instruction: 'Nothing to do.',
  config: [
    { type: 'execute', parameters: { command: ['sh', '-c', 'echo hello > /home/user/notes.txt'] } },
    { type: 'launch', parameters: { command: ['gedit', '/home/user/notes.txt'] } },
  ],
  evaluator: { func: 'infeasible' },
};

describe.skipIf(skipReason !== undefined)('the desktop under load: readiness and cut walks', () => {
  // A long walk budget: the Calc check below is about content, not speed (the machine is shared).
  const provider = createLocalProvider({ accessibilityDeadlineMs: 60_000 });
  let endpoint: GuestEndpoint;

  beforeAll(async () => {
    endpoint = await provider.start();
    await post(endpoint, '/setup/launch', { command: ['gedit', '/home/user/a.txt'] });
    await waitFor(
      async () => (await sh(endpoint, 'wmctrl -l')).output.includes('a.txt'),
      30_000,
      'the gedit window',
    );
  });
  afterAll(async () => {
    await provider.stop();
  });

  it('/accessibility says when the walk was cut at its deadline (and only then)', async () => {
    const whole = await guestRequest(endpoint, '/accessibility', { timeoutMs: 60_000 });
    expect(whole.status).toBe(200);
    expect(whole.headers['x-osharm-truncated']).toBeUndefined();
    expect(Number(whole.headers['x-osharm-walk-ms'])).toBeGreaterThanOrEqual(0);
    const cut = await guestRequest(endpoint, '/accessibility?deadline_ms=1', { timeoutMs: 60_000 });
    expect(cut.status).toBe(200);
    expect(cut.headers['x-osharm-truncated']).toBe('deadline');
    const tree = (response: typeof cut) =>
      (JSON.parse(response.body.toString()) as { AT: string }).AT;
    // The cut tree keeps what was collected, well formed, and is smaller than the whole one.
    expect(wellFormed(tree(cut))).toBe(true);
    expect(tree(cut).length).toBeLessThan(tree(whole).length);
  });

  it('a Calc sheet: every filled cell on screen is in the tree, with its text', async () => {
    const rows = Array.from({ length: 12 }, (_, row) =>
      Array.from({ length: 6 }, (_, column) =>
        column % 2 ? `v${row}x${column}` : row * 10 + column,
      ),
    );
    await sh(
      endpoint,
      `printf '${rows.map(row => row.join(',')).join('\\n')}\\n' > /tmp/sheet.csv`,
    );
    await convertInside(endpoint, '/tmp/sheet.csv', 'xlsx');
    await sh(endpoint, 'cp /tmp/sheet.xlsx /home/user/sheet.xlsx');
    const opened = await guestRequest(endpoint, '/setup/open_file', {
      method: 'POST',
      json: { path: '/home/user/sheet.xlsx' },
      timeoutMs: 120_000,
    });
    expect(opened.status).toBe(200);
    const calcTree = await waitFor(
      async () => {
        const response = await guestRequest(endpoint, '/accessibility', { timeoutMs: 60_000 });
        const xml = (JSON.parse(response.body.toString()) as { AT: string }).AT;
        return xml.includes('>v11x5<') ? { xml, response } : undefined;
      },
      60_000,
      'the sheet in the tree',
    );
    expect(calcTree.response.headers['x-osharm-truncated']).toBeUndefined();
    expect(wellFormed(calcTree.xml)).toBe(true);
    const cellTexts = [...calcTree.xml.matchAll(/<table-cell [^>]*>([^<]*)<\/table-cell>/g)].map(
      match => match[1],
    );
    for (const value of rows.flat()) expect(cellTexts).toContain(String(value));
    await post(endpoint, '/setup/close_window', { window_name: 'sheet.xlsx' });
  });

  it('/setup/activate_window waits for a window that appears late', async () => {
    await post(endpoint, '/setup/launch', {
      command: ['sh', '-c', 'sleep 2; exec gedit --new-window /home/user/late.txt'],
    });
    const activated = await guestRequest(endpoint, '/setup/activate_window', {
      method: 'POST',
      json: { window_name: 'late.txt' },
      timeoutMs: 30_000,
    });
    expect(activated.status).toBe(200);
    expect(activated.body.toString()).toBe('Window activated successfully');
    expect(Number(activated.headers['x-osharm-waited-ms'])).toBeGreaterThan(0);
    const missing = await guestRequest(endpoint, '/setup/activate_window', {
      method: 'POST',
      json: { window_name: 'no-such-window', timeout: 0.5 },
      timeoutMs: 30_000,
    });
    expect(missing.status).toBe(404);
    // the message lists the windows there are, by title: the one the test opened among them
    expect(JSON.parse(missing.body.toString())).toEqual({
      status: 'error',
      message: expect.stringMatching(
        /^No window matches "no-such-window" after waiting 1 s \(windows: .*"late\.txt[^"]*".*\)$/,
      ),
    });
  });

  it('waitForWindow (any guest, through /execute) finds a window or reports the deadline', async () => {
    const client = createGuestClient(endpoint);
    try {
      const found = await waitForWindow(client, 'A.TXT', { deadlineMs: 5_000 });
      expect(found).toMatchObject({ windowName: 'A.TXT', found: true, deadlineMs: 5_000 });
      const byClass = await waitForWindow(client, 'gedit', { byClass: true, deadlineMs: 5_000 });
      expect(byClass.found).toBe(true);
      const strict = await waitForWindow(client, 'a.txt', { strict: true, deadlineMs: 300 });
      expect(strict.found).toBe(false); // the title is longer than "a.txt"
      const missing = await waitForWindow(client, 'no-such-window', {
        deadlineMs: 600,
        intervalMs: 100,
      });
      expect(missing.found).toBe(false);
      expect(missing.polls).toBeGreaterThan(1);
      expect(missing.waitedMs).toBeGreaterThanOrEqual(600);
    } finally {
      await client.close();
    }
  });
});

describe.skipIf(skipReason !== undefined)('observation quality through DesktopEnv', () => {
  it('a walk cut by a tiny deadline makes the observation "truncated"', async () => {
    const env = createDesktopEnv({
      provider: createLocalProvider({ accessibilityDeadlineMs: 1 }),
      cacheRoot: mkdtempSync(join(tmpdir(), 'osharm-load-cache-')),
    });
    try {
      await env.reset({ task: geditTask });
      await waitFor(
        async () => (await env.guest.execute(['wmctrl', '-l'])).output.includes('notes.txt'),
        30_000,
        'the gedit window',
      );
      const observation = await env.observe();
      expect(observation.quality.a11yTree).toBe('truncated');
      expect(observation.quality.late).toBe(false);
      expect(observation.accessibilityTree?.startsWith('<desktop-frame')).toBe(true);
    } finally {
      await env.close();
    }
  });
});
