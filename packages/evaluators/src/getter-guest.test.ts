import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DirectoryGuest, ok } from './__fixtures__/directory-guest';
import { GuestRequestError } from '@osharm/desktop-env';
import { EvaluationError } from './evaluator-error';
import { getBookmarks, getProfileName } from './getter-chrome';
import {
  getAccessibilityTree,
  getListDirectory,
  getRule,
  getVmCommandError,
  getVmCommandLine,
  getVmTerminalOutput,
} from './getter-guest';
import { EVALUATION_GETTERS, resolveGetter } from './getter-registry';

const scratch = mkdtempSync(join(tmpdir(), 'osharm-getter-guest-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let counter = 0;
const newGuest = () => new DirectoryGuest(join(scratch, `g${counter++}`));
const contextOf = (guest: DirectoryGuest, extra: Record<string, unknown> = {}) => ({
  client: guest,
  cacheDir: join(scratch, 'cache'),
  ...extra,
});

describe('command getters', () => {
  it('vm_command_line returns output; vm_command_error returns error; shell is passed', async () => {
    const guest = newGuest();
    const seen: unknown[] = [];
    guest.script = (command, options) => {
      seen.push([command, options.shell]);
      return { status: 'success', output: 'rows=8 dups=0', error: 'warning: x', returncode: 1 };
    };
    const config = { type: 'vm_command_line', command: ['/bin/bash', '-c', 'printf x'] };
    expect(await getVmCommandLine(contextOf(guest), config)).toBe('rows=8 dups=0');
    expect(await getVmCommandError(contextOf(guest), { ...config, type: 'vm_command_error' })).toBe(
      'warning: x',
    );
    expect(
      await getVmCommandLine(contextOf(guest), {
        type: 'vm_command_line',
        command: 'ls ~',
        shell: true,
      }),
    ).toBe('rows=8 dups=0');
    expect(seen).toEqual([
      [['/bin/bash', '-c', 'printf x'], false],
      [['/bin/bash', '-c', 'printf x'], false],
      ['ls ~', true],
    ]);
  });

  it('gives null when /execute fails', async () => {
    const guest = newGuest();
    guest.script = () => {
      throw new GuestRequestError({ endpoint: '/execute', status: 500, message: 'failed' });
    };
    expect(
      await getVmCommandLine(contextOf(guest), { type: 'vm_command_line', command: 'x' }),
    ).toBeNull();
    expect(
      await getVmCommandError(contextOf(guest), { type: 'vm_command_error', command: 'x' }),
    ).toBeNull();
  });

  it('rethrows an abort instead of giving null', async () => {
    const guest = newGuest();
    const controller = new AbortController();
    controller.abort(new Error('stop now'));
    await expect(
      getVmCommandLine(contextOf(guest, { abortSignal: controller.signal }), {
        type: 'vm_command_line',
        command: 'x',
      }),
    ).rejects.toThrow('stop now');
  });

  it('rejects a missing command', async () => {
    await expect(
      getVmCommandLine(contextOf(newGuest()), { type: 'vm_command_line' }),
    ).rejects.toThrow(EvaluationError);
  });
});

describe('info getters', () => {
  it('terminal output, accessibility tree, directory listing, rule', async () => {
    const guest = newGuest();
    guest.terminal = '$ ls\nfile\n';
    guest.put('/home/user/logs/a.log', 'a');
    guest.put('/home/user/logs/old/b.log', 'b');
    expect(await getVmTerminalOutput(contextOf(guest), { type: 'vm_terminal_output' })).toBe(
      '$ ls\nfile\n',
    );
    expect(await getAccessibilityTree(contextOf(guest), { type: 'accessibility_tree' })).toBe(
      '<desktop-frame name="main"/>',
    );
    expect(
      await getListDirectory(contextOf(guest), { type: 'list_directory', path: '/home/user/logs' }),
    ).toEqual({
      type: 'directory',
      name: 'logs',
      children: [
        { type: 'file', name: 'a.log' },
        { type: 'directory', name: 'old', children: [{ type: 'file', name: 'b.log' }] },
      ],
    });
    expect(
      await getListDirectory(contextOf(guest), { type: 'list_directory', path: '/nope' }),
    ).toBeNull();
    const rules = { include: ['a'], exclude: [] };
    expect(await getRule(contextOf(guest), { type: 'rule', rules })).toBe(rules);
    await expect(getRule(contextOf(guest), { type: 'rule' })).rejects.toThrow(/rules/);
  });
});

describe('chrome getters', () => {
  const bookmarks = readFileSync(
    new URL('./__fixtures__/chrome-bookmarks.json', import.meta.url),
    'utf8',
  );

  it('bookmarks reads google-chrome’s profile first and returns roots', async () => {
    const guest = newGuest();
    guest.put('/home/user/.config/google-chrome/Default/Bookmarks', bookmarks);
    guest.put('/home/user/.config/chromium/Default/Bookmarks', '{"roots": {"other": {}}}');
    const roots = (await getBookmarks(contextOf(guest), { type: 'bookmarks' })) as Record<
      string,
      unknown
    >;
    expect(Object.keys(roots)).toEqual(['bookmark_bar', 'other', 'synced']);
  });

  it('bookmarks falls back to chromium, then to [] (upstream) when neither exists', async () => {
    const guest = newGuest();
    guest.put('/home/user/.config/chromium/Default/Bookmarks', bookmarks);
    expect(await getBookmarks(contextOf(guest), { type: 'bookmarks' })).toHaveProperty(
      'bookmark_bar',
    );
    expect(await getBookmarks(contextOf(newGuest()), { type: 'bookmarks' })).toEqual([]);
  });

  it('bookmarks honours chromeProfileDir and asks the guest for nothing else', async () => {
    const guest = newGuest();
    guest.put('/opt/profile/Bookmarks', '{"version": 1}');
    expect(
      await getBookmarks(contextOf(guest, { chromeProfileDir: '/opt/profile' }), {
        type: 'bookmarks',
      }),
    ).toEqual({});
    expect(guest.calls).toEqual([{ method: 'getFile', argument: '/opt/profile/Bookmarks' }]);
  });

  it('profile_name reads profile.name from Preferences, or null', async () => {
    const guest = newGuest();
    guest.put(
      '/home/user/.config/google-chrome/Default/Preferences',
      JSON.stringify({ profile: { name: 'Thomas' } }),
    );
    expect(await getProfileName(contextOf(guest), { type: 'profile_name' })).toBe('Thomas');
    expect(await getProfileName(contextOf(newGuest()), { type: 'profile_name' })).toBeNull();
    const broken = newGuest();
    broken.put('/home/user/.config/google-chrome/Default/Preferences', '{not json');
    expect(await getProfileName(contextOf(broken), { type: 'profile_name' })).toBeNull();
    const noHome = newGuest();
    noHome.script = () => ok('');
    expect(await getProfileName(contextOf(noHome), { type: 'profile_name' })).toBeNull();
  });
});

describe('resolveGetter', () => {
  it('knows the getters and names an unknown one', () => {
    expect(resolveGetter('vm_file')).toBe(EVALUATION_GETTERS['vm_file']);
    expect(() => resolveGetter('open_tabs_info')).toThrow(
      /unknown evaluator getter type "open_tabs_info"/,
    );
    try {
      resolveGetter('vlc_config');
    } catch (error) {
      expect(EvaluationError.isInstance(error) && error.subject).toBe('vlc_config');
    }
  });
});
