import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJsonText, readJsonFile } from './json-file';
import { formatIssue } from './validation-issue';

const problem = (text: string): string => {
  const result = parseJsonText(text, 'f.json');
  if (result.ok) throw new Error(`parsed: ${JSON.stringify(text)}`);
  expect(result.issue.message).not.toMatch(/\n/);
  return formatIssue(result.issue);
};

describe('parseJsonText', () => {
  it('parses valid JSON, with or without a BOM', () => {
    expect(parseJsonText('{"a": [1, "x"]}', 'f')).toEqual({ ok: true, value: { a: [1, 'x'] } });
    expect(parseJsonText('\uFEFF{"a": 1}\r\n', 'f')).toEqual({ ok: true, value: { a: 1 } });
  });

  it('reports the exact line and column of each kind of syntax error, in one line', () => {
    const cases = [
      '',
      '  \n ',
      '{"a": os}',
      '{\r\n  "a": 1,\r\n  b: 2\r\n}',
      '{"a": 1,}',
      '[1, 2,]',
      '{"a" 1}',
      '{"a": 1 "b": 2}',
      '[1 2]',
      '{"a": tru}',
      '{"a": "x\ny"}',
      '{"a": "\u0001"}',
      '{"a": "\\x"}',
      '{"a": "\\u12G4"}',
      '"abc',
      '{"a": 01}',
      '{"a": -}',
      '{"a": 1.}',
      '{} x',
      '{"a": 1}}',
      '\uFEFF{"a": x}',
      '{"a": [1, {"b": [}]}',
      "{'a': 1}",
      '{"a": NaN}',
    ];
    expect(cases.map(problem)).toMatchInlineSnapshot(`
      [
        "f.json: line 1, column 1: not valid JSON: the text is empty, expected a JSON value",
        "f.json: line 1, column 1: not valid JSON: the text is empty, expected a JSON value",
        "f.json: line 1, column 7: not valid JSON: expected a property value, got 'os'",
        "f.json: line 3, column 3: not valid JSON: expected a property name in double quotes, got 'b'",
        "f.json: line 1, column 9: not valid JSON: expected a property name in double quotes, got '}'",
        "f.json: line 1, column 7: not valid JSON: expected an array element, got ']'",
        "f.json: line 1, column 6: not valid JSON: expected ':' after a property name, got '1'",
        "f.json: line 1, column 9: not valid JSON: expected ',' or '}' after a property value, got '"'",
        "f.json: line 1, column 4: not valid JSON: expected ',' or ']' after an array element, got '2'",
        "f.json: line 1, column 7: not valid JSON: expected a property value, got 'tru'",
        "f.json: line 1, column 9: not valid JSON: line break inside a string (missing closing '"'?)",
        "f.json: line 1, column 8: not valid JSON: unescaped control character U+0001 inside a string",
        "f.json: line 1, column 8: not valid JSON: bad escape sequence '\\x' in a string",
        "f.json: line 1, column 8: not valid JSON: bad escape sequence '\\u12G4' in a string",
        "f.json: line 1, column 1: not valid JSON: unterminated string (no closing '"')",
        "f.json: line 1, column 8: not valid JSON: expected ',' or '}' after a property value, got '1'",
        "f.json: line 1, column 7: not valid JSON: expected a property value, got '-'",
        "f.json: line 1, column 8: not valid JSON: expected ',' or '}' after a property value, got '.'",
        "f.json: line 1, column 4: not valid JSON: expected nothing after the JSON value, got 'x'",
        "f.json: line 1, column 9: not valid JSON: expected nothing after the JSON value, got '}'",
        "f.json: line 1, column 7: not valid JSON: expected a property value, got 'x'",
        "f.json: line 1, column 18: not valid JSON: expected an array element, got '}'",
        "f.json: line 1, column 2: not valid JSON: expected a property name in double quotes, got '''",
        "f.json: line 1, column 7: not valid JSON: expected a property value, got 'NaN'",
      ]
    `);
  });

  it('falls back to one line of the JSON.parse message when the input is too deep to scan', () => {
    const deep = `${'['.repeat(200000)}x${']'.repeat(200000)}`;
    const result = parseJsonText(deep, 'deep.json');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.issue.message).toMatch(/^not valid JSON: /);
      expect(result.issue.message).not.toMatch(/\n/);
      expect(result.issue.line).toBe(1);
      // JSON.parse's own wording (it varies between Node versions), without the quoted text.
      expect(result.issue.message).not.toMatch(/\[\[|is not valid JSON/);
    }
  });
});

describe('readJsonFile', () => {
  it('reports a missing file, a directory and bad JSON, naming the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'osharm-json-'));
    try {
      const bad = join(dir, 'bad.json');
      await writeFile(bad, '{\n  "id": "_x",\n  "snapshot": os\n}\n');
      const results = await Promise.all(
        [join(dir, 'missing.json'), dir, bad].map(async file => {
          const result = await readJsonFile(file);
          return result.ok ? 'ok' : formatIssue(result.issue).replaceAll(dir, '<tmp>');
        }),
      );
      expect(results).toMatchInlineSnapshot(`
        [
          "<tmp>/missing.json: $: file not found",
          "<tmp>: $: is a directory, expected a JSON file",
          "<tmp>/bad.json: line 3, column 15: not valid JSON: expected a property value, got 'os'",
        ]
      `);
      await writeFile(bad, '{"id": "_x"}');
      expect(await readJsonFile(bad)).toEqual({ ok: true, value: { id: '_x' } });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a FIFO and a device at once (was: a FIFO hung `osharm run`, /dev/zero read for seconds)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'osharm-json-'));
    try {
      const fifo = join(dir, 'test_all.json');
      execFileSync('mkfifo', [fifo]);
      const started = Date.now();
      for (const file of [fifo, '/dev/zero']) {
        const result = await readJsonFile(file);
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.issue.message).toMatch(/not a regular file/);
      }
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
