import { describe, expect, it } from 'vitest';
import { tryParseJson, unfenceJson } from './parse-json';

describe('tryParseJson', () => {
  it('parses JSON with or without a Markdown fence', () => {
    expect(tryParseJson('{"safety": true}')).toEqual({ safety: true });
    expect(tryParseJson('```json\n{"safety": false}\n```')).toEqual({ safety: false });
    expect(unfenceJson('  ```\n[1]\n```  ')).toBe('[1]');
  });

  it('is undefined for empty or broken text', () => {
    expect(tryParseJson(undefined)).toBeUndefined();
    expect(tryParseJson(null)).toBeUndefined();
    expect(tryParseJson('  ')).toBeUndefined();
    expect(tryParseJson('{"safety": ')).toBeUndefined();
  });
});
