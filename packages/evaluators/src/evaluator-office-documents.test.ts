import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import {
  buildDocx,
  buildOdt,
  docxOf,
  docxParagraph,
  odtParagraph,
} from './__fixtures__/office-documents';
import {
  OfficeDocumentError,
  readDocxParagraphs,
  readOdtParagraphs,
} from './evaluator-office-documents';

const assets = fileURLToPath(new URL('../../../evaluation_examples/assets/', import.meta.url));

describe('readDocxParagraphs (python-docx 1.x Document(path).paragraphs)', () => {
  it('joins runs and translates run inner content like CT_R.text', () => {
    const docx = buildDocx([
      docxParagraph('Hello ', 'world'),
      '<w:p/>',
      '<w:p><w:r><w:t>a</w:t><w:tab/><w:t>b</w:t><w:br/><w:t>c</w:t><w:br w:type="page"/><w:cr/><w:noBreakHyphen/><w:ptab w:relativeTo="margin" w:alignment="right" w:leader="none"/></w:r></w:p>',
      '<w:p><w:r><w:t xml:space="preserve">  spaced  </w:t></w:r><w:ins w:id="1" w:author="x"><w:r><w:t>inserted</w:t></w:r></w:ins><w:del w:id="2" w:author="x"><w:r><w:delText>gone</w:delText></w:r></w:del></w:p>',
      '<w:p><w:r><w:t>see </w:t></w:r><w:hyperlink r:id="rId9"><w:r><w:t>the site</w:t></w:r></w:hyperlink><w:fldSimple w:instr="PAGE"><w:r><w:t>1</w:t></w:r></w:fldSimple></w:p>',
      '<w:p><w:r><w:t>x &amp; y &lt;z&gt;</w:t></w:r></w:p>',
    ]);
    expect(readDocxParagraphs(docx)).toEqual([
      'Hello world',
      '',
      'a\tb\nc\n-\t',
      '  spaced  ',
      'see the site',
      'x & y <z>',
    ]);
  });

  it('takes only the body’s own paragraphs (not tables or content controls)', () => {
    const docx = buildDocx([
      docxParagraph('before'),
      '<w:tbl><w:tr><w:tc><w:p><w:r><w:t>in a table</w:t></w:r></w:p></w:tc></w:tr></w:tbl>',
      '<w:sdt><w:sdtContent><w:p><w:r><w:t>in a content control</w:t></w:r></w:p></w:sdtContent></w:sdt>',
      docxParagraph('after'),
    ]);
    expect(readDocxParagraphs(docx)).toEqual(['before', 'after']);
  });

  it('reads the project’s own .docx assets', () => {
    const paragraphs = readDocxParagraphs(readFileSync(`${assets}quarterly_summary.docx`));
    expect(paragraphs).toHaveLength(7);
    expect(paragraphs[0]).toBe('Q3 Quarterly Summary');
    expect(paragraphs[2]).toBe('');
    expect(paragraphs[3]).toContain('we recieved 1,284 orders');
  });

  it('refuses what python-docx refuses', () => {
    expect(() => readDocxParagraphs(strToU8('not a zip'))).toThrow(OfficeDocumentError);
    expect(() => readDocxParagraphs(buildDocx([], { withoutContentTypes: true }))).toThrow(
      /\[Content_Types\]\.xml/,
    );
    expect(() =>
      readDocxParagraphs(
        buildDocx([], {
          mainContentType: 'application/vnd.ms-word.document.macroEnabled.main+xml',
        }),
      ),
    ).toThrow(/not a Word file/);
    const danglingRels =
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>' +
      '</Relationships>';
    expect(() => readDocxParagraphs(buildDocx([], { documentRels: danglingRels }))).toThrow(
      /no item named 'word\/numbering.xml'/,
    );
    const broken = zipSync({
      ...unzipSync(docxOf(['a'])),
      'word/document.xml': strToU8('<w:document'),
    });
    expect(() => readDocxParagraphs(broken)).toThrow();
  });
});

describe('readOdtParagraphs (odfpy load + upstream get_paragraph_texts_odt)', () => {
  it('keeps direct text and direct span text only; headers follow the body', () => {
    const odt = buildOdt(
      odtParagraph(
        'Hello <text:span text:style-name="T1">big <text:span>nested</text:span> world</text:span> tail',
      ) +
        '<text:h text:outline-level="1">A heading</text:h>' +
        odtParagraph(
          'a<text:s/>b<text:tab/>c<text:line-break/>d <text:a xlink:href="https://example.org/">link</text:a>',
        ) +
        '<table:table><table:table-row><table:table-cell><text:p>cell</text:p></table:table-cell></table:table-row></table:table>' +
        '<text:list><text:list-item><text:p>item</text:p></text:list-item></text:list>' +
        odtParagraph('') +
        odtParagraph('  two  spaces '),
      {
        masterStyles:
          '<style:master-page style:name="Standard"><style:header><text:p>Header text</text:p></style:header></style:master-page>',
      },
    );
    // cross-checked against odfpy 1.4.2
    expect(readOdtParagraphs(odt)).toEqual([
      'Hello big  world tail',
      'abcd ',
      'cell',
      'item',
      '',
      '  two  spaces ',
      'Header text',
    ]);
  });

  it('skips parts the manifest does not list', () => {
    const odt = buildOdt(odtParagraph('body'), {
      stylesNotInManifest: true,
      masterStyles:
        '<style:master-page style:name="S"><style:footer><text:p>footer</text:p></style:footer></style:master-page>',
    });
    expect(readOdtParagraphs(odt)).toEqual(['body']);
  });

  it('keeps the paragraphs read before an XML error, as odfpy does', () => {
    const content =
      '<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0">' +
      '<office:body><office:text><text:p>first</text:p><text:p>second</text:p><broken';
    expect(readOdtParagraphs(buildOdt('', { contentXml: content }))).toEqual(['first', 'second']);
  });

  it('refuses a file odfpy cannot load', () => {
    expect(() => readOdtParagraphs(zipSync({ 'content.xml': strToU8('<x/>') }))).toThrow(
      /manifest/,
    );
    expect(() => readOdtParagraphs(strToU8('plain text'))).toThrow(OfficeDocumentError);
  });
});
