import { unzipSync } from 'fflate';
import { childElements, descendants, leadingText, parseXml } from './evaluator-xml';
import type { XmlElement } from './evaluator-xml';

const WORDPROCESSING_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const CONTENT_TYPES_NS = 'http://schemas.openxmlformats.org/package/2006/content-types';
const RELATIONSHIPS_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const OFFICE_DOCUMENT_RELATIONSHIP =
  'http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument';
const WORD_MAIN_CONTENT_TYPE =
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml';
const ODF_OFFICE_NS = 'urn:oasis:names:tc:opendocument:xmlns:office:1.0';
const ODF_TEXT_NS = 'urn:oasis:names:tc:opendocument:xmlns:text:1.0';
const ODF_MANIFEST_NS = 'urn:oasis:names:tc:opendocument:xmlns:manifest:1.0';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** A document that python-docx or odfpy would refuse to open; upstream scores it 0. */
export class OfficeDocumentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OfficeDocumentError';
  }
}

function unzip(bytes: Uint8Array, what: string): Record<string, Uint8Array> {
  try {
    return unzipSync(bytes);
  } catch (error) {
    throw new OfficeDocumentError(`${what} is not a zip package`, { cause: error });
  }
}

function parseRequired(entries: Record<string, Uint8Array>, name: string): XmlElement {
  const bytes = entries[name];
  if (bytes === undefined) throw new OfficeDocumentError(`the package has no ${name}`);
  const { root } = parseXml(utf8.decode(bytes));
  if (root === undefined) throw new OfficeDocumentError(`${name} has no document element`);
  return root;
}

/** posixpath.normpath(posixpath.join(base, target)) for OPC part names (always absolute). */
function resolvePartName(baseDirectory: string, target: string): string {
  const joined = target.startsWith('/') ? target : `${baseDirectory}/${target}`;
  const parts: string[] = [];
  for (const segment of joined.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') parts.pop();
    else parts.push(segment);
  }
  return `/${parts.join('/')}`;
}

/**
 * The paragraph texts python-docx (1.x) gives for `[p.text for p in Document(path).paragraphs]`.
 *
 * - Opening follows python-docx: the package must have `[Content_Types].xml` and `_rels/.rels`
 *   with one `officeDocument` relationship; every part reachable through internal relationships
 *   must exist and have a content type; the main part's content type must be the WordprocessingML
 *   document type (not a template or macro-enabled document).
 * - `paragraphs` are the `w:p` children of `w:body` only: not paragraphs inside tables, content
 *   controls or text boxes.
 * - A paragraph's text joins its `w:r` and `w:hyperlink` children (a hyperlink's own `w:r`
 *   children); a run's text joins `w:t` text, `w:tab`/`w:ptab` as `\t`, `w:cr` and line-type
 *   `w:br` as `\n` (page and column breaks give nothing), `w:noBreakHyphen` as `-`. Text of
 *   tracked insertions (`w:ins`), fields (`w:fldSimple`) and smart tags is not included.
 *
 * @throws OfficeDocumentError when python-docx would fail to open the file.
 */
export function readDocxParagraphs(bytes: Uint8Array): string[] {
  const entries = unzip(bytes, 'the .docx file');
  const partBytes = (partName: string): Uint8Array | undefined => entries[partName.slice(1)];

  // [Content_Types].xml: defaults by extension and overrides by part name, both case-insensitive
  const contentTypes = parseRequired(entries, '[Content_Types].xml');
  const defaults = new Map<string, string>();
  const overrides = new Map<string, string>();
  for (const child of contentTypes.children) {
    if (typeof child === 'string' || child.uri !== CONTENT_TYPES_NS) continue;
    const contentType = child.attributes.get('ContentType') ?? '';
    if (child.local === 'Default') {
      defaults.set((child.attributes.get('Extension') ?? '').toLowerCase(), contentType);
    } else if (child.local === 'Override') {
      overrides.set((child.attributes.get('PartName') ?? '').toLowerCase(), contentType);
    }
  }
  const contentTypeOf = (partName: string): string => {
    const override = overrides.get(partName.toLowerCase());
    if (override !== undefined) return override;
    const extension = partName.slice(partName.lastIndexOf('.') + 1).toLowerCase();
    const fallback = partName.includes('.') ? defaults.get(extension) : undefined;
    if (fallback === undefined) {
      throw new OfficeDocumentError(`no content type for part ${partName}`);
    }
    return fallback;
  };

  const relationshipsOf = (partName: string): XmlElement[] => {
    const directory = partName.slice(0, partName.lastIndexOf('/'));
    const file = partName.slice(partName.lastIndexOf('/') + 1);
    const relsName = partName === '/' ? '/_rels/.rels' : `${directory}/_rels/${file}.rels`;
    const relsBytes = partBytes(relsName);
    if (relsBytes === undefined) return [];
    const { root } = parseXml(utf8.decode(relsBytes));
    if (root === undefined) return [];
    return childElements(root, RELATIONSHIPS_NS, 'Relationship');
  };

  // walk every part reachable from the package, as python-docx's package reader does
  const packageRelationships = relationshipsOf('/');
  const visited = new Set<string>();
  const walk = (sourcePartName: string, relationships: readonly XmlElement[]) => {
    const baseDirectory =
      sourcePartName === '/' ? '' : sourcePartName.slice(0, sourcePartName.lastIndexOf('/'));
    for (const relationship of relationships) {
      if (relationship.attributes.get('TargetMode') === 'External') continue;
      const partName = resolvePartName(baseDirectory, relationship.attributes.get('Target') ?? '');
      if (visited.has(partName)) continue;
      visited.add(partName);
      if (partBytes(partName) === undefined) {
        throw new OfficeDocumentError(
          `there is no item named '${partName.slice(1)}' in the archive`,
        );
      }
      contentTypeOf(partName);
      walk(partName, relationshipsOf(partName));
    }
  };
  walk('/', packageRelationships);

  const mainRelationships = packageRelationships.filter(
    relationship =>
      relationship.attributes.get('Type') === OFFICE_DOCUMENT_RELATIONSHIP &&
      relationship.attributes.get('TargetMode') !== 'External',
  );
  if (mainRelationships.length !== 1) {
    throw new OfficeDocumentError(
      mainRelationships.length === 0
        ? 'no officeDocument relationship in _rels/.rels'
        : 'multiple officeDocument relationships in _rels/.rels',
    );
  }
  const mainPartName = resolvePartName(
    '',
    (mainRelationships[0] as XmlElement).attributes.get('Target') ?? '',
  );
  const mainContentType = contentTypeOf(mainPartName);
  if (mainContentType !== WORD_MAIN_CONTENT_TYPE) {
    throw new OfficeDocumentError(`not a Word file, content type is '${mainContentType}'`);
  }

  const document = parseRequired(entries, mainPartName.slice(1));
  if (document.uri !== WORDPROCESSING_NS || document.local !== 'document') {
    throw new OfficeDocumentError('the main part is not a w:document');
  }
  const body = childElements(document, WORDPROCESSING_NS, 'body')[0];
  if (body === undefined) throw new OfficeDocumentError('the document has no w:body');
  return childElements(body, WORDPROCESSING_NS, 'p').map(docxParagraphText);
}

function docxRunText(run: XmlElement): string {
  let text = '';
  for (const child of run.children) {
    if (typeof child === 'string' || child.uri !== WORDPROCESSING_NS) continue;
    switch (child.local) {
      case 't':
        text += leadingText(child);
        break;
      case 'tab':
      case 'ptab':
        text += '\t';
        break;
      case 'cr':
        text += '\n';
        break;
      case 'br': {
        const type = child.attributes.get(`{${WORDPROCESSING_NS}}type`) ?? 'textWrapping';
        if (type === 'textWrapping') text += '\n';
        break;
      }
      case 'noBreakHyphen':
        text += '-';
        break;
      default:
        break;
    }
  }
  return text;
}

function docxParagraphText(paragraph: XmlElement): string {
  let text = '';
  for (const child of paragraph.children) {
    if (typeof child === 'string' || child.uri !== WORDPROCESSING_NS) continue;
    if (child.local === 'r') text += docxRunText(child);
    else if (child.local === 'hyperlink') {
      text += childElements(child, WORDPROCESSING_NS, 'r').map(docxRunText).join('');
    }
  }
  return text;
}

/** odfpy's `__fixXmlPart`: declares a few ODF prefixes a part uses without declaring them. */
function fixOdfXmlPart(xml: string): string {
  let result = xml;
  for (const prefix of ['meta', 'config', 'dc', 'style', 'svg', 'fo', 'draw', 'table', 'form']) {
    if (!xml.includes(` xmlns:${prefix}`)) {
      const position = result.indexOf(' xmlns:');
      if (position >= 0) {
        result = `${result.slice(0, position)} xmlns:${prefix}="urn:oasis:names:tc:opendocument:xmlns:${prefix}:1.0"${result.slice(position)}`;
      }
    }
  }
  return result;
}

/**
 * The paragraph texts upstream's `get_paragraph_texts_odt(odf.opendocument.load(path))` gives.
 *
 * - odfpy loads the parts the manifest lists, in the order settings, meta, content, styles; only
 *   the content of `office:body`, `office:master-styles`, `office:styles`,
 *   `office:automatic-styles`, `office:meta`, `office:scripts`, `office:settings` (and
 *   `office:font-face-decls` in styles.xml) is kept. A part whose XML breaks midway keeps what was
 *   read before the error (odfpy catches the SAX error).
 * - The paragraphs are every `text:p` in that load order: the body's, including those inside
 *   tables, frames and lists, then those of styles.xml (headers and footers). Headings (`text:h`)
 *   are not `text:p` and are left out.
 * - A paragraph's text joins its direct text and the direct text of its direct `text:span`
 *   children; `text:s`, `text:tab`, `text:line-break`, links and nested spans add nothing.
 *
 * @throws OfficeDocumentError when odfpy would fail to load the file.
 */
export function readOdtParagraphs(bytes: Uint8Array): string[] {
  const entries = unzip(bytes, 'the .odt file');
  const manifestBytes = entries['META-INF/manifest.xml'];
  if (manifestBytes === undefined) {
    throw new OfficeDocumentError("there is no item named 'META-INF/manifest.xml' in the archive");
  }
  const manifest = parseXml(utf8.decode(manifestBytes)).root;
  const listed = new Set<string>();
  if (manifest !== undefined) {
    for (const entry of descendants(
      manifest,
      element => element.uri === ODF_MANIFEST_NS && element.local === 'file-entry',
    )) {
      const path = entry.attributes.get(`{${ODF_MANIFEST_NS}}full-path`);
      if (path !== undefined) listed.add(path);
    }
  }
  const mimetypeBytes = entries['mimetype'];
  const mimetype =
    mimetypeBytes !== undefined
      ? utf8.decode(mimetypeBytes)
      : 'application/vnd.oasis.opendocument.text';

  const paragraphs: string[] = [];
  let hasBody = false;
  for (const part of ['settings.xml', 'meta.xml', 'content.xml', 'styles.xml']) {
    if (!listed.has(part)) continue;
    const partBytes = entries[part];
    if (partBytes === undefined) continue; // odfpy ignores the KeyError
    const { root } = parseXml(fixOdfXmlPart(utf8.decode(partBytes)), { keepPartial: true });
    if (root === undefined) continue;
    const triggers = new Set([
      'automatic-styles',
      'body',
      'master-styles',
      'meta',
      'scripts',
      'settings',
      'styles',
      ...(part === 'styles.xml' ? ['font-face-decls'] : []),
    ]);
    const visit = (element: XmlElement, inTrigger: boolean) => {
      for (const child of element.children) {
        if (typeof child === 'string') continue;
        const isTrigger = child.uri === ODF_OFFICE_NS && triggers.has(child.local);
        if (isTrigger && child.local === 'body') hasBody = true;
        const kept = inTrigger || isTrigger;
        if (kept && child.uri === ODF_TEXT_NS && child.local === 'p') {
          paragraphs.push(odtParagraphText(child));
        }
        visit(child, kept);
      }
    };
    visit(root, false);
  }
  if (!hasBody && mimetype.startsWith('application/vnd.oasis.opendocument.text')) {
    throw new OfficeDocumentError('the document has no office:body');
  }
  return paragraphs;
}

function odtParagraphText(paragraph: XmlElement): string {
  let text = '';
  for (const child of paragraph.children) {
    if (typeof child === 'string') text += child;
    else if (child.uri === ODF_TEXT_NS && child.local === 'span') {
      for (const grandchild of child.children) {
        if (typeof grandchild === 'string') text += grandchild;
      }
    }
  }
  return text;
}
