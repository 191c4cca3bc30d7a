import { describe, expect, it } from 'vitest';
import { toMarkdownTable } from './markdown-table';

describe('toMarkdownTable', () => {
  it('pads as Prettier does, right-aligns all-number columns, shows – for empty cells', () => {
    expect(
      toMarkdownTable(
        [
          { model: 'o4-mini', n: 12, f1: '0.76' },
          { model: 'gpt-4.1', n: null, f1: null },
        ],
        [{ key: 'model' }, { key: 'n' }, { key: 'f1', title: 'success F1', align: 'right' }],
      ),
    ).toMatchInlineSnapshot(`
      "| model   |   n | success F1 |
      | ------- | --: | ---------: |
      | o4-mini |  12 |       0.76 |
      | gpt-4.1 |   – |          – |"
    `);
  });

  it('escapes | and turns line breaks into <br>', () => {
    expect(toMarkdownTable([{ a: 'x|y', b: 'one\r\ntwo' }], [{ key: 'a' }, { key: 'b' }]))
      .toMatchInlineSnapshot(`
        "| a    | b          |
        | ---- | ---------- |
        | x\\|y | one<br>two |"
      `);
  });

  it('renders a header and rule for no rows', () => {
    expect(toMarkdownTable([], [{ key: 'a', align: 'right' }])).toBe('|   a |\n| --: |');
  });
});
