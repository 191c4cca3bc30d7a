// A generated accessibility XML the size of a real desktop's, for the benchmark and the parser's
// differential test. Same shape as the server's output (reference osworld-harness.md §1.3).

const PREFIXES = {
  st: 'state',
  attr: 'attributes',
  cp: 'component',
  doc: 'document',
  txt: 'text',
  val: 'value',
  act: 'action',
};
const ROOT_NAMESPACES = Object.entries(PREFIXES)
  .map(([prefix, name]) => `xmlns:${prefix}="https://accessibility.ubuntu.example.org/ns/${name}"`)
  .join(' ');

/**
 * A desktop's accessibility XML as the server writes it: applications with deep trees of frames,
 * panels and fillers; leaves (buttons, labels, menu items, table cells, paragraphs, links) carrying
 * the usual states, attributes and actions; and for every leaf two hidden ones (closed menus,
 * scrolled-out rows) the filter drops, so about one element in four becomes a table row. `rows`
 * sets the size.
 */
export function desktopXml(rows: number): string {
  const roles = [
    'push-button',
    'label',
    'menu-item',
    'table-cell',
    'paragraph',
    'link',
    'text',
    'check-box',
  ];
  const words = [
    'Documents',
    'report',
    'Settings',
    'Inbox',
    'Compose',
    'Reply',
    'Archive',
    'Downloads',
    'quarterly',
    'budget',
  ];
  let index = 0;
  const element = (tag: string, attributes: string, inner: string) =>
    `<${tag} ${attributes}>${inner}</${tag}>`;
  const states = (showing: boolean) =>
    'st:enabled="true" st:sensitive="true" st:focusable="true" st:selectable="true"' +
    (showing ? ' st:showing="true" st:visible="true"' : ' st:visible="true"');
  const box = (x: number, y: number, w: number, h: number) =>
    ` cp:screencoord="(${x}, ${y})" cp:size="(${w}, ${h})"`;
  const leaf = (showing: boolean) => {
    const n = index++;
    const role = roles[n % roles.length]!;
    const name = n % 4 === 0 ? '' : `${words[n % words.length]} ${n}`;
    const text =
      n % 5 === 0
        ? `Row ${n}: ${words[(n * 7) % words.length]} "draft" ${n * 13}`
        : n % 4 === 0
          ? words[n % words.length]!
          : '';
    const attributes =
      `name="${name}" attr:toolkit="gtk" attr:id="widget-${n}" attr:class="cls-${n % 17}" ${states(showing)}` +
      ` act:click_desc="Clicks the ${role}" act:click_kb=""` +
      (showing ? box((n * 37) % 1880, 40 + ((n * 53) % 1000), 40 + (n % 200), 18 + (n % 12)) : '');
    return element(role, attributes, text.replaceAll('"', '&quot;'));
  };
  const container = (tag: string, children: string, showing = true) =>
    element(
      tag,
      `name="" attr:toolkit="gtk" ${states(showing)}${showing ? box(0, 0, 1920, 1080) : ''}`,
      children,
    );
  const applications: string[] = [];
  let produced = 0;
  while (produced < rows) {
    const panels: string[] = [];
    for (let panel = 0; panel < 6 && produced < rows; panel += 1) {
      const fillers: string[] = [];
      for (let filler = 0; filler < 5 && produced < rows; filler += 1) {
        const leaves: string[] = [];
        for (let count = 0; count < 12 && produced < rows; count += 1, produced += 1) {
          leaves.push(leaf(true));
          leaves.push(container('menu', leaf(false) + leaf(false), false));
        }
        fillers.push(container('filler', leaves.join('')));
      }
      panels.push(container('panel', fillers.join('')));
    }
    applications.push(
      element(
        'application',
        `name="app ${applications.length}"`,
        container('frame', panels.join('')),
      ),
    );
  }
  return `<desktop-frame ${ROOT_NAMESPACES} name="main"${box(0, 0, 1920, 1080)}>${applications.join('')}</desktop-frame>`;
}
