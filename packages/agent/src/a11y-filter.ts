import { a11yNamespaces, type A11yPlatform } from './a11y-namespaces';
import { toParsedTree, type A11yNode, type ParsedAccessibilityTree } from './a11y-xml';

/** Options of {@link filterAccessibilityNodes}. */
export interface A11yFilterOptions {
  /** Whose namespaces and visibility rule apply. @default 'ubuntu' */
  readonly platform?: A11yPlatform;
  /**
   * Set-of-Marks selection: a node with `image="true"` is kept even without a name or text
   * (rule 4). @default false
   */
  readonly forSom?: boolean;
}

const KEPT_TAG_SUFFIXES = [
  'item',
  'button',
  'heading',
  'label',
  'scrollbar',
  'searchbox',
  'textbox',
  'link',
  'tabelement',
  'textfield',
  'textarea',
  'menu',
] as const;

const KEPT_TAGS: ReadonlySet<string> = new Set([
  'alert',
  'canvas',
  'check-box',
  'combo-box',
  'entry',
  'icon',
  'image',
  'paragraph',
  'scroll-bar',
  'section',
  'slider',
  'static',
  'table-cell',
  'terminal',
  'text',
  'netuiribbontab',
  'start',
  'trayclockwclass',
  'traydummysearchcontrol',
  'uiimage',
  'uiproperty',
  'uiribboncommandbar',
]);

/** Rule 1: the node's role is one a user can see or act on. */
export function isKeptTag(tag: string): boolean {
  return (
    tag.startsWith('document') ||
    KEPT_TAG_SUFFIXES.some(suffix => tag.endsWith(suffix)) ||
    KEPT_TAGS.has(tag)
  );
}

const PAIR = /^\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)$/;

/**
 * Parses a `"(x, y)"` / `"(w, h)"` attribute. Upstream `eval`s the string; anything that is not a
 * pair of integers (or a missing attribute) counts as upstream's default `(-1, -1)`.
 */
export function parsePair(value: string): [number, number] {
  const match = PAIR.exec(value);
  return match ? [Number(match[1]), Number(match[2])] : [-1, -1];
}

/** Builds the predicate once per platform (the namespace keys are fixed strings). */
function nodeJudge(platform: A11yPlatform, forSom: boolean): (node: A11yNode) => boolean {
  const ns = a11yNamespaces(platform);
  const state = (name: string) => `{${ns.state}}${name}`;
  const showing = state('showing');
  const visible = state('visible');
  const enabled = state('enabled');
  const editable = state('editable');
  const expandable = state('expandable');
  const checkable = state('checkable');
  const screencoord = `{${ns.component}}screencoord`;
  const size = `{${ns.component}}size`;
  return node => {
    if (!isKeptTag(node.tag)) return false;
    // Rule 2: on screen. Windows only reports `visible`.
    if (platform === 'ubuntu' && node.get(showing, 'false') !== 'true') return false;
    if (node.get(visible, 'false') !== 'true') return false;
    // Rule 3: the user can do something with it.
    if (
      node.get(enabled, 'false') !== 'true' &&
      node.get(editable, 'false') !== 'true' &&
      node.get(expandable, 'false') !== 'true' &&
      node.get(checkable, 'false') !== 'true'
    )
      return false;
    // Rule 4: something to call it by (or, for Set-of-Marks, an image).
    if (
      node.get('name') === '' &&
      !(node.text !== null && node.text.length > 0) &&
      !(forSom && node.get('image', 'false') === 'true')
    )
      return false;
    // Rule 5: a real box on the screen.
    const [x, y] = parsePair(node.get(screencoord, '(-1, -1)'));
    const [width, height] = parsePair(node.get(size, '(-1, -1)'));
    return x >= 0 && y >= 0 && width > 0 && height > 0;
  };
}

/**
 * The nodes of an accessibility tree a model is shown, in document order — upstream's
 * `filter_nodes` (reference osworld-harness.md §5). A node is kept iff
 * 1. its tag starts with `document`, ends with a kept suffix (`button`, `item`, `label`, …) or is a
 *    kept role (`paragraph`, `table-cell`, `text`, …);
 * 2. it is showing and visible (Windows: visible);
 * 3. it is enabled, editable, expandable or checkable;
 * 4. it has a name or text (or, with `forSom`, `image="true"`);
 * 5. its position is ≥ 0 and its size > 0.
 */
export function filterAccessibilityNodes(
  tree: string | ParsedAccessibilityTree,
  { platform = 'ubuntu', forSom = false }: A11yFilterOptions = {},
): A11yNode[] {
  const judge = nodeJudge(platform, forSom);
  return toParsedTree(tree).nodes.filter(judge);
}
