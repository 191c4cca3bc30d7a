import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openUpstream, UPSTREAM_LAYOUT } from './checkout';
import { upstreamProvenance } from './provenance';
import { pyFormat, pyStr } from './python-values';
import { createTestCheckout, type TestCheckout } from './test-checkout';
import { UpstreamError } from './upstream-error';

const TRICKY = fileURLToPath(new URL('./__fixtures__/tricky.py', import.meta.url));

/** Runs Python on `code` (with the fixture imported as `t`) and returns its JSON output. */
function python(code: string): unknown {
  const script = `import json, importlib.util, sys
spec = importlib.util.spec_from_file_location('t', ${JSON.stringify(TRICKY)})
t = importlib.util.module_from_spec(spec); spec.loader.exec_module(t)
${code}`;
  return JSON.parse(execFileSync('python3', ['-c', script], { encoding: 'utf8' }));
}

const checkouts: TestCheckout[] = [];
function checkout(options: Parameters<typeof createTestCheckout>[0] = {}) {
  const made = createTestCheckout(options);
  checkouts.push(made);
  return made;
}
afterEach(() => {
  for (const made of checkouts.splice(0)) made.remove();
});

function trickyFile() {
  const made = checkout({ replace: { 'tricky.py': execFileSync('cat', [TRICKY]) } });
  return openUpstream(made.dir).file('tricky.py');
}

describe('string literals, as Python reads them', () => {
  it('constants: escapes, raw, triple-quoted, .strip(), implicit concatenation, re-binding', () => {
    const file = trickyFile();
    const names = [
      'PLAIN',
      'RAW',
      'TRIPLE',
      'STRIPPED',
      'PARENS',
      'ESCAPES',
      'UNKNOWN_ESCAPE',
      'UNICODE',
      'ANNOTATED',
      'BRACES',
      'REBOUND',
      'CRLF_CONT',
    ];
    const expected = python(
      `print(json.dumps({n: getattr(t, n) for n in ${JSON.stringify(names)}}))`,
    );
    expect(Object.fromEntries(names.map(name => [name, file.constant(name).text]))).toEqual(
      expected,
    );
  });

  it('an f-string-returning function, filled as Python would for several arguments', () => {
    const greet = trickyFile().returnedString('greet');
    expect(greet.parameters).toEqual(['name', 'mood', 'count', 'label', 'flag', 'neg']);
    const cases: [string, string | null, number, string, boolean, number][] = [
      ['Ada', 'quiet', 1, 'a', true, 0],
      ['Bob', null, 2, 'b', false, -1],
    ];
    const expected = python(
      `print(json.dumps([t.greet(*c) for c in ${JSON.stringify(cases).replaceAll('null', 'None').replaceAll('true', 'True').replaceAll('false', 'False')}]))`,
    );
    expect(cases.map(args => greet.call(...args))).toEqual(expected);
  });

  it('parameter defaults, dict literals and methods of classes', () => {
    const file = trickyFile();
    expect(file.defaults('greet')).toEqual({
      mood: null,
      count: 3,
      label: 'x',
      flag: true,
      neg: -2,
    });
    const rows = file.dict('rows', { within: 'table' });
    expect(Object.fromEntries([...rows].map(([key, text]) => [key, text.fill()]))).toEqual(
      python('print(json.dumps(t.table()))'),
    );
    expect(rows.get('b')!.source.symbol).toBe('table.rows["b"]');
    expect(file.returnedString('Holder.method').call(null, 7)).toBe('x=7');
    expect(() => file.returnedString('computed').call(1)).toThrow(
      /tricky\.py: computed: line \d+: f-string field \{a \+ 1\} is not supported/,
    );
  });

  it('str.format and str() follow Python, refusing what they cannot do', () => {
    const template = '{} and {name} and {{literal}} {0!s}';
    expect(() => pyFormat(template, ['a'], { name: 'n' })).toThrow(/numbering/);
    const cases: [string, unknown[], Record<string, unknown>][] = [
      ['{} + {} = {}', [1, null, true], {}],
      ['{1}{0}{{}}', ['a', 'b'], {}],
      ['{name}: {value!s}', [], { name: 'x', value: false }],
    ];
    const expected = python(
      `cases = json.loads(${JSON.stringify(JSON.stringify(cases))})\nprint(json.dumps([f.format(*a, **k) for f, a, k in cases]))`,
    );
    expect(cases.map(([f, a, k]) => pyFormat(f, a as never, k as never))).toEqual(expected);
    expect(() => pyFormat('{:>5}', ['a'])).toThrow(/spec/);
    expect(() => pyFormat('{0.real}', [1])).toThrow(/not supported/);
    expect(() => pyStr(1.5)).toThrow(/int/);
  });
});

describe('the checkout', () => {
  it('reads upstream texts with provenance: file, symbol and the sha256 of the file', () => {
    const upstream = openUpstream(checkout().dir);
    const v3 = upstream.file('judge/methods/prompts.py').constant('SYS_PROMPT_V3');
    const sha = execFileSync('sha256sum', [upstream.path('judge/methods/prompts.py')], {
      encoding: 'utf8',
    }).split(' ')[0];
    expect(v3.source).toEqual({
      file: 'judge/methods/prompts.py',
      symbol: 'SYS_PROMPT_V3',
      sha256: sha,
    });
    const goals = upstream.file('run.py').dict('all_injection_goals', { within: 'test' });
    expect(goals.size).toBe(12);
    const record = upstreamProvenance([...goals.values(), v3, v3]);
    expect(record.prompt_family).toBe('upstream');
    expect(record.upstream_sources).toHaveLength(13);
    expect(record.upstream_sources!.map(source => source.file)).toEqual([
      'judge/methods/prompts.py',
      ...Array<string>(12).fill('run.py'),
    ]);
  });

  it('a directory that is not a checkout: one line naming what is missing', () => {
    const broken = checkout({ omit: ['run.py', 'judge/methods/aer.py'] });
    let error: unknown;
    try {
      openUpstream(broken.dir);
    } catch (caught) {
      error = caught;
    }
    expect(UpstreamError.isInstance(error)).toBe(true);
    const upstreamError = error as UpstreamError;
    expect(upstreamError.reason).toBe('not-a-checkout');
    expect(upstreamError.missing).toEqual(['run.py', 'judge/methods/aer.py']);
    expect(upstreamError.message).toBe(
      `${broken.dir}: not an upstream OS-Harm checkout: missing run.py, judge/methods/aer.py`,
    );
    expect(() => openUpstream(`${broken.dir}/nowhere`)).toThrow(/no such directory/);
    expect(UPSTREAM_LAYOUT).toContain('evaluation_examples/');
  });

  it('a missing symbol and a file that is not UTF-8: one line naming file and symbol', () => {
    const made = checkout({
      replace: {
        'judge/methods/prompts.py': 'SYS_PROMPT_V1 = "only one"\n',
        'mm_agents/prompts.py': Buffer.from([0x58, 0x20, 0x3d, 0x20, 0x22, 0xff, 0xfe, 0x22, 0x0a]),
      },
    });
    const upstream = openUpstream(made.dir);
    const prompts = upstream.file('judge/methods/prompts.py');
    expect(prompts.constant('SYS_PROMPT_V1').text).toBe('only one');
    expect(() => prompts.constant('SYS_PROMPT_V3')).toThrow(
      `${made.dir}/judge/methods/prompts.py: SYS_PROMPT_V3: not found`,
    );
    let error: unknown;
    try {
      upstream.file('mm_agents/prompts.py');
    } catch (caught) {
      error = caught;
    }
    expect((error as UpstreamError).reason).toBe('not-utf8');
    expect((error as UpstreamError).message).toBe(
      `${made.dir}/mm_agents/prompts.py: not valid UTF-8`,
    );
    expect(() => upstream.file('run.py').constant('main')).toThrow(/run\.py: main: not found/);
    expect(() => upstream.file('run.py').returnedString('config')).toThrow(
      /run\.py: config: config\.args is not a string literal/,
    );
  });
});
