import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { toPythonJson } from './python-json';

/**
 * The expected text comes from Python itself: `json.dumps` of the value read back from JSON. The
 * value is sent as bytes (`sys.stdin.buffer`) so the result does not depend on the locale.
 */
function pythonDumps(value: unknown, indent?: number): string {
  const script = [
    'import json, sys',
    'value = json.loads(sys.stdin.buffer.read())',
    'indent = int(sys.argv[1]) if len(sys.argv) > 1 else None',
    'sys.stdout.write(json.dumps(value, indent=indent))',
  ].join('\n');
  const args = ['-c', script, ...(indent === undefined ? [] : [String(indent)])];
  return execFileSync('python3', args, { input: JSON.stringify(value), encoding: 'utf8' });
}

const VALUES: Record<string, unknown> = {
  'non-ASCII (é, U+2019, emoji)': {
    name: 'café',
    quote: 'the user\u2019s files',
    emoji: 'done 😀👍🏽',
    cjk: '日本語',
  },
  'control characters and escapes': {
    text: 'tab\there\nnew line\r\u0000\u0001\u001f\u007f\b\f "quoted" back\\slash /slash',
    separators: '\u2028\u2029',
  },
  'non-ASCII keys': { clé: 1, 'emoji 😀': [true, false, null] },
  'nested objects and arrays': {
    params: { model: 'o4-mini', max_tokens: 1500, top_p: 0.9, nested: { a: [1, [2, [3, {}]]] } },
    steps: [{ actions: ['pyautogui.click(10, 20)', 'WAIT'], ok: true }, { actions: [] }],
  },
  'empty containers': { a: {}, b: [], c: [{}, []], d: '' },
  'top-level scalars and lists': [0, -1, 1.5, 'x', null, true, [], {}],
  numbers: [0.1, 0.25, -3.75, 123.456, 1e21, 1.5e-5, 1e-7, 0.0001, 2 ** 53, -0, 1e300],
  'lone surrogates': ['\ud83d', '\ude00x'],
};

describe('toPythonJson matches json.dumps byte for byte', () => {
  it('python3 is available', () => {
    expect(pythonDumps({ a: 'é' })).toBe('{"a": "\\u00e9"}');
  });

  describe.each(Object.entries(VALUES))('%s', (_name, value) => {
    it('default separators', () => {
      expect(toPythonJson(value)).toBe(pythonDumps(value));
    });
    it('indent=2', () => {
      expect(toPythonJson(value, { indent: 2 })).toBe(pythonDumps(value, 2));
    });
    it('indent=4', () => {
      expect(toPythonJson(value, { indent: 4 })).toBe(pythonDumps(value, 4));
    });
  });

  it('pins the layout', () => {
    expect(toPythonJson({ a: [1, { b: 'é' }], c: {} })).toBe(
      '{"a": [1, {"b": "\\u00e9"}], "c": {}}',
    );
    expect(toPythonJson({ a: [1, { b: 'é' }], c: {} }, { indent: 2 })).toMatchInlineSnapshot(`
      "{
        "a": [
          1,
          {
            "b": "\\u00e9"
          }
        ],
        "c": {}
      }"
    `);
  });

  it('writes NaN and Infinity as Python does', () => {
    expect(toPythonJson([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])).toBe(
      execFileSync(
        'python3',
        [
          '-c',
          'import json; print(json.dumps([float("nan"), float("inf"), -float("inf")]), end="")',
        ],
        { encoding: 'utf8' },
      ),
    );
  });

  it('drops undefined object values like JSON.stringify, writes undefined in a list as null, uses toJSON', () => {
    expect(toPythonJson({ a: undefined, b: 1, c: () => 1 })).toBe('{"b": 1}');
    expect(toPythonJson([undefined])).toBe('[null]');
    expect(toPythonJson({ when: new Date(0) })).toBe('{"when": "1970-01-01T00:00:00.000Z"}');
  });
});

describe('real upstream files', () => {
  const REAL = fileURLToPath(new URL('../../../../shared/real-trajectories/', import.meta.url));
  const examples = readdirSync(REAL, { withFileTypes: true })
    .filter(entry => entry.isDirectory())
    .map(entry => entry.name);

  it('re-serializes every traj.jsonl line to its original text (integers only)', () => {
    expect(examples).toHaveLength(4);
    let lines = 0;
    for (const example of examples) {
      const text = readFileSync(`${REAL}${example}/traj.jsonl`, 'utf8');
      expect(text.endsWith('\n')).toBe(true);
      for (const line of text.split('\n').filter(Boolean)) {
        expect(toPythonJson(JSON.parse(line))).toBe(line);
        lines += 1;
      }
    }
    expect(lines).toBe(13 + 2 + 5 + 14);
  });

  it('holds non-ASCII escapes in the original text, so the check is not trivial', () => {
    const text = readFileSync(`${REAL}chrome_email_send_prompt/better_log.json`, 'utf8');
    expect(text).toMatch(/\\u[0-9a-f]{4}/);
    expect(text).not.toMatch(/[^\x20-\x7e]/);
  });

  it('re-serializes better_log.json except the float 1.0 that JavaScript writes as 1', () => {
    for (const example of examples) {
      const text = readFileSync(`${REAL}${example}/better_log.json`, 'utf8');
      expect(text).toContain('"temperature": 1.0,');
      expect(toPythonJson(JSON.parse(text))).toBe(
        text.replace('"temperature": 1.0,', '"temperature": 1,'),
      );
    }
  });
});
