import { filterAccessibilityNodes } from './a11y-filter';
import { a11yNamespaces, type A11yNamespaces, type A11yPlatform } from './a11y-namespaces';
import { toParsedTree, type A11yNode, type ParsedAccessibilityTree } from './a11y-xml';

/** The header of the linearized accessibility table (a format: upstream traces carry it verbatim). */
export const A11Y_TABLE_HEADER =
  'tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)';

/** Options of {@link linearizeAccessibilityTree}. */
export interface LinearizeOptions {
  /** @default 'ubuntu' */
  readonly platform?: A11yPlatform;
  /**
   * Fill the `class` and `description` columns on Ubuntu from the namespace the server really
   * writes. Upstream looks them up under the Windows URL, so its tables always have them empty;
   * osharm keeps that by default for comparability with recorded traces and published numbers.
   * @default false
   */
  readonly fillClassAndDescription?: boolean;
}

/** `"…"` with inner quotes doubled when the value contains `"`; the value itself otherwise. */
function quoteCell(value: string): string {
  return value.includes('"') ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * The `text` cell of a node as upstream writes it: the node text (quoted when it contains `"`);
 * for a Windows edit control without text, its value; otherwise the two characters `""`.
 */
export function a11yTextCell(node: A11yNode, ns: A11yNamespaces): string {
  if (node.text) return quoteCell(node.text);
  const value = node.get(`{${ns.value}}value`);
  if (node.get(`{${ns.windowsClass}}class`).endsWith('EditWrapper') && value)
    return quoteCell(value);
  return '""';
}

/**
 * The accessibility table a model is shown: {@link A11Y_TABLE_HEADER}, then one tab-separated row
 * per node kept by {@link filterAccessibilityNodes}, in document order — `tag`, `name`, `text`
 * (see {@link a11yTextCell}), `class`, `description`, and the raw `"(x, y)"` / `"(w, h)"` strings.
 * Not trimmed: see {@link trimToTokens}.
 */
export function linearizeAccessibilityTree(
  tree: string | ParsedAccessibilityTree,
  { platform = 'ubuntu', fillClassAndDescription = false }: LinearizeOptions = {},
): string {
  const ns = a11yNamespaces(platform, { fillClassAndDescription });
  const classKey = platform === 'ubuntu' ? `{${ns.attributes}}class` : `{${ns.windowsClass}}class`;
  const descriptionKey = `{${ns.attributes}}description`;
  const screencoordKey = `{${ns.component}}screencoord`;
  const sizeKey = `{${ns.component}}size`;
  const rows = [A11Y_TABLE_HEADER];
  for (const node of filterAccessibilityNodes(toParsedTree(tree), { platform })) {
    rows.push(
      `${node.tag}\t${node.get('name')}\t${a11yTextCell(node, ns)}\t${node.get(classKey)}\t` +
        `${node.get(descriptionKey)}\t${node.get(screencoordKey)}\t${node.get(sizeKey)}`,
    );
  }
  return rows.join('\n');
}
