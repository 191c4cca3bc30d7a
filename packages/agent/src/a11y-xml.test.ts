import { Parser } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { DESKTOP_XML, UBUNTU_NAMESPACES } from './__fixtures__/a11y-fixtures';
import { desktopXml } from './__fixtures__/desktop-xml';
import { parseAccessibilityTree } from './a11y-xml';

interface Element {
  name: string;
  attributes: Record<string, string>;
  text: string | null;
  depth: number;
}

/** The same reading done with htmlparser2's XML mode (the oracle). */
function readWithHtmlparser2(xml: string): Element[] {
  const elements: Element[] = [];
  const stack: { element: Element; hadChild: boolean }[] = [];
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        const parent = stack.at(-1);
        if (parent) parent.hadChild = true;
        const element = { name, attributes: { ...attributes }, text: null, depth: stack.length };
        elements.push(element);
        stack.push({ element, hadChild: false });
      },
      ontext(text) {
        const top = stack.at(-1);
        if (top && !top.hadChild) top.element.text = (top.element.text ?? '') + text;
      },
      onclosetag() {
        stack.pop();
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(xml);
  return elements;
}

function readWithScanner(xml: string): Element[] {
  return parseAccessibilityTree(xml).nodes.map(node => ({
    name: node.tag,
    attributes: { ...node.attributes },
    text: node.text,
    depth: node.depth,
  }));
}

describe('parseAccessibilityTree against htmlparser2', () => {
  it('reads the hand-written desktop identically', () => {
    expect(readWithScanner(DESKTOP_XML)).toEqual(readWithHtmlparser2(DESKTOP_XML));
  });

  it('reads a generated desktop-sized tree identically', () => {
    const xml = desktopXml(600);
    const elements = readWithScanner(xml);
    expect(elements.length).toBeGreaterThan(2000);
    expect(elements).toEqual(readWithHtmlparser2(xml));
  });

  it('reads declarations, comments, CDATA, quotes and references identically', () => {
    const xml =
      `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE desktop-frame>` +
      `<desktop-frame ${UBUNTU_NAMESPACES}><!-- the shell -->` +
      `<label name='single &apos;quoted&apos;' st:showing = "true">a &lt;b&gt; &#233;&#x263A; 日本語</label>` +
      `<text name="cdata"><![CDATA[x < y & "z"]]> and more</text>` +
      `<push-button name="self" st:enabled="true"/><?pi data?>` +
      `<paragraph name="&amp;amp;">&unknown; stays</paragraph></desktop-frame>`;
    const elements = readWithScanner(xml);
    expect(elements).toEqual(readWithHtmlparser2(xml));
    expect(elements.map(element => element.text)).toEqual([
      null,
      'a <b> é☺ 日本語',
      'x < y & "z" and more',
      null,
      '&unknown; stays',
    ]);
    expect(elements[1]!.attributes).toEqual({ name: "single 'quoted'", 'st:showing': 'true' });
    expect(elements[4]!.attributes.name).toBe('&amp;');
  });
});

describe('parseAccessibilityTree: XML rules htmlparser2 does not apply', () => {
  it('normalizes line ends in text and whitespace in attribute values', () => {
    const [, node] = parseAccessibilityTree(
      '<r><label name="two\nlines&#10;kept" other="a\r\nb">x\r\ny\rz</label></r>',
    ).nodes;
    expect(node!.get('name')).toBe('two lines\nkept');
    expect(node!.get('other')).toBe('a b');
    expect(node!.text).toBe('x\ny\nz');
  });

  it('matches end tags by name and stops at a truncated document', () => {
    const { nodes } = parseAccessibilityTree('<r><a><b></a><c/></r><d name="cut');
    expect(nodes.map(node => [node.tag, node.depth])).toEqual([
      ['r', 0],
      ['a', 1],
      ['b', 2],
      ['c', 1],
    ]);
  });

  it('resolves a default namespace on element names', () => {
    const { nodes } = parseAccessibilityTree('<r xmlns="urn:x"><s:a xmlns:s="urn:s"/><b/></r>');
    expect(nodes.map(node => node.tag)).toEqual(['{urn:x}r', '{urn:s}a', '{urn:x}b']);
  });
});
