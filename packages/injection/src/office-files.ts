import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import { InjectionSetupError } from './injection-errors';
import { escapeXml } from './text-utils';

/** Run properties of the injected paragraph: 21 pt (`w:sz` is in half-points) and blue 0000DD. */
export const INJECTED_PARAGRAPH_STYLE = { sizeHalfPoints: 42, color: '0000DD' } as const;

const WORDML_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
/** Fixed entry time, so the same input gives the same bytes. */
const ZIP_MTIME = new Date(2025, 0, 1, 0, 0, 0);
const STORED = /\.(png|jpe?g|gif|tiff?|emf|wmf|bmp|zip|docx|xlsx|odt|mp4|wav)$/i;

/** The paragraph element inserted into a document, for prefix `p` of the WordprocessingML namespace. */
export function injectedParagraphXml(text: string, p = 'w'): string {
  const { sizeHalfPoints, color } = INJECTED_PARAGRAPH_STYLE;
  return (
    `<${p}:p><${p}:r><${p}:rPr><${p}:color ${p}:val="${color}"/>` +
    `<${p}:sz ${p}:val="${sizeHalfPoints}"/><${p}:szCs ${p}:val="${sizeHalfPoints}"/></${p}:rPr>` +
    `<${p}:t xml:space="preserve">${escapeXml(text)}</${p}:t></${p}:r></${p}:p>`
  );
}

/**
 * Inserts `text` as a new first paragraph of the document body (21 pt, colour 0000DD), as the
 * `libreoffice_writer` vector does with python-docx. Every other zip entry keeps its bytes;
 * `word/document.xml` changes only by the inserted element.
 *
 * Upstream inserts before the first *paragraph*; osharm inserts right after `<w:body>`, so the text
 * comes first even when the document opens with a table.
 *
 * @throws {InjectionSetupError} not a zip, no `word/document.xml`, or no `<w:body>` in it
 */
export function injectDocx(docx: Uint8Array, text: string): Uint8Array {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(docx);
  } catch (cause) {
    throw docxError(`not a zip archive (${(cause as Error).message})`, cause);
  }
  const documentEntry = entries['word/document.xml'];
  if (documentEntry === undefined) throw docxError('no word/document.xml in the archive');
  const xml = strFromU8(documentEntry);
  const prefix = wordPrefix(xml);
  const body = new RegExp(`<${prefix}:body(?:\\s[^>]*)?>`).exec(xml);
  if (body === null) throw docxError(`no <${prefix}:body> in word/document.xml`);
  const at = body.index + body[0].length;
  const injected = xml.slice(0, at) + injectedParagraphXml(text, prefix) + xml.slice(at);
  return writeZip({ ...entries, 'word/document.xml': strToU8(injected) });
}

function docxError(reason: string, cause?: unknown): InjectionSetupError {
  return new InjectionSetupError({ message: `cannot inject the .docx: ${reason}`, cause });
}

/** The prefix bound to the WordprocessingML namespace (nearly always `w`). */
function wordPrefix(xml: string): string {
  const match = new RegExp(`xmlns:([\\w.-]+)="${WORDML_NS.replace(/[./]/g, '\\$&')}"`).exec(xml);
  return match?.[1] ?? 'w';
}

/** Zips `entries` in their order with fixed times; already-compressed media is stored. */
export function writeZip(entries: Record<string, Uint8Array>): Uint8Array {
  const zippable: Zippable = {};
  for (const [name, data] of Object.entries(entries)) {
    zippable[name] = [data, { level: STORED.test(name) ? 0 : 6, mtime: ZIP_MTIME }];
  }
  return zipSync(zippable);
}

/** The paragraphs (text only) of a `.docx`, in order; for checks and tests. */
export function docxParagraphs(docx: Uint8Array): string[] {
  const xml = strFromU8(unzipSync(docx)['word/document.xml'] ?? new Uint8Array());
  const prefix = wordPrefix(xml);
  const paragraphs = xml.match(
    new RegExp(
      `<${prefix}:p(?:\\s[^>]*)?>[\\s\\S]*?</${prefix}:p>|<${prefix}:p(?:\\s[^>]*)?/>`,
      'g',
    ),
  );
  return (paragraphs ?? []).map(paragraph =>
    Array.from(
      paragraph.matchAll(new RegExp(`<${prefix}:t(?:\\s[^>]*)?>([^<]*)</${prefix}:t>`, 'g')),
    )
      .map(match => unescapeXml(match[1] ?? ''))
      .join(''),
  );
}

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/**
 * A minimal Word document (content types, package relationships, `word/document.xml`) with one
 * paragraph per entry of `paragraphs`. Used for stand-ins when a dataset lacks an upstream asset.
 */
export function createDocx(paragraphs: readonly string[]): Uint8Array {
  const body = paragraphs
    .map(text => `<w:p><w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r></w:p>`)
    .join('');
  return writeZip({
    '[Content_Types].xml': strToU8(
      `${XML_DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
        '</Types>',
    ),
    '_rels/.rels': strToU8(
      `${XML_DECLARATION}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
        '</Relationships>',
    ),
    'word/document.xml': strToU8(
      `${XML_DECLARATION}<w:document xmlns:w="${WORDML_NS}"><w:body>${body}` +
        '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>',
    ),
  });
}

/**
 * A minimal spreadsheet (one sheet, inline strings and numbers) from `rows`. Used for the
 * `SafetyEvaluation.xlsx` stand-in.
 */
export function createXlsx(rows: readonly (readonly (string | number)[])[]): Uint8Array {
  const column = (index: number) => String.fromCharCode(65 + index);
  const sheetRows = rows
    .map((row, rowIndex) => {
      const cells = row
        .map((value, columnIndex) => {
          const ref = `${column(columnIndex)}${rowIndex + 1}`;
          return typeof value === 'number'
            ? `<c r="${ref}"><v>${value}</v></c>`
            : `<c r="${ref}" t="inlineStr"><is><t>${escapeXml(value)}</t></is></c>`;
        })
        .join('');
      return `<row r="${rowIndex + 1}">${cells}</row>`;
    })
    .join('');
  const main = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  return writeZip({
    '[Content_Types].xml': strToU8(
      `${XML_DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
        '</Types>',
    ),
    '_rels/.rels': strToU8(
      `${XML_DECLARATION}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        `<Relationship Id="rId1" Type="${rel}/officeDocument" Target="xl/workbook.xml"/>` +
        '</Relationships>',
    ),
    'xl/workbook.xml': strToU8(
      `${XML_DECLARATION}<workbook xmlns="${main}" xmlns:r="${rel}">` +
        '<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
    ),
    'xl/_rels/workbook.xml.rels': strToU8(
      `${XML_DECLARATION}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        `<Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/>` +
        '</Relationships>',
    ),
    'xl/worksheets/sheet1.xml': strToU8(
      `${XML_DECLARATION}<worksheet xmlns="${main}"><sheetData>${sheetRows}</sheetData></worksheet>`,
    ),
  });
}
