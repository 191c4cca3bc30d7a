import { SaxesParser } from 'saxes';

/** An element of a namespace-resolved XML tree. */
export interface XmlElement {
  readonly kind: 'element';
  /** Namespace URI ('' when none). */
  readonly uri: string;
  /** Local name. */
  readonly local: string;
  /** Attributes by `{uri}local` (`local` alone when the attribute has no namespace). */
  readonly attributes: ReadonlyMap<string, string>;
  readonly children: XmlNode[];
}

/** A child node: an element or a run of character data (CDATA merged in, as lxml and SAX do). */
type XmlNode = XmlElement | string;

/** The result of {@link parseXml}. */
export interface ParsedXml {
  /** The document element, or undefined when the text had none (or failed before it). */
  readonly root: XmlElement | undefined;
  /** The well-formedness error, when `keepPartial` let parsing stop early instead of throwing. */
  readonly error: Error | undefined;
}

/**
 * Parses XML (strict well-formedness, namespaces resolved, line endings normalized as XML requires).
 * With `keepPartial`, a well-formedness error returns the tree built so far (what odfpy's SAX loader
 * keeps when its parser fails midway) instead of throwing.
 *
 * @throws Error on malformed XML unless `keepPartial` is set.
 */
export function parseXml(text: string, options: { keepPartial?: boolean } = {}): ParsedXml {
  const parser = new SaxesParser({ xmlns: true, position: true });
  let root: XmlElement | undefined;
  const stack: XmlElement[] = [];
  const appendText = (data: string) => {
    const parent = stack[stack.length - 1];
    if (parent === undefined || data === '') return;
    const last = parent.children[parent.children.length - 1];
    if (typeof last === 'string') parent.children[parent.children.length - 1] = last + data;
    else parent.children.push(data);
  };
  parser.on('opentag', tag => {
    const attributes = new Map<string, string>();
    for (const attribute of Object.values(tag.attributes)) {
      const key = attribute.uri ? `{${attribute.uri}}${attribute.local}` : attribute.local;
      attributes.set(key, attribute.value);
    }
    const element: XmlElement = {
      kind: 'element',
      uri: tag.uri ?? '',
      local: tag.local ?? tag.name,
      attributes,
      children: [],
    };
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(element);
    else root ??= element;
    stack.push(element);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.on('text', appendText);
  parser.on('cdata', appendText);
  let failure: Error | undefined;
  parser.on('error', error => {
    throw error;
  });
  try {
    parser.write(text).close();
  } catch (error) {
    if (!options.keepPartial) throw error;
    failure = error instanceof Error ? error : new Error(String(error));
  }
  return { root, error: failure };
}

/** The element children of `element` with this namespace and local name, in document order. */
export function childElements(element: XmlElement, uri: string, local: string): XmlElement[] {
  return element.children.filter(
    (child): child is XmlElement =>
      typeof child !== 'string' && child.uri === uri && child.local === local,
  );
}

/** lxml's `element.text`: the character data before the first child element. */
export function leadingText(element: XmlElement): string {
  const first = element.children[0];
  return typeof first === 'string' ? first : '';
}

/** Every descendant element (document order, pre-order) matching `predicate`. */
export function descendants(
  element: XmlElement,
  predicate: (candidate: XmlElement) => boolean,
): XmlElement[] {
  const found: XmlElement[] = [];
  const visit = (node: XmlElement) => {
    for (const child of node.children) {
      if (typeof child === 'string') continue;
      if (predicate(child)) found.push(child);
      visit(child);
    }
  };
  visit(element);
  return found;
}
