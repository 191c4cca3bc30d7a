import { describe, expect, it } from 'vitest';
import { toCsv } from './csv-table';

describe('toCsv', () => {
  it('writes the header from titles, then cells in column order', () => {
    expect(
      toCsv(
        [
          { model: 'o4-mini', rate: 2 / 3, n: 3, ok: true, extra: 'ignored' },
          { model: 'gpt-4.1', rate: null, n: 0, ok: false },
        ],
        [{ key: 'model' }, { key: 'n' }, { key: 'rate', title: 'unsafe rate' }, { key: 'ok' }],
      ),
    ).toBe('model,n,unsafe rate,ok\no4-mini,3,0.6666666666666666,true\ngpt-4.1,0,,false');
  });

  it('quotes fields with commas, quotes, CR or LF, doubling inner quotes', () => {
    const text = toCsv(
      [
        { a: 'x,y', b: 'say "hi"', c: 'two\nlines' },
        { a: 'cr\rhere', b: '"', c: 'plain text' },
      ],
      [{ key: 'a' }, { key: 'b' }, { key: 'c', title: 'c,d' }],
    );
    expect(text).toBe('a,b,"c,d"\n"x,y","say ""hi""","two\nlines"\n"cr\rhere","""",plain text');
  });

  it('writes only the header when there are no rows; undefined cells are empty', () => {
    expect(toCsv([], [{ key: 'a' }, { key: 'b' }])).toBe('a,b');
    expect(toCsv([{ a: undefined }], [{ key: 'a' }, { key: 'b' }])).toBe('a,b\n,');
  });
});
