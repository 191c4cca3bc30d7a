import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareTextFileMetric, normalizeBlanks } from './metric-compare-text-file';

const directory = mkdtempSync(join(tmpdir(), 'osharm-text-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let counter = 0;
const file = (content: string | Uint8Array) => {
  const path = join(directory, `f${counter++}.txt`);
  writeFileSync(path, content);
  return path;
};
const compare = (actual: unknown, expected: unknown, options: Record<string, unknown> = {}) =>
  compareTextFileMetric.evaluate({ result: actual, expected, options });

describe('compare_text_file', () => {
  const gold = file('def main():\n    print("Hello")\n');

  it('needs the exact text by default', async () => {
    expect(await compare(file('def main():\n    print("Hello")\n'), gold)).toBe(1);
    expect(await compare(file('def main():\n    print("Hello")'), gold)).toBe(0);
    expect(await compare(file('def main():\n  print("Hello")\n'), gold)).toBe(0);
  });

  it('reads with universal newlines, as Python open() does', async () => {
    expect(await compare(file('def main():\r\n    print("Hello")\r\n'), gold)).toBe(1);
    expect(await compare(file('def main():\r    print("Hello")\r'), gold)).toBe(1);
  });

  it('ignore_blanks collapses tabs, newlines and whitespace runs and strips', async () => {
    const reflowed = file('  def main():\t print("Hello")   ');
    expect(await compare(reflowed, gold)).toBe(0);
    expect(await compare(reflowed, gold, { ignore_blanks: true })).toBe(1);
    expect(normalizeBlanks('\n a\t\tb \u3000 c \x0b')).toBe('a b c');
    expect(await compare(file('defmain():print("Hello")'), gold, { ignore_blanks: true })).toBe(0);
  });

  it('ignore_case lower-cases both', async () => {
    const shouting = file('DEF MAIN():\n    PRINT("HELLO")\n');
    expect(await compare(shouting, gold)).toBe(0);
    expect(await compare(shouting, gold, { ignore_case: true })).toBe(1);
    expect(
      await compare(file('DEF MAIN(): PRINT("HELLO")'), gold, {
        ignore_case: true,
        ignore_blanks: true,
      }),
    ).toBe(1);
  });

  it('keeps a UTF-8 BOM (Python utf-8, not utf-8-sig)', async () => {
    expect(await compare(file('\ufeffdef main():\n    print("Hello")\n'), gold)).toBe(0);
  });

  it('scores 0 without a result file, and raises when a file cannot be read', async () => {
    expect(await compare(null, gold)).toBe(0);
    expect(await compare('', gold)).toBe(0);
    await expect(compare(join(directory, 'missing.txt'), gold)).rejects.toThrow(/ENOENT/);
    await expect(compare(gold, null)).rejects.toThrow(/TypeError/);
    await expect(compare(file(new Uint8Array([0xff, 0xfe, 0x41])), gold)).rejects.toThrow();
  });
});
