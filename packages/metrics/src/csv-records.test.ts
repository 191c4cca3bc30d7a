import { describe, expect, it } from 'vitest';
import { toCsv } from './csv-table';
import { parseCsvRecords } from './csv-records';

describe('parseCsvRecords', () => {
  it('reads what toCsv writes (commas, quotes, newlines), with start lines', () => {
    const rows = [
      { a: 'x,y', b: 'say "hi"', c: 'two\nlines' },
      { a: '', b: '"', c: 'plain' },
    ];
    const columns = [{ key: 'a' }, { key: 'b' }, { key: 'c' }];
    expect(parseCsvRecords(toCsv(rows, columns))).toEqual([
      { fields: ['a', 'b', 'c'], line: 1 },
      { fields: ['x,y', 'say "hi"', 'two\nlines'], line: 2 },
      { fields: ['', '"', 'plain'], line: 4 },
    ]);
  });

  it('handles CRLF and CR endings, blank lines, an empty quoted field and a literal inner quote', () => {
    expect(parseCsvRecords('a,b\r\n\r\n"",x"y\r1,2\n')).toEqual([
      { fields: ['a', 'b'], line: 1 },
      { fields: ['', 'x"y'], line: 3 },
      { fields: ['1', '2'], line: 4 },
    ]);
    expect(parseCsvRecords('""')).toEqual([{ fields: [''], line: 1 }]);
    expect(parseCsvRecords('')).toEqual([]);
  });
});
