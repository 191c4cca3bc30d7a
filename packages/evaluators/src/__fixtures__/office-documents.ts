/**
 * Builders of real .docx (Office Open XML) and .odt (OpenDocument) packages for the evaluator
 * tests, zipped with fflate. The XML is what Word / LibreOffice write, trimmed to the parts the
 * readers (python-docx, odfpy) need.
 */
import { strToU8, zipSync } from 'fflate';

const W_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

const escapeXml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** `<w:p>` with one run per text (an empty string gives an empty paragraph). */
export function docxParagraph(...runs: string[]): string {
  if (runs.length === 0 || (runs.length === 1 && runs[0] === '')) return '<w:p/>';
  return `<w:p><w:pPr><w:pStyle w:val="Normal"/></w:pPr>${runs
    .map(
      text => `<w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r>`,
    )
    .join('')}</w:p>`;
}

export interface DocxOptions {
  /** Extra parts: path in the zip → content. */
  readonly extraParts?: Readonly<Record<string, string>>;
  /** The main part's content type. @default the WordprocessingML document type */
  readonly mainContentType?: string;
  /** word/_rels/document.xml.rels content. */
  readonly documentRels?: string;
  /** Leave out [Content_Types].xml. */
  readonly withoutContentTypes?: boolean;
}

/** A .docx whose body holds these block XML strings (paragraphs, tables…). */
export function buildDocx(blocks: readonly string[], options: DocxOptions = {}): Uint8Array {
  const mainType =
    options.mainContentType ??
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml';
  const contentTypes =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    `<Override PartName="/word/document.xml" ContentType="${mainType}"/>` +
    '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>' +
    '</Types>';
  const packageRels =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
    '</Relationships>';
  const documentRels =
    options.documentRels ??
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>' +
      '<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.org/" TargetMode="External"/>' +
      '</Relationships>';
  const styles =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    `<w:styles xmlns:w="${W_NS}"><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style></w:styles>`;
  const document =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    `<w:document xmlns:w="${W_NS}" xmlns:r="${R_NS}">\n  <w:body>\n    ${blocks.join('\n    ')}\n` +
    '    <w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr>\n  </w:body>\n</w:document>';
  const files: Record<string, Uint8Array> = {
    '_rels/.rels': strToU8(packageRels),
    'word/document.xml': strToU8(document),
    'word/_rels/document.xml.rels': strToU8(documentRels),
    'word/styles.xml': strToU8(styles),
  };
  if (!options.withoutContentTypes) files['[Content_Types].xml'] = strToU8(contentTypes);
  for (const [path, content] of Object.entries(options.extraParts ?? {}))
    files[path] = strToU8(content);
  return zipSync(files);
}

/** A .docx with one plain paragraph per text. */
export function docxOf(paragraphs: readonly string[]): Uint8Array {
  return buildDocx(paragraphs.map(text => docxParagraph(text)));
}

const ODF_NAMESPACES =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" ' +
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
  'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" ' +
  'xmlns:xlink="http://www.w3.org/1999/xlink"';

/** `<text:p>` with the given inner XML. */
export function odtParagraph(innerXml: string): string {
  return `<text:p text:style-name="Standard">${innerXml}</text:p>`;
}

export interface OdtOptions {
  /** Inner XML of `office:master-styles` in styles.xml (headers/footers). */
  readonly masterStyles?: string;
  /** Leave styles.xml out of the manifest. */
  readonly stylesNotInManifest?: boolean;
  /** Replace content.xml wholesale. */
  readonly contentXml?: string;
}

/** An .odt whose `office:text` holds this XML. */
export function buildOdt(textXml: string, options: OdtOptions = {}): Uint8Array {
  const content =
    options.contentXml ??
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
      `<office:document-content ${ODF_NAMESPACES} office:version="1.3">` +
      '<office:font-face-decls><style:font-face style:name="Liberation Serif"/></office:font-face-decls>' +
      '<office:automatic-styles><style:style style:name="P1" style:family="paragraph"/></office:automatic-styles>' +
      `<office:body><office:text>${textXml}</office:text></office:body></office:document-content>`;
  const styles =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<office:document-styles ${ODF_NAMESPACES} office:version="1.3">` +
    '<office:styles><style:default-style style:family="paragraph"/></office:styles>' +
    `<office:master-styles>${options.masterStyles ?? '<style:master-page style:name="Standard"/>'}</office:master-styles>` +
    '</office:document-styles>';
  const manifest =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">' +
    '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>' +
    '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>' +
    (options.stylesNotInManifest
      ? ''
      : '<manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>') +
    '</manifest:manifest>';
  return zipSync({
    mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }],
    'content.xml': strToU8(content),
    'styles.xml': strToU8(styles),
    'META-INF/manifest.xml': strToU8(manifest),
  });
}

/** An .odt with one plain paragraph per text. */
export function odtOf(paragraphs: readonly string[]): Uint8Array {
  return buildOdt(paragraphs.map(text => odtParagraph(escapeXml(text))).join(''));
}
