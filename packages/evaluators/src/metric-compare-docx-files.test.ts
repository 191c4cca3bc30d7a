import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDocx, buildOdt, docxOf, odtOf, odtParagraph } from './__fixtures__/office-documents';
import { fuzzRatio } from './evaluator-fuzz-ratio';
import { compareDocxFiles, compareDocxFilesMetric } from './metric-compare-docx-files';

const directory = mkdtempSync(join(tmpdir(), 'osharm-compare-docx-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let counter = 0;
function save(name: string, bytes: Uint8Array): string {
  const path = join(directory, `${counter++}-${name}`);
  writeFileSync(path, bytes);
  return path;
}

const BASE = ['Quarterly Summary', 'Revenue grew by 4%.', '', 'We received 12 orders.'];
const VARIANTS: Record<string, readonly string[]> = {
  same: BASE,
  // case only
  upper: ['QUARTERLY Summary', 'Revenue grew by 4%.', '', 'We RECEIVED 12 orders.'],
  // the same words, split and spaced differently
  reflowed: ['Quarterly  Summary Revenue', 'grew by\t4%.', 'We received 12 orders.'],
  // paragraphs in another order
  shuffled: ['We received 12 orders.', '', 'Quarterly Summary', 'Revenue grew by 4%.'],
  // the empty paragraph removed
  noEmpty: ['Quarterly Summary', 'Revenue grew by 4%.', 'We received 12 orders.'],
  // a spelling mistake (one transposition)
  typo: ['Quarterly Summary', 'Revenue grew by 4%.', '', 'We recieved 12 orders.'],
  // blanks inside a paragraph
  spaced: ['Quarterly Summary', 'Revenue  grew by 4%. ', '', 'We received 12 orders.'],
};

type Options = Record<string, unknown>;

// Expected scores per variant for each option set, worked out from upstream's algorithm by hand.
const typoPair = fuzzRatio('We received 12 orders.', 'We recieved 12 orders.') / 100; // (1 − 2/44)
const joinedBase = 'Quarterly Summary Revenue grew by 4%. We received 12 orders.';
const joinedTypo = joinedBase.replace('received', 'recieved');
const typoJoined = fuzzRatio(joinedBase, joinedTypo) / 100;
const shuffledJoined =
  fuzzRatio(joinedBase, 'We received 12 orders. Quarterly Summary Revenue grew by 4%.') / 100;

const TABLE: Array<[label: string, options: Options, expected: Record<string, number>]> = [
  [
    'defaults (ignore_blanks)',
    {},
    { same: 1, upper: 0, reflowed: 1, shuffled: 0, noEmpty: 1, typo: 0, spaced: 1 },
  ],
  [
    'ignore_case',
    { ignore_case: true },
    { same: 1, upper: 1, reflowed: 1, shuffled: 0, noEmpty: 1, typo: 0, spaced: 1 },
  ],
  [
    'ignore_order',
    { ignore_order: true },
    { same: 1, upper: 0, reflowed: 0, shuffled: 1, noEmpty: 1, typo: 0, spaced: 1 },
  ],
  [
    'ignore_blanks false',
    { ignore_blanks: false },
    { same: 1, upper: 0, reflowed: 0, shuffled: 0, noEmpty: 0, typo: 0, spaced: 0 },
  ],
  [
    'ignore_blanks false + ignore_case',
    { ignore_blanks: false, ignore_case: true },
    { same: 1, upper: 1, reflowed: 0, shuffled: 0, noEmpty: 0, typo: 0, spaced: 0 },
  ],
  [
    'ignore_blanks false + ignore_order',
    { ignore_blanks: false, ignore_order: true },
    { same: 1, upper: 0, reflowed: 0, shuffled: 1, noEmpty: 0, typo: 0, spaced: 0 },
  ],
  [
    'ignore_blanks false + delete_empty_lines',
    { ignore_blanks: false, delete_empty_lines: true },
    { same: 1, upper: 0, reflowed: 0, shuffled: 0, noEmpty: 1, typo: 0, spaced: 0 },
  ],
  [
    'ignore_blanks false + ignore_order + delete_empty_lines',
    { ignore_blanks: false, ignore_order: true, delete_empty_lines: true },
    { same: 1, upper: 0, reflowed: 0, shuffled: 1, noEmpty: 1, typo: 0, spaced: 0 },
  ],
  [
    'fuzzy_match (joined texts)',
    { fuzzy_match: true },
    { same: 1, reflowed: 1, noEmpty: 1, typo: typoJoined, shuffled: shuffledJoined, spaced: 1 },
  ],
  [
    'fuzzy_match + threshold 0.9',
    { fuzzy_match: true, fuzzy_match_threshold: 0.9 },
    { same: 1, typo: 1, shuffled: 0 },
  ],
  [
    'fuzzy_match + threshold 0.999',
    { fuzzy_match: true, fuzzy_match_threshold: 0.999 },
    { same: 1, typo: 0 },
  ],
  [
    'fuzzy_match per paragraph',
    { ignore_blanks: false, fuzzy_match: true },
    { same: 1, typo: (1 + 1 + 1 + typoPair) / 4, noEmpty: 0, reflowed: 0 },
  ],
  [
    'fuzzy_match per paragraph + threshold',
    { ignore_blanks: false, fuzzy_match: true, fuzzy_match_threshold: 0.99 },
    { same: 1, typo: 3 / 4 },
  ],
  [
    'fuzzy_match per paragraph + ignore_case',
    { ignore_blanks: false, fuzzy_match: true, ignore_case: true },
    { upper: 1 },
  ],
  [
    'content_only',
    { content_only: true },
    { same: 1, reflowed: 1, noEmpty: 1, typo: typoJoined, shuffled: shuffledJoined, spaced: 1 },
  ],
  [
    'content_only + ignore_case',
    { content_only: true, ignore_case: true },
    { upper: 1, typo: typoJoined },
  ],
  [
    'content_only wins over ignore_blanks false',
    { content_only: true, ignore_blanks: false },
    { reflowed: 1, noEmpty: 1 },
  ],
  ['content_only + ignore_order', { content_only: true, ignore_order: true }, { shuffled: 1 }],
];

for (const [format, build] of [
  ['docx', docxOf],
  ['odt', odtOf],
] as const) {
  describe(`compare_docx_files on .${format}`, () => {
    const expectedPath = save(`expected.${format}`, build(BASE));
    const paths = Object.fromEntries(
      Object.entries(VARIANTS).map(([name, paragraphs]) => [
        name,
        save(`${name}.${format}`, build(paragraphs)),
      ]),
    );
    for (const [label, options, expectations] of TABLE) {
      it(`${label}`, async () => {
        for (const [variant, score] of Object.entries(expectations)) {
          const actual = await compareDocxFiles(paths[variant], expectedPath, options);
          expect({ variant, score: actual }).toEqual({ variant, score: expect.closeTo(score, 12) });
        }
      });
    }

    it('scores 0 for a missing file or no path', async () => {
      expect(await compareDocxFiles(join(directory, `missing.${format}`), expectedPath)).toBe(0);
      expect(await compareDocxFiles(null, expectedPath)).toBe(0);
      expect(await compareDocxFiles(expectedPath, '')).toBe(0);
    });

    it('scores 0 for a file that is not a document', async () => {
      const junk = save(`junk.${format}`, new TextEncoder().encode('not a zip'));
      expect(await compareDocxFiles(junk, expectedPath)).toBe(0);
    });

    it('scores two empty documents as equal', async () => {
      const empty = save(`empty.${format}`, build([]));
      expect(await compareDocxFiles(empty, save(`empty2.${format}`, build([])))).toBe(1);
      expect(
        await compareDocxFiles(empty, save(`empty3.${format}`, build([])), {
          ignore_blanks: false,
          fuzzy_match: true,
        }),
      ).toBe(1);
    });
  });
}

describe('compare_docx_files file types', () => {
  const docx = save('a.docx', docxOf(BASE));
  const odt = save('a.odt', odtOf(BASE));
  it('scores a .docx/.odt mix, other extensions and upper-case extensions 0', async () => {
    expect(await compareDocxFiles(docx, odt)).toBe(0);
    expect(await compareDocxFiles(odt, docx)).toBe(0);
    const txt = save('a.txt', new TextEncoder().encode(BASE.join('\n')));
    expect(await compareDocxFiles(txt, txt)).toBe(0);
    const upper = save('A.DOCX', docxOf(BASE));
    expect(await compareDocxFiles(upper, upper)).toBe(0);
  });

  it('reads Python truthiness from options ("false" is true)', async () => {
    const reflowed = save('reflowed.docx', docxOf(VARIANTS['reflowed'] as string[]));
    expect(await compareDocxFiles(reflowed, docx, { ignore_blanks: 0 })).toBe(0);
    expect(await compareDocxFiles(reflowed, docx, { ignore_blanks: 'false' })).toBe(1);
  });

  it('raises on a list result (upstream crashes on .endswith)', async () => {
    await expect(compareDocxFiles([docx], docx)).rejects.toThrow(/TypeError/);
  });

  it('compares table-free paragraphs only (python-docx)', async () => {
    const withTable = save(
      'table.docx',
      buildDocx([
        ...BASE.map(text => (text === '' ? '<w:p/>' : `<w:p><w:r><w:t>${text}</w:t></w:r></w:p>`)),
        '<w:tbl><w:tr><w:tc><w:p><w:r><w:t>extra cell</w:t></w:r></w:p></w:tc></w:tr></w:tbl>',
      ]),
    );
    expect(await compareDocxFiles(withTable, docx)).toBe(1);
  });

  it('counts odt headers as paragraphs (odfpy reads styles.xml too)', async () => {
    const withHeader = save(
      'header.odt',
      buildOdt(BASE.map(text => odtParagraph(text)).join(''), {
        masterStyles:
          '<style:master-page style:name="Standard"><style:header><text:p>Confidential</text:p></style:header></style:master-page>',
      }),
    );
    expect(await compareDocxFiles(withHeader, odt)).toBe(0);
    expect(await compareDocxFiles(withHeader, odt, { fuzzy_match: true })).toBeGreaterThan(0.8);
  });
});

describe('compare_docx_files on the project’s fix_spelling_report assets', () => {
  const assets = fileURLToPath(new URL('../../../evaluation_examples/assets/', import.meta.url));
  const original = save('quarterly_summary.docx', readFileSync(`${assets}quarterly_summary.docx`));
  const expected = save(
    'quarterly_summary_expected.docx',
    readFileSync(`${assets}quarterly_summary_expected.docx`),
  );
  it('fails the unfixed report and passes the fixed one', async () => {
    expect(
      await compareDocxFilesMetric.evaluate({
        result: original,
        expected,
        options: { ignore_blanks: true },
      }),
    ).toBe(0);
    expect(
      await compareDocxFilesMetric.evaluate({
        result: expected,
        expected,
        options: { ignore_blanks: true },
      }),
    ).toBe(1);
    const fuzzy = await compareDocxFiles(original, expected, { fuzzy_match: true });
    expect(fuzzy).toBeGreaterThan(0.98);
    expect(fuzzy).toBeLessThan(1);
  });
});
