import { describe, expect, it } from 'vitest';
import {
  pythonCompare,
  pythonContains,
  pythonEquals,
  pythonFloat,
  pythonRepr,
  pythonSetEquals,
  pythonTruthy,
} from './evaluator-python-values';
import {
  collapsePythonWhitespace,
  pythonSortedStrings,
  pythonSplitext,
  pythonSplitlines,
  pythonStrftime,
  pythonStrip,
} from './evaluator-python-text';

describe('Python value semantics', () => {
  it('== is type-sensitive except for bool/int', () => {
    expect(pythonEquals('1', 1)).toBe(false);
    expect(pythonEquals(true, 1)).toBe(true);
    expect(pythonEquals(false, 0)).toBe(true);
    expect(pythonEquals(null, undefined)).toBe(true);
    expect(pythonEquals(null, 0)).toBe(false);
    expect(pythonEquals([1, 'a', { k: [true] }], [1, 'a', { k: [1] }])).toBe(true);
    expect(pythonEquals({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(pythonEquals(Number.NaN, Number.NaN)).toBe(false);
  });

  it('ordering follows Python and raises on mixed types', () => {
    expect(pythonCompare(2, 10)).toBe(-1);
    expect(pythonCompare('2', '10')).toBe(1);
    expect(pythonCompare('\uffff', '😀')).toBe(-1); // code point order, not UTF-16
    expect(pythonCompare([1, 2], [1, 2, 0])).toBe(-1);
    expect(pythonCompare(true, 0.5)).toBe(1);
    expect(() => pythonCompare('1', 1)).toThrow(
      /TypeError: '<' not supported between instances of 'str' and 'int'/,
    );
    expect(() => pythonCompare(null, 1)).toThrow(/NoneType/);
  });

  it('in: substring, membership, dict keys; TypeError otherwise', () => {
    expect(pythonContains('hello world', 'lo w')).toBe(true);
    expect(pythonContains(['a', 1], true)).toBe(true);
    expect(pythonContains({ key: 1 }, 'key')).toBe(true);
    expect(() => pythonContains('abc', 1)).toThrow(/requires string as left operand, not int/);
    expect(() => pythonContains(null, 'a')).toThrow(/NoneType' is not iterable/);
  });

  it('float() parses Python float literals', () => {
    expect(pythonFloat(' 1_000.5 ')).toBe(1000.5);
    expect(pythonFloat('-inf')).toBe(Number.NEGATIVE_INFINITY);
    expect(pythonFloat('1e3')).toBe(1000);
    expect(pythonFloat(true)).toBe(1);
    expect(Number.isNaN(pythonFloat('NaN'))).toBe(true);
    expect(() => pythonFloat('1,5')).toThrow(/ValueError/);
    expect(() => pythonFloat('')).toThrow(/ValueError/);
    expect(() => pythonFloat(null)).toThrow(/TypeError/);
  });

  it('truthiness', () => {
    for (const falsy of [null, undefined, false, 0, '', [], {}])
      expect(pythonTruthy(falsy)).toBe(false);
    for (const truthy of ['false', 'x', [0], { a: null }, -1, Number.NaN])
      expect(pythonTruthy(truthy)).toBe(true);
  });

  it('whitespace, strip and splitlines use Python’s whitespace set', () => {
    expect(pythonStrip('\x1c\x85 a b\u3000\n')).toBe('a b');
    expect(pythonStrip('\ufeffa')).toBe('\ufeffa');
    expect(collapsePythonWhitespace('a \t\n\x1f b\u00a0c')).toBe('a b c');
    expect(pythonSplitlines('a\r\nb\rc\x0bd\n')).toEqual(['a', 'b', 'c', 'd']);
    expect(pythonSplitlines('')).toEqual([]);
  });

  it('sorted() orders strings by code point', () => {
    expect(pythonSortedStrings(['b', 'B', '😀', '\uffff', 'a'])).toEqual([
      'B',
      'a',
      'b',
      '\uffff',
      '😀',
    ]);
  });

  it('set equality ignores order and duplicates, and rejects unhashable items', () => {
    expect(pythonSetEquals(['a', 'b', 'a'], ['b', 'a'])).toBe(true);
    expect(pythonSetEquals(['a'], ['a', 'b'])).toBe(false);
    expect(() => pythonSetEquals([['a']], [])).toThrow(/unhashable type: 'list'/);
  });

  it('os.path.splitext and strftime', () => {
    expect(pythonSplitext('a.tar.gz')).toEqual(['a.tar', '.gz']);
    expect(pythonSplitext('.bashrc')).toEqual(['.bashrc', '']);
    expect(pythonSplitext('dir.x/file')).toEqual(['dir.x/file', '']);
    expect(pythonSplitext('..a')).toEqual(['..a', '']);
    const date = new Date(2024, 2, 5, 7, 8, 9, 123);
    expect(pythonStrftime(date, '%Y%m%d_%H%M%S')).toBe('20240305_070809');
    expect(pythonStrftime(date, '%y-%j %a %A %b %B %I%p %f %% %Q')).toBe(
      '24-065 Tue Tuesday Mar March 07AM 123000 % %Q',
    );
  });

  it('repr() prints like Python', () => {
    expect(pythonRepr([1, 'a', null, true, { k: "it's" }])).toBe(
      `[1, 'a', None, True, {'k': "it's"}]`,
    );
    expect(pythonRepr(1e16)).toBe('1e+16');
    expect(pythonRepr(1e-5)).toBe('1e-05');
    expect(pythonRepr(0.1)).toBe('0.1');
    expect(pythonRepr(1.5e300)).toBe('1.5e+300');
    expect(pythonRepr(-2.5e-7)).toBe('-2.5e-07');
    expect(pythonRepr(1e15 + 0.5)).toBe('1000000000000000.5');
  });
});
