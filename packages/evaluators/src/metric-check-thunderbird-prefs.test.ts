import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { EvaluationError } from './evaluator-error';
import {
  checkThunderbirdPrefs,
  checkThunderbirdPrefsMetric,
  parsePrefsLines,
} from './metric-check-thunderbird-prefs';
import { matchValueToRule } from './metric-match-value-to-rule';

const PREFS = fileURLToPath(new URL('./__fixtures__/thunderbird-prefs.txt', import.meta.url));
const directory = mkdtempSync(join(tmpdir(), 'osharm-prefs-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const expectOne = (key: string, method: string, ref: unknown) =>
  checkThunderbirdPrefs(PREFS, { expect: { [key]: { method, ref } } });

describe('check_thunderbird_prefs on a realistic prefs.js', () => {
  it('regex methods: re, re.<FLAG> with Python flag names', async () => {
    expect(await expectOne('mail.identity.id1.useremail', 're', '@example\\.org$')).toBe(1);
    expect(await expectOne('mail.identity.id1.useremail', 're', '@example\\.com$')).toBe(0);
    expect(await expectOne('mail.server.server1.hostname', 're', 'IMAP\\.EXAMPLE')).toBe(0);
    expect(await expectOne('mail.server.server1.hostname', 're.IGNORECASE', 'IMAP\\.EXAMPLE')).toBe(
      1,
    );
    expect(
      await expectOne('mail.server.server1.hostname', 're.I', '^imap\\.example\\.(org|net)$'),
    ).toBe(1);
    // the signature's JSON "\n" is a real newline
    expect(await expectOne('mail.identity.id1.htmlSigText', 're', '^Operations')).toBe(0);
    expect(
      await expectOne('mail.identity.id1.htmlSigText', 're.M', '^Operations, "Example Org"$'),
    ).toBe(1);
    expect(await expectOne('mail.identity.id1.htmlSigText', 're', 'Moreau.Operations')).toBe(0);
    expect(await expectOne('mail.identity.id1.htmlSigText', 're.S', 'Moreau.Operations')).toBe(1);
    expect(
      await expectOne('mail.identity.id1.htmlSigText', 're.MULTILINE.IGNORECASE', '^operations'),
    ).toBe(1);
  });

  it('comparison methods: eq, ne, le, lt, ge, gt', async () => {
    expect(await expectOne('mail.server.server1.port', 'eq', 993)).toBe(1);
    expect(await expectOne('mail.server.server1.port', 'eq', '993')).toBe(0); // type-sensitive
    expect(await expectOne('mail.server.server1.login_at_startup', 'eq', true)).toBe(1);
    expect(await expectOne('mail.server.server1.login_at_startup', 'eq', 1)).toBe(1); // True == 1
    expect(await expectOne('mail.server.server1.port', 'ne', 143)).toBe(1);
    expect(await expectOne('mail.server.server1.check_time', 'le', 10)).toBe(1);
    expect(await expectOne('mail.server.server1.check_time', 'lt', 10)).toBe(0);
    expect(await expectOne('mail.server.server1.check_time', 'ge', 5)).toBe(1);
    expect(await expectOne('mail.server.server1.check_time', 'gt', 10)).toBe(0);
    expect(await expectOne('spellchecker.dictionary', 'lt', 'en-ZZ')).toBe(1);
  });

  it('approx:<threshold> converts the value with float()', async () => {
    // the pref is the string "1.25"; float("1.25") works
    expect(await expectOne('layout.css.devPixelsPerPx', 'approx:0.01', 1.255)).toBe(1);
    expect(await expectOne('layout.css.devPixelsPerPx', 'approx:0.001', 1.255)).toBe(0);
    expect(await expectOne('font.size.variable.x-western', 'approx:1', 16)).toBe(1);
    // not convertible → false, not an error
    expect(await expectOne('mail.identity.id1.fullName', 'approx:1', 0)).toBe(0);
  });

  it('range.<l><r>: e is <=, t is <', async () => {
    const key = 'font.size.variable.x-western'; // 17
    expect(await expectOne(key, 'range.te', [16, 17])).toBe(1); // 16 < 17 <= 17
    expect(await expectOne(key, 'range.tt', [16, 17])).toBe(0);
    expect(await expectOne(key, 'range.et', [17, 18])).toBe(1); // 17 <= 17 < 18
    expect(await expectOne(key, 'range.tt', [17, 18])).toBe(0);
    expect(await expectOne(key, 'range.ee', [17, 17])).toBe(1);
  });

  it('str_list_eq and str_set_eq split the value on commas', async () => {
    const key = 'mail.accountmanager.accounts'; // "account1,account2"
    expect(await expectOne(key, 'str_list_eq', ['account1', 'account2'])).toBe(1);
    expect(await expectOne(key, 'str_list_eq', ['account2', 'account1'])).toBe(0);
    expect(await expectOne(key, 'str_set_eq', ['account2', 'account1'])).toBe(1);
  });

  it('combines expect and unexpect; a missing expect key fails; the last line wins', async () => {
    const rule = {
      expect: {
        'mail.server.server1.port': { method: 'eq', ref: 993 },
        'mailnews.start_page.enabled': { method: 'eq', ref: false },
      },
      unexpect: {
        'mail.server.server1.hostname': { method: 're', ref: 'gmail' },
        'not.in.the.file': { method: 'eq', ref: 1 },
      },
    };
    expect(await checkThunderbirdPrefs(PREFS, rule)).toBe(1);
    expect(
      await checkThunderbirdPrefs(PREFS, {
        ...rule,
        unexpect: { 'mail.server.server1.hostname': { method: 're', ref: 'example' } },
      }),
    ).toBe(0);
    expect(
      await checkThunderbirdPrefs(PREFS, {
        expect: { ...rule.expect, 'mail.absent.pref': { method: 'eq', ref: 1 } },
      }),
    ).toBe(0);
    // the file sets check_all_imap_folders_for_new twice: true, then false
    expect(await expectOne('mail.check_all_imap_folders_for_new', 'eq', false)).toBe(1);
    expect(await expectOne('mail.check_all_imap_folders_for_new', 'eq', true)).toBe(0);
    // a key in both: only its expect rule counts (upstream's elif)
    expect(
      await checkThunderbirdPrefs(PREFS, {
        expect: { 'mail.server.server1.port': { method: 'eq', ref: 993 } },
        unexpect: { 'mail.server.server1.port': { method: 'eq', ref: 993 } },
      }),
    ).toBe(1);
    expect(await checkThunderbirdPrefs(PREFS, {})).toBe(1);
  });

  it('scores 0 without a file and raises on misconfigured rules', async () => {
    expect(
      await checkThunderbirdPrefsMetric.evaluate({ result: null, expected: {}, options: {} }),
    ).toBe(0);
    await expect(expectOne('mail.server.server1.port', 'between', 1)).rejects.toThrow(
      EvaluationError,
    );
    await expect(expectOne('mail.server.server1.port', 'approx', 1)).rejects.toThrow(
      /approx:<threshold>/,
    );
    await expect(expectOne('mail.server.server1.port', 'range.tx', [1, 2])).rejects.toThrow(
      /operator\.lx/,
    );
    await expect(expectOne('mail.server.server1.port', 're.NOPE', 'x')).rejects.toThrow(
      /unknown Python regex flag/,
    );
    // Python raises TypeError for these; the metric fails
    await expect(expectOne('mail.server.server1.port', 'lt', 'abc')).rejects.toThrow(/TypeError/);
    await expect(expectOne('mail.server.server1.port', 're', '99')).rejects.toThrow(
      /expected string/,
    );
  });

  it('parses lines with upstream’s pattern (universal newlines, escaped quotes, junk skipped)', async () => {
    const path = join(directory, 'prefs.js');
    writeFileSync(
      path,
      '// comment\r\nuser_pref("a.b", 1);\r\n  user_pref("quote\\"d", "x\\"y");  \r\nuser_pref("bad", 1)\nuser_pref("c", [1, 2]);\rpref("d", 2);\n',
    );
    const { readPythonTextFile } = await import('./evaluator-python-text-file');
    expect(parsePrefsLines(await readPythonTextFile(path))).toEqual([
      ['a.b', 1],
      ['quote\\"d', 'x"y'],
      ['c', [1, 2]],
    ]);
    writeFileSync(path, 'user_pref("x", \'single\');\n');
    await expect(checkThunderbirdPrefs(path, {})).rejects.toThrow(/json\.loads/);
  });
});

describe('matchValueToRule spreadsheet_range', () => {
  it('checks inner ⊆ value ⊆ outer on cell ranges', () => {
    const rule = { method: 'spreadsheet_range', ref: ['B2', 'A1:D5'] };
    expect(matchValueToRule('B2:C3', rule)).toBe(true);
    expect(matchValueToRule('$B$2:$C$3 D5', rule)).toBe(true);
    expect(matchValueToRule('C3:D4', rule)).toBe(false); // does not cover B2
    expect(matchValueToRule('A1:E9', rule)).toBe(false); // exceeds A1:D5
    expect(() => matchValueToRule('not a range', rule)).toThrow(/ValueError/);
  });
});
