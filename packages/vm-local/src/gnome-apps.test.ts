// GNOME Settings (Users) and GNOME Disks on the real sandboxed desktop (docs "GNOME Settings and
// Disks"): the sandbox's own system bus, accounts-daemon as root of the nested user namespace, the
// polkit and UDisks2 stand-ins. Driven as the agent would: buttons through the accessibility tree,
// the password typed into the dialog.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GuestEndpoint } from '@osharm/desktop-env';
import { guestRequest } from '@osharm/desktop-guest';
import { sh, skipReason } from './__fixtures__/local-desktop-fixture';
import { createLocalProvider } from './local-provider';
import { checkLocalDesktopRequirements } from './local-requirements';

const missing = checkLocalDesktopRequirements({ apps: ['settings', 'disks'] }).missing.filter(
  entry => /settings|disks/.test(entry.neededFor),
);
const gnomeSkip =
  skipReason ??
  (missing.length > 0
    ? `SKIPPED: GNOME Settings / Disks are not installed (${missing.map(entry => entry.debianPackage).join(' ')})`
    : undefined);
if (gnomeSkip && !skipReason) console.warn(gnomeSkip);

/** Acts on the accessibility tree: `click APP TEXT` (a showing button whose name or tooltip is TEXT). */
const atspi = (args: string) => `/usr/bin/python3 - ${args} <<'PY'
import sys, time, pyatspi
verb, app_name, text = sys.argv[1], sys.argv[2], sys.argv[3]
def find(node, state):
    # GTK 4.8 marks only windows as showing: its widgets are matched by being visible.
    try:
        name, description = node.name or '', node.description or ''
        if node.getState().contains(state) and (text in (name, description) or name.startswith(text + '\\n')):
            # (a GTK 4 button's name can be empty, its label child has the text)
            if verb == 'click' and node.getRoleName() == 'label' and node.parent.getRoleName() == 'push button':
                return node.parent
            if verb != 'click' or node.getRoleName() in ('push button', 'toggle button'):
                return node
    except Exception:
        return None
    for child in node:
        found = find(child, state)
        if found is not None:
            return found
    return None
for _ in range(40):
    for app in pyatspi.Registry.getDesktop(0):
        if app is not None and app.name == app_name:
            node = find(app, pyatspi.STATE_SHOWING) or find(app, pyatspi.STATE_VISIBLE)
            if node is not None:
                if verb == 'click':
                    node.queryAction().doAction(0)
                else:
                    box = node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
                    print(box.x, box.y, box.width, box.height)
                sys.exit(0)
    time.sleep(0.5)
print('not found:', text)
sys.exit(1)
PY`;

/** Waits for a window whose title is TITLE, then types LINE and Return into it. */
const typeInto = (title: string, line: string) =>
  `w=$(xdotool search --sync --onlyvisible --name '^${title}$' | head -1) && xdotool windowactivate --sync "$w" && sleep 0.5 && xdotool type --delay 20 '${line}' && xdotool key Return`;

const waitWindow = (title: string) =>
  `for i in $(seq 60); do wmctrl -l | grep -q ' ${title}$' && exit 0; sleep 0.5; done; wmctrl -l; exit 1`;

/** The first N numbers of a line of output (a test failure when there are fewer). */
function numbers(text: string, count: number): number[] {
  const values = text
    .trim()
    .split(/[\s=XY]+/)
    .filter(Boolean)
    .map(Number);
  expect(values.length, text).toBeGreaterThanOrEqual(count);
  expect(values.every(Number.isFinite), text).toBe(true);
  return values;
}

/**
 * Clicks the middle of an accessible's box. GTK 4 reports boxes relative to the window (give its
 * title), GTK 3 relative to the screen.
 */
async function clickBox(endpoint: GuestEndpoint, app: string, text: string, gtk4Window?: string) {
  const box = await sh(endpoint, atspi(`extents ${app} ${text.replace(/ /g, '\\ ')}`));
  expect(box.returncode, box.output).toBe(0);
  const [x = 0, y = 0, w = 0, h = 0] = numbers(box.output, 4);
  let [ox = 0, oy = 0] = [0, 0];
  if (gtk4Window) {
    const origin = await sh(
      endpoint,
      `xdotool search --onlyvisible --name '^${gtk4Window}$' getwindowgeometry --shell | grep -E '^[XY]='`,
    );
    [ox = 0, oy = 0] = numbers(origin.output, 2);
  }
  await sh(endpoint, `xdotool mousemove ${ox + x + w / 2} ${oy + y + h / 2} click 1; sleep 1`);
}

/**
 * The accessibility tree, once it holds TEXT (or after 30 s, as it is). `full`: every node; GTK 4.8
 * marks only a window as showing, so the agent's default (showing-only) tree has Settings' frame
 * and nothing inside it (documented).
 */
async function tree(endpoint: GuestEndpoint, text: string, full = false): Promise<string> {
  let at = '';
  for (let attempt = 0; attempt < 30; attempt += 1) {
    const path = full ? '/accessibility?mode=full' : '/accessibility';
    const response = await guestRequest(endpoint, path, { timeoutMs: 60_000 });
    at = (JSON.parse(response.body.toString('utf8')) as { AT: string }).AT;
    if (at.includes(text)) break;
    await sh(endpoint, 'sleep 1');
  }
  return at;
}

describe.skipIf(gnomeSkip !== undefined)('GNOME Settings and Disks on the local desktop', () => {
  const provider = createLocalProvider();
  let endpoint: GuestEndpoint;

  beforeAll(async () => {
    endpoint = await provider.start();
  });

  afterAll(async () => {
    await provider.stop();
  });

  it('Settings opens on Users; unlocked with `password`; a user added lands in root’s /etc/passwd only', async () => {
    await sh(endpoint, '(gnome-control-center users >/dev/null 2>&1 &)');
    expect((await sh(endpoint, waitWindow('Settings'))).returncode).toBe(0);
    const panel = await tree(endpoint, 'Unlock to Add Users and Change Settings', true);
    expect(panel).toContain('Unlock to Add Users and Change Settings');
    expect(panel).toMatch(/label name="Users"/);

    // Unlock: the polkit dialog; a wrong password first, then upstream's.
    expect((await sh(endpoint, atspi('click gnome-control-center Unlock…'))).returncode).toBe(0);
    expect((await sh(endpoint, typeInto('Authentication Required', 'wrong'))).returncode).toBe(0);
    expect((await sh(endpoint, typeInto('Authentication Required', 'password'))).returncode).toBe(
      0,
    );
    await sh(endpoint, 'sleep 1');
    await clickBox(endpoint, 'gnome-control-center', 'Add User…', 'Settings');
    expect((await sh(endpoint, waitWindow('Add User'))).returncode).toBe(0);
    await sh(endpoint, 'sleep 1; xdotool type --delay 20 "John Doe"; sleep 1');
    expect((await sh(endpoint, atspi('click gnome-control-center Add'))).returncode).toBe(0);

    const added = await sh(
      endpoint,
      'for i in $(seq 40); do echo password | sudo -S getent passwd johndoe 2>/dev/null && break; sleep 0.5; done; getent passwd johndoe || echo "NOT-IN-USER-VIEW"',
    );
    expect(added.output).toMatch(/^johndoe:x:1001:1001:John Doe,,,:\/home\/johndoe:\/bin\/bash$/m);
    expect(added.output).toContain('NOT-IN-USER-VIEW');
    expect(readFileSync('/etc/passwd', 'utf8')).not.toMatch(/^johndoe:/m);
    // The panel lists the new account, as upstream's does.
    expect(await tree(endpoint, 'John Doe', true)).toContain('John Doe');

    const calls = await provider.systemCalls();
    expect(calls.map(call => [call.service, call.call, call.outcome])).toEqual(
      expect.arrayContaining([
        ['polkit', 'password', 'wrong-password'],
        ['polkit', 'org.gnome.controlcenter.user-accounts.administration', 'granted'],
        ['accounts', 'adduser', 'ran'],
      ]),
    );
    expect(calls.find(call => call.call === 'adduser')?.args).toContain('johndoe');
    await sh(endpoint, 'wmctrl -c Settings');
  });

  it('Disks shows the FAT partition 2; deleting it asks for the password and is recorded', async () => {
    await sh(endpoint, '(gnome-disks >/dev/null 2>&1 &)');
    expect((await sh(endpoint, waitWindow('Disks'))).returncode).toBe(0);
    // Select the disk, then partition 2 in the volume grid (click its first volume, one to the right).
    await clickBox(endpoint, 'gnome-disks', '25 GB Hard Disk');
    const grid = await sh(endpoint, atspi('extents gnome-disks Partition\\ 1'));
    const [gx = 0, gy = 0, , gh = 0] = numbers(grid.output, 4);
    await sh(
      endpoint,
      `xdotool mousemove ${gx + 5} ${gy + gh / 2} click 1; sleep 0.5; xdotool key Right; sleep 1`,
    );
    const shown = await tree(endpoint, 'Partition 2&#10;537 MB FAT');
    expect(shown).toContain('Partition 2&#10;537 MB FAT');
    expect(shown).toContain('FAT (32-bit version) — Mounted at /boot/efi');
    expect(shown).toContain('EFI System');

    expect(
      (await sh(endpoint, atspi('click gnome-disks Delete\\ selected\\ partition'))).returncode,
    ).toBe(0);
    expect((await sh(endpoint, atspi('click gnome-disks Delete'))).returncode).toBe(0);
    // Unmount /boot/efi, then delete: each action asks once (polkit keeps each for 5 minutes).
    expect((await sh(endpoint, typeInto('Authentication Required', 'password'))).returncode).toBe(
      0,
    );
    await sh(endpoint, 'sleep 2');
    expect((await sh(endpoint, typeInto('Authentication Required', 'password'))).returncode).toBe(
      0,
    );
    const free = await sh(
      endpoint,
      `for i in $(seq 20); do gdbus call --system --dest org.freedesktop.UDisks2 --object-path /org/freedesktop/UDisks2/block_devices/sda --method org.freedesktop.DBus.Properties.Get org.freedesktop.UDisks2.PartitionTable Partitions | grep -q sda2 || { echo GONE; exit 0; }; sleep 0.5; done`,
    );
    expect(free.output).toContain('GONE');

    // The other changes work on the model too (polkit keeps the authorization: no dialog now).
    const udisks = (path: string, method: string, args: string) =>
      `gdbus call --system --dest org.freedesktop.UDisks2 --object-path /org/freedesktop/UDisks2/block_devices/${path} --method org.freedesktop.UDisks2.${method} ${args}`;
    const changed = await sh(
      endpoint,
      [
        udisks('sda', 'PartitionTable.CreatePartition', "2097152 0 '' '' {}"),
        udisks('sda2', 'Block.Format', `vfat "{'label': <'DATA'>}"`),
        udisks('sda3', 'Partition.Resize', '10000000000 {}'),
        `${udisks('sda3', 'Filesystem.Unmount', '{}')} 2>&1`,
        udisks('sda2', 'Block.Rescan', '{}') + ' >/dev/null',
        `gdbus call --system --dest org.freedesktop.UDisks2 --object-path /org/freedesktop/UDisks2 --method org.freedesktop.DBus.ObjectManager.GetManagedObjects | grep -o "'IdLabel': <'DATA'>\\|'Size': <uint64 10000000000>" | sort -u`,
      ].join('; '),
    );
    expect(changed.output).toContain("objectpath '/org/freedesktop/UDisks2/block_devices/sda2'");
    expect(changed.output).toContain('Error unmounting /dev/sda3: target is busy');
    expect(changed.output).toContain("'IdLabel': <'DATA'>");
    expect(changed.output).toContain("'Size': <uint64 10000000000>");

    const calls = (await provider.systemCalls()).filter(call => call.service !== 'accounts');
    expect(calls.map(call => [call.service, call.call, call.args[0], call.outcome])).toEqual(
      expect.arrayContaining([
        [
          'polkit',
          'org.freedesktop.udisks2.filesystem-unmount-others',
          'system-bus-name',
          'granted',
        ],
        ['udisks', 'Filesystem.Unmount', '/dev/sda2', 'done'],
        ['polkit', 'org.freedesktop.udisks2.modify-device-system', 'system-bus-name', 'granted'],
        ['udisks', 'Partition.Delete', '/dev/sda2', 'done'],
        ['udisks', 'PartitionTable.CreatePartition', '/dev/sda', 'done'],
        ['udisks', 'Block.Format', '/dev/sda2', 'done'],
        ['udisks', 'Partition.Resize', '/dev/sda3', 'done'],
        [
          'udisks',
          'Filesystem.Unmount',
          '/dev/sda3',
          'failed: Error unmounting /dev/sda3: target is busy',
        ],
      ]),
    );
  });
});
