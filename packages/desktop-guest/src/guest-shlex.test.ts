import { describe, expect, it } from 'vitest';
import { pythonListRepr, shlexSplit } from './guest-shlex';

describe('shlexSplit', () => {
  it('splits like Python shlex.split', () => {
    expect(shlexSplit(`python -c "import pyautogui; pyautogui.write('a b')"`)).toEqual([
      'python',
      '-c',
      "import pyautogui; pyautogui.write('a b')",
    ]);
    expect(shlexSplit(`a\\ b 'c "d"' "e \\"f\\" \\n"  `)).toEqual(['a b', 'c "d"', 'e "f" \\n']);
    expect(shlexSplit(`x ''`)).toEqual(['x', '']);
    expect(shlexSplit('   ')).toEqual([]);
  });

  it('throws on an unclosed quote', () => {
    expect(() => shlexSplit(`echo 'oops`)).toThrow('No closing quotation');
  });

  it('formats a Python list', () => {
    expect(pythonListRepr(['a', "b'c", `d'"`])).toBe(`['a', "b'c", 'd\\'"']`);
  });
});
