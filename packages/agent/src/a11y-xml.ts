/**
 * One element of the accessibility XML, read the way upstream reads it with lxml / ElementTree:
 * `tag` and attribute keys in Clark notation (`{namespace-uri}local`, or the plain name when the
 * name has no namespace), and `text` as ElementTree's `.text` — the character data before the
 * element's first child, `null` when there is none.
 */
export class A11yNode {
  /** @internal */
  constructor(
    readonly tag: string,
    /** The attributes as written: qualified names (`st:showing`, `name`) to decoded values. */
    readonly attributes: Readonly<Record<string, string>>,
    private readonly scope: NamespaceScope,
    /** ElementTree `.text`: the text before the first child element, or null. */
    public text: string | null,
    /** 0 for the root (`desktop-frame`). */
    readonly depth: number,
  ) {}

  /**
   * An attribute's value, like lxml's `node.get(key, fallback)`. `key` is the plain name (`name`,
   * `image`) or Clark notation `{uri}local`; a prefixed attribute is found through the namespace
   * declarations in scope, so a lookup under a URI the document does not use finds nothing.
   */
  get(key: string, fallback = ''): string {
    if (key.charCodeAt(0) !== 123 /* { */) return this.attributes[key] ?? fallback;
    for (const name of this.scope.qualifiedNames(key)) {
      const value = this.attributes[name];
      if (value !== undefined) return value;
    }
    return fallback;
  }
}

/** The namespace declarations in force at an element. */
class NamespaceScope {
  /** Clark key → the qualified names it is written as here (memoized: the filter asks millions). */
  private readonly names = new Map<string, readonly string[]>();
  readonly prefixesOf: ReadonlyMap<string, readonly string[]>;

  constructor(
    readonly uriOf: ReadonlyMap<string, string>,
    /** Default element namespace (`xmlns="…"`), if any. */
    readonly defaultUri: string | undefined,
  ) {
    const prefixesOf = new Map<string, string[]>();
    for (const [prefix, uri] of uriOf) {
      const list = prefixesOf.get(uri);
      if (list) list.push(prefix);
      else prefixesOf.set(uri, [prefix]);
    }
    this.prefixesOf = prefixesOf;
  }

  qualifiedNames(clarkKey: string): readonly string[] {
    let names = this.names.get(clarkKey);
    if (!names) {
      const close = clarkKey.indexOf('}');
      const local = clarkKey.slice(close + 1);
      names = (this.prefixesOf.get(clarkKey.slice(1, close)) ?? []).map(
        prefix => `${prefix}:${local}`,
      );
      this.names.set(clarkKey, names);
    }
    return names;
  }
}

const XML_URI = 'http://www.w3.org/XML/1998/namespace';
const ROOT_SCOPE = new NamespaceScope(new Map([['xml', XML_URI]]), undefined);

function childScope(parent: NamespaceScope, attributes: Record<string, string>): NamespaceScope {
  let uriOf: Map<string, string> | undefined;
  let defaultUri = parent.defaultUri;
  for (const name in attributes) {
    if (name === 'xmlns') defaultUri = attributes[name] || undefined;
    else if (name.startsWith('xmlns:')) {
      uriOf ??= new Map(parent.uriOf);
      uriOf.set(name.slice(6), attributes[name]!);
    }
  }
  if (!uriOf && defaultUri === parent.defaultUri) return parent;
  return new NamespaceScope(uriOf ?? parent.uriOf, defaultUri);
}

function clarkTag(name: string, scope: NamespaceScope): string {
  const colon = name.indexOf(':');
  if (colon < 0) return scope.defaultUri ? `{${scope.defaultUri}}${name}` : name;
  const uri = scope.uriOf.get(name.slice(0, colon));
  return uri ? `{${uri}}${name.slice(colon + 1)}` : name;
}

/**
 * A parsed accessibility tree: every element in document order (pre-order, the root first), as
 * ElementTree's `root.iter()` yields them. Parse once and pass it to the filter, the linearizer and
 * the Set-of-Marks tagger instead of the XML text to avoid parsing twice.
 */
export interface ParsedAccessibilityTree {
  readonly nodes: readonly A11yNode[];
}

const ENTITY = /&(?:#[xX]([0-9a-fA-F]+)|#(\d+)|(amp|lt|gt|quot|apos));/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Replaces the five XML entities and character references; anything else is left as written. */
function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (whole, hex?: string, decimal?: string, name?: string) => {
    if (name) return NAMED[name]!;
    const code = hex ? Number.parseInt(hex, 16) : Number(decimal);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** Character data as an XML parser reports it: line ends normalized, entities decoded. */
const decodeText = (raw: string) =>
  decodeEntities(raw.includes('\r') ? raw.replace(/\r\n?/g, '\n') : raw);

/** An attribute value as an XML parser reports it: literal whitespace normalized to spaces. */
function decodeAttribute(raw: string): string {
  const plain =
    raw.indexOf('&') < 0 && raw.indexOf('\n') < 0 && raw.indexOf('\t') < 0 && raw.indexOf('\r') < 0;
  return plain ? raw : decodeEntities(raw.replace(/\r\n|[\t\n\r]/g, ' '));
}

const isSpace = (code: number) => code === 32 || code === 10 || code === 9 || code === 13;

/**
 * Parses the accessibility XML of the in-VM server's `/accessibility` endpoint into its elements
 * in document order, namespaces resolved.
 *
 * A scanner for the XML that lxml writes (elements, attributes in single or double quotes, the five
 * entities and character references, CDATA, comments, processing instructions, a doctype), about
 * six times faster than htmlparser2, saxes or fast-xml-parser on attribute-heavy trees: a desktop's
 * tree is often a megabyte, and the agent parses one every step (bench/agent-bench.ts). The tests
 * check it against htmlparser2's XML mode. It is lenient, as the agent must be: broken markup gives
 * the elements read before it instead of an exception.
 */
export function parseAccessibilityTree(xml: string): ParsedAccessibilityTree {
  const nodes: A11yNode[] = [];
  // Open elements: the node, its raw name (to match end tags), its scope, and whether a child
  // element has started (ElementTree's `.text` stops at the first child).
  const stack: { node: A11yNode; name: string; scope: NamespaceScope; hadChild: boolean }[] = [];
  const length = xml.length;
  const addText = (text: string) => {
    const top = stack[stack.length - 1];
    if (top && !top.hadChild && text !== '') top.node.text = (top.node.text ?? '') + text;
  };
  const wantsText = () => {
    const top = stack[stack.length - 1];
    return top !== undefined && !top.hadChild;
  };
  let at = 0;
  while (at < length) {
    const open = xml.indexOf('<', at);
    if (open < 0) {
      if (wantsText()) addText(decodeText(xml.slice(at)));
      break;
    }
    if (open > at && wantsText()) addText(decodeText(xml.slice(at, open)));
    const next = xml.charCodeAt(open + 1);
    if (next === 47 /* / */) {
      const close = xml.indexOf('>', open);
      if (close < 0) break;
      const name = xml.slice(open + 2, close).trim();
      // Pop to the matching element; an end tag that matches nothing open is ignored.
      for (let depth = stack.length - 1; depth >= 0; depth -= 1) {
        if (stack[depth]!.name === name) {
          stack.length = depth;
          break;
        }
      }
      at = close + 1;
      continue;
    }
    if (next === 33 /* ! */) {
      if (xml.startsWith('<!--', open)) {
        const end = xml.indexOf('-->', open + 4);
        if (end < 0) break;
        at = end + 3;
      } else if (xml.startsWith('<![CDATA[', open)) {
        const end = xml.indexOf(']]>', open + 9);
        if (end < 0) break;
        addText(xml.slice(open + 9, end));
        at = end + 3;
      } else {
        // A doctype, possibly with an internal subset in brackets.
        const bracket = xml.indexOf('[', open);
        const close = xml.indexOf('>', open);
        if (close < 0) break;
        const end = bracket >= 0 && bracket < close ? xml.indexOf(']>', bracket) : close - 1;
        if (end < 0) break;
        at = (bracket >= 0 && bracket < close ? end + 1 : close) + 1;
      }
      continue;
    }
    if (next === 63 /* ? */) {
      const end = xml.indexOf('?>', open + 2);
      if (end < 0) break;
      at = end + 2;
      continue;
    }

    // A start tag: its name, then attributes up to `>` or `/>`.
    let cursor = open + 1;
    while (cursor < length) {
      const code = xml.charCodeAt(cursor);
      if (isSpace(code) || code === 62 /* > */ || code === 47 /* / */) break;
      cursor += 1;
    }
    const name = xml.slice(open + 1, cursor);
    const attributes: Record<string, string> = {};
    let declaresNamespace = false;
    let selfClosing = false;
    let closed = false;
    while (cursor < length) {
      let code = xml.charCodeAt(cursor);
      if (isSpace(code)) {
        cursor += 1;
        continue;
      }
      if (code === 62) {
        closed = true;
        cursor += 1;
        break;
      }
      if (code === 47) {
        selfClosing = true;
        closed = xml.charCodeAt(cursor + 1) === 62;
        cursor += 2;
        break;
      }
      const nameStart = cursor;
      while (cursor < length) {
        code = xml.charCodeAt(cursor);
        if (code === 61 /* = */ || isSpace(code) || code === 62 || code === 47) break;
        cursor += 1;
      }
      const attributeName = xml.slice(nameStart, cursor);
      while (cursor < length && isSpace(xml.charCodeAt(cursor))) cursor += 1;
      let value = '';
      if (xml.charCodeAt(cursor) === 61) {
        cursor += 1;
        while (cursor < length && isSpace(xml.charCodeAt(cursor))) cursor += 1;
        const quote = xml[cursor];
        if (quote === '"' || quote === "'") {
          const end = xml.indexOf(quote, cursor + 1);
          if (end < 0) {
            cursor = length;
            break;
          }
          value = decodeAttribute(xml.slice(cursor + 1, end));
          cursor = end + 1;
        } else {
          // Not XML (unquoted), read leniently up to a space or the tag's end.
          const valueStart = cursor;
          while (cursor < length) {
            code = xml.charCodeAt(cursor);
            if (isSpace(code) || code === 62) break;
            cursor += 1;
          }
          value = decodeAttribute(xml.slice(valueStart, cursor));
        }
      }
      if (attributeName === '') {
        cursor += 1; // a stray character: skip it
        continue;
      }
      if (attributeName.startsWith('xmlns')) declaresNamespace = true;
      attributes[attributeName] = value;
    }
    if (!closed) break; // the document ends inside the tag

    const parent = stack[stack.length - 1];
    if (parent) parent.hadChild = true;
    const parentScope = parent?.scope ?? ROOT_SCOPE;
    const scope = declaresNamespace ? childScope(parentScope, attributes) : parentScope;
    const node = new A11yNode(clarkTag(name, scope), attributes, scope, null, stack.length);
    nodes.push(node);
    if (!selfClosing) stack.push({ node, name, scope, hadChild: false });
    at = cursor;
  }
  return { nodes };
}

/** Accepts XML text or an already parsed tree. */
export function toParsedTree(tree: string | ParsedAccessibilityTree): ParsedAccessibilityTree {
  return typeof tree === 'string' ? parseAccessibilityTree(tree) : tree;
}
