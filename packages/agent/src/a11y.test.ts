import { getEncoding } from 'js-tiktoken';
import { describe, expect, it } from 'vitest';
import {
  compact,
  DESKTOP_KEPT,
  DESKTOP_XML,
  UBUNTU_NAMESPACES,
} from './__fixtures__/a11y-fixtures';
import { filterAccessibilityNodes, isKeptTag, parsePair } from './a11y-filter';
import { A11Y_TABLE_HEADER, linearizeAccessibilityTree } from './a11y-linearize';
import { countTokens, encodeTokens, TRIM_MARKER, trimToTokens } from './a11y-trim';
import { parseAccessibilityTree } from './a11y-xml';

const describeNode = (node: { tag: string; get(key: string): string }) =>
  `${node.tag} ${node.get('name')}`;

describe('parseAccessibilityTree', () => {
  it('reads elements in document order with ElementTree .text semantics', () => {
    const { nodes } = parseAccessibilityTree(DESKTOP_XML);
    expect(nodes[0]!.tag).toBe('desktop-frame');
    expect(nodes[0]!.depth).toBe(0);
    const section = nodes.find(node => node.tag === 'section')!;
    // Text stops at the first child; the text after the child is the child's tail, not ours.
    expect(section.text).toBe('Intro text');
    const button = nodes.find(node => node.get('name') === 'Accept <all>')!;
    expect(button.text).toBeNull();
    expect(nodes.find(node => node.tag === 'paragraph')!.text).toBe(
      'This domain is for use in examples; see "RFC 2606" & don\'t ask.',
    );
  });

  it('resolves attributes by namespace URI, whatever the prefix', () => {
    const xml = compact(`
      <desktop-frame xmlns:s="https://accessibility.ubuntu.example.org/ns/state" xmlns:c="https://accessibility.ubuntu.example.org/ns/component">
        <push-button name="OK" s:enabled="true" s:showing="true" s:visible="true" c:screencoord="(1, 2)" c:size="(3, 4)"/>
      </desktop-frame>`);
    expect(filterAccessibilityNodes(xml).map(describeNode)).toEqual(['push-button OK']);
    const node = parseAccessibilityTree(xml).nodes[1]!;
    expect(node.get('{https://accessibility.ubuntu.example.org/ns/state}enabled')).toBe('true');
    expect(node.get('{https://accessibility.windows.example.org/ns/state}enabled', 'none')).toBe(
      'none',
    );
    expect(node.get('s:enabled')).toBe('true'); // the raw qualified name, as written
  });

  it('tolerates broken markup (no exception, the readable elements)', () => {
    const nodes = parseAccessibilityTree(
      `<desktop-frame ${UBUNTU_NAMESPACES}><label name="a">x`,
    ).nodes;
    expect(nodes.map(node => node.tag)).toEqual(['desktop-frame', 'label']);
  });
});

describe('filterAccessibilityNodes', () => {
  it('keeps the nodes passing all five rules, in document order', () => {
    expect(filterAccessibilityNodes(DESKTOP_XML).map(describeNode)).toEqual(DESKTOP_KEPT);
  });

  it('drops a node for each rule it fails', () => {
    const kept = new Set(filterAccessibilityNodes(DESKTOP_XML).map(node => node.get('name')));
    for (const name of [
      'rule1-page-tab',
      'rule1-filler',
      'Top Bar', // panel: rule 1
      'rule2-not-showing',
      'rule2-not-visible',
      'rule3-not-actionable',
      'rule5-negative-x',
      'rule5-zero-width',
      'rule5-no-position',
    ])
      expect(kept.has(name), name).toBe(false);
    // Rule 4: the empty label and the image have neither name nor text.
    const tags = filterAccessibilityNodes(DESKTOP_XML).map(node => node.tag);
    expect(tags.filter(tag => tag === 'label')).toHaveLength(1);
    expect(tags).not.toContain('image');
  });

  it('keeps image nodes without name or text for Set-of-Marks', () => {
    const som = filterAccessibilityNodes(DESKTOP_XML, { forSom: true });
    expect(som.map(node => node.tag)).toContain('image');
    expect(som).toHaveLength(DESKTOP_KEPT.length + 1);
  });

  it('checks only `visible` on Windows', () => {
    const xml = compact(`
      <desktop xmlns:st="https://accessibility.windows.example.org/ns/state" xmlns:cp="https://accessibility.windows.example.org/ns/component">
        <button name="Start" st:enabled="true" st:visible="true" cp:screencoord="(0, 1040)" cp:size="(48, 40)"/>
      </desktop>`);
    expect(filterAccessibilityNodes(xml, { platform: 'windows' }).map(describeNode)).toEqual([
      'button Start',
    ]);
    expect(filterAccessibilityNodes(xml, { platform: 'ubuntu' })).toEqual([]);
  });

  it('classifies tags as upstream', () => {
    expect(isKeptTag('document-spreadsheet')).toBe(true);
    expect(isKeptTag('menu-item')).toBe(true);
    expect(isKeptTag('toggle-button')).toBe(true);
    expect(isKeptTag('page-tab')).toBe(false);
    expect(isKeptTag('panel')).toBe(false);
    expect(parsePair('(12, -3)')).toEqual([12, -3]);
    expect(parsePair('garbage')).toEqual([-1, -1]);
  });
});

describe('linearizeAccessibilityTree', () => {
  it('writes the header and one row per kept node (class/description empty on Ubuntu)', () => {
    expect(linearizeAccessibilityTree(DESKTOP_XML)).toBe(
      [
        A11Y_TABLE_HEADER,
        'push-button\tActivities\t""\t\t\t(0, 0)\t(100, 32)',
        'label\t\tNov 21  09:41\t\t\t(900, 6)\t(120, 20)',
        'entry\tAddress and search bar\texample.com\t\t\t(200, 80)\t(1400, 28)',
        'document-web\tExample Domain\t""\t\t\t(70, 112)\t(1850, 968)',
        'heading\tExample Domain\t""\t\t\t(600, 200)\t(700, 48)',
        'paragraph\t\t"This domain is for use in examples; see ""RFC 2606"" & don\'t ask."\t\t\t(600, 270)\t(700, 60)',
        'link\tMore information...\t""\t\t\t(600, 340)\t(180, 22)',
        'static\t\tMore information...\t\t\t(600, 340)\t(180, 22)',
        'section\t\tIntro text\t\t\t(600, 400)\t(700, 200)',
        'push-button\tAccept <all>\t""\t\t\t(610, 410)\t(120, 30)',
        'table-cell\t\tA1\t\t\t(600, 700)\t(80, 20)',
        'table-cell\t\t"""quoted"""\t\t\t(680, 700)\t(80, 20)',
        'check-box\tRemember me\t""\t\t\t(520, 340)\t(20, 20)',
        'combo-box\tFont\t""\t\t\t(520, 380)\t(200, 30)',
        'toggle-button\tDark mode\t""\t\t\t(520, 420)\t(60, 30)',
        'slider\tVolume\t""\t\t\t(520, 460)\t(300, 20)',
        'menu\tEdit\t""\t\t\t(520, 540)\t(50, 20)',
      ].join('\n'),
    );
  });

  it('fills class and description from the real namespace when asked', () => {
    const rows = linearizeAccessibilityTree(DESKTOP_XML, { fillClassAndDescription: true }).split(
      '\n',
    );
    expect(rows).toContain(
      'entry\tAddress and search bar\texample.com\tOmniboxViewViews\t\t(200, 80)\t(1400, 28)',
    );
    expect(rows).toContain(
      'document-web\tExample Domain\t""\tbody\tThe page\t(70, 112)\t(1850, 968)',
    );
  });

  it('reads class from the Windows attributes URL on Ubuntu, as upstream does', () => {
    const xml = compact(`
      <desktop-frame ${UBUNTU_NAMESPACES} xmlns:wattr="https://accessibility.windows.example.org/ns/attributes">
        <push-button name="OK" wattr:class="GtkButton" wattr:description="Confirms" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(1, 2)" cp:size="(3, 4)"/>
      </desktop-frame>`);
    expect(linearizeAccessibilityTree(xml).split('\n')[1]).toBe(
      'push-button\tOK\t""\tGtkButton\tConfirms\t(1, 2)\t(3, 4)',
    );
  });

  it('uses the value of a Windows edit control without text', () => {
    const xml = compact(`
      <desktop xmlns:st="https://accessibility.windows.example.org/ns/state" xmlns:cp="https://accessibility.windows.example.org/ns/component" xmlns:val="https://accessibility.windows.example.org/ns/value" xmlns:class="https://accessibility.windows.example.org/ns/class">
        <edit name="Name" class:class="UIA.EditWrapper" val:value='say "hi"' st:enabled="true" st:visible="true" cp:screencoord="(5, 5)" cp:size="(100, 20)"/>
      </desktop>`);
    // `edit` is not a kept role (rule 1); as a `textbox` the same node reaches the value rule.
    expect(linearizeAccessibilityTree(xml, { platform: 'windows' }).split('\n')).toHaveLength(1);
    const kept = xml.replaceAll('<edit ', '<textbox ');
    expect(linearizeAccessibilityTree(kept, { platform: 'windows' }).split('\n')[1]).toBe(
      'textbox\tName\t"say ""hi"""\tUIA.EditWrapper\t\t(5, 5)\t(100, 20)',
    );
  });

  it('is only the header for a tree with nothing to show', () => {
    expect(linearizeAccessibilityTree(`<desktop-frame ${UBUNTU_NAMESPACES}/>`)).toBe(
      A11Y_TABLE_HEADER,
    );
  });
});

describe('trimToTokens', () => {
  const tiktoken = getEncoding('cl100k_base');
  const longTable = [
    A11Y_TABLE_HEADER,
    ...Array.from(
      { length: 800 },
      (_, index) =>
        `push-button\tButton ${index} — «Größe» 日本語\t"say ""hi"" ${index}"\t\t\t(${index}, ${index * 2})\t(30, 20)`,
    ),
  ].join('\n');

  it('encodes exactly as tiktoken cl100k_base (gpt-4)', () => {
    for (const text of [
      longTable,
      'hello world',
      '  leading\tand\ttabs\n',
      '🙂 emoji 日本語 ÄÖÜ',
    ]) {
      expect(encodeTokens(text)).toEqual(tiktoken.encode(text));
    }
  });

  it('cuts to maxTokens and appends [...]\\n', () => {
    const total = countTokens(longTable);
    expect(total).toBeGreaterThan(10_000);
    const trimmed = trimToTokens(longTable);
    expect(trimmed.endsWith(TRIM_MARKER)).toBe(true);
    const body = trimmed.slice(0, -TRIM_MARKER.length);
    expect(longTable.startsWith(body.replace(/\uFFFD+$/, ''))).toBe(true);
    // The kept prefix is the decoding of the first 10,000 tokens: re-encoding it gives ~10,000.
    expect(Math.abs(tiktoken.encode(body).length - 10_000)).toBeLessThanOrEqual(2);
    expect(tiktoken.decode(tiktoken.encode(longTable).slice(0, 10_000))).toBe(body);
  });

  it('leaves a text within the budget unchanged', () => {
    expect(trimToTokens('short table', 10)).toBe('short table');
    const exact = 'a b c d e';
    expect(trimToTokens(exact, countTokens(exact))).toBe(exact);
    expect(trimToTokens(exact, 2)).toBe(
      `${tiktoken.decode(tiktoken.encode(exact).slice(0, 2))}[...]\n`,
    );
  });

  it('treats special-token look-alikes as text', () => {
    const text = 'before <|endoftext|> after';
    expect(encodeTokens(text)).toEqual(tiktoken.encode(text, [], []));
    expect(trimToTokens(text, 100)).toBe(text);
  });
});
