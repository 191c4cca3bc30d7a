import { describe, expect, it } from 'vitest';
import { escapeHtml, jsonForScript } from './html-escape';

describe('escapeHtml', () => {
  it('escapes the five characters that matter in content and quoted attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;',
    );
  });
});

describe('jsonForScript', () => {
  it('cannot end its <script> element early and parses back unchanged', () => {
    const value = { response: '</script><script>alert(1)</script><!-- & \u2028\u2029' };
    const text = jsonForScript(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(text).toBe(
      '{"response":"\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\\u003c!-- \\u0026 \\u2028\\u2029"}',
    );
    expect(JSON.parse(text)).toEqual(value);
  });
});
