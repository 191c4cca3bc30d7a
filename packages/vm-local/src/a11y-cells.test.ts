// The accessibility tree read in pipelined batches (guest/a11y_tree.py and a11y_cells.py, issue 16)
// against the walker's one-call-at-a-time libatspi path: the same XML, byte for byte, with a Calc
// sheet of varied content open (formulas, formats, a merged cell, a note, borders and a shadow, a
// drop-down list, Unicode, markup characters, two-line text, empty cells) beside a gedit window (GTK
// widgets with actions, text, values), in both walk modes; and a cut walk that stays well formed.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GuestEndpoint } from '@osharm/desktop-env';
import {
  convertInside,
  multipart,
  sh,
  skipReason,
  waitFor,
} from './__fixtures__/local-desktop-fixture';
import { guestRequest } from '@osharm/desktop-guest';
import { createLocalProvider } from './local-provider';

interface Walk {
  xml: string;
  nodes: number;
  truncated: boolean;
  /** Applications read in batches (the rest went through libatspi). */
  batched: number;
}

/** One walk by the guest's desktop_helper.py, run inside the desktop with the given cell reader. */
async function walk(
  endpoint: GuestEndpoint,
  cellReader: 'wire' | 'atspi',
  deadlineMs = 60_000,
  mode: 'showing' | 'full' = 'showing',
  repeat = false,
): Promise<Walk> {
  const result = await sh(
    endpoint,
    `cd /opt/osharm/desktop-guest/guest && /usr/bin/python3 -c "
import json, sys, desktop_helper as d
request = {'mode': '${mode}', 'deadline_ms': ${deadlineMs}, 'cell_reader': '${cellReader}'}
r = d.accessibility(request)
if ${repeat ? 'True' : 'False'}:
    r = d.accessibility(request)  # a second walk in the same process, as the guest's long-lived helper does
sys.stdout.write(json.dumps(r))
"`,
  );
  if (result.returncode !== 0) throw new Error(`walk failed: ${result.error}`);
  return JSON.parse(result.output) as Walk;
}

function wellFormed(xml: string): boolean {
  try {
    execFileSync(
      'python3',
      ['-c', 'import sys, xml.dom.minidom; xml.dom.minidom.parseString(sys.stdin.buffer.read())'],
      { input: xml, stdio: ['pipe', 'ignore', 'ignore'] },
    );
    return true;
  } catch {
    return false;
  }
}

/** The table-cell elements of a tree, by name. */
function cells(xml: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of xml.matchAll(
    /<table-cell name="([A-Z]+[0-9]+)"[^>]*?(?:\/>|>[^<]*<\/table-cell>)/g,
  ))
    found.set(match[1]!, match[0]);
  return found;
}

describe.skipIf(skipReason !== undefined)('the accessibility tree, read in batches', () => {
  const provider = createLocalProvider({ accessibilityDeadlineMs: 60_000 });
  let endpoint: GuestEndpoint;

  beforeAll(async () => {
    endpoint = await provider.start();
    await sh(endpoint, 'echo "some text" > /home/user/notes.txt');
    await guestRequest(endpoint, '/setup/launch', {
      method: 'POST',
      json: { command: ['gedit', '/home/user/notes.txt'] },
    });
    const fods = readFileSync(new URL('./__fixtures__/varied-sheet.fods', import.meta.url));
    const uploaded = await guestRequest(endpoint, '/setup/upload', {
      method: 'POST',
      body: multipart(
        { file_path: '/tmp/varied.fods' },
        { field: 'file_data', name: 'varied.fods', data: fods },
      ),
    });
    expect(uploaded.status).toBe(200);
    await convertInside(endpoint, '/tmp/varied.fods', 'ods');
    await sh(endpoint, 'cp /tmp/varied.ods /home/user/varied.ods');
    const opened = await guestRequest(endpoint, '/setup/open_file', {
      method: 'POST',
      json: { path: '/home/user/varied.ods' },
      timeoutMs: 120_000,
    });
    expect(opened.status).toBe(200);
    await waitFor(
      async () => {
        const { xml } = await walk(endpoint, 'atspi');
        return xml.includes('>merged across two columns<') && xml.includes('some text');
      },
      60_000,
      'the sheet and gedit in the tree',
    );
  });
  afterAll(async () => {
    await provider.stop();
  });

  it('gives the XML of the one-call-at-a-time walk, byte for byte', async () => {
    const atspi = await walk(endpoint, 'atspi');
    const wire = await walk(endpoint, 'wire', 60_000, 'showing', true);
    // soffice was read in batches (not silently by the fallback), in the second walk too; gedit,
    // like every application but LibreOffice, through libatspi (a11y_tree.py WireTree.APPS).
    expect(atspi.batched).toBe(0);
    expect(wire.batched).toBe(1);
    expect(atspi.truncated).toBe(false);
    expect(wire.truncated).toBe(false);
    expect(wire.nodes).toBe(atspi.nodes);
    expect(wire.xml).toBe(atspi.xml);
    expect(wellFormed(wire.xml)).toBe(true);

    // The content under comparison is there (not two equal empty trees).
    const byName = cells(wire.xml);
    expect(byName.size).toBeGreaterThan(200); // the whole visible area, empty cells included
    expect(byName.get('A1')).toContain('>Item &lt;a&gt; &amp; "b"</table-cell>');
    expect(byName.get('C1')).toContain('attr:Formula="B1*2"');
    expect(byName.get('C1')).toContain('val:value="6.5"');
    expect(byName.get('D1')).toContain('>12.5%</table-cell>');
    expect(byName.get('A2')).toContain('>merged across two columns</table-cell>');
    expect(byName.get('C2')).toMatch(/attr:Shadow="[^"]+"/);
    expect(byName.get('C2')).toMatch(/attr:TopBorder="[^"]+"/);
    expect(byName.get('D2')).toContain('attr:isdropdown="true"');
    expect(byName.get('E2')).toContain('>Ünïcödé ✓ 漢字</table-cell>');
    expect(byName.get('E3')).toContain('>two\nlines</table-cell>');
    expect(byName.get('D3')).toMatch(/^<table-cell name="D3"[^>]*st:showing="true"[^>]*\/>$/);
    expect(wire.xml).toContain('<application name="gedit"');
    expect(wire.xml).toMatch(/act:[a-z]+_desc=/);
  });

  it('the same in the full mode (nodes that are not showing too)', async () => {
    const atspi = await walk(endpoint, 'atspi', 60_000, 'full');
    const wire = await walk(endpoint, 'wire', 60_000, 'full');
    expect(atspi.truncated).toBe(false);
    expect(wire.nodes).toBeGreaterThan((await walk(endpoint, 'wire')).nodes);
    expect(wire.xml).toBe(atspi.xml);
  });

  it('a walk cut by its deadline keeps a well-formed partial tree and says so', async () => {
    const whole = await walk(endpoint, 'wire');
    // Cut somewhere inside the walk: a budget of a fifth of what the whole walk took.
    const started = Date.now();
    await walk(endpoint, 'wire');
    const budget = Math.max(1, Math.floor((Date.now() - started) / 5));
    const cut = await walk(endpoint, 'wire', budget);
    expect(cut.truncated).toBe(true);
    expect(wellFormed(cut.xml)).toBe(true);
    expect(cut.nodes).toBeLessThan(whole.nodes);
  });
});
