import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { computer13ToPython } from './computer-13';
import { rewriteLessThanKeys } from './pyautogui-less-than';

/** Parses Python source with the real interpreter: throws on a syntax error. */
function assertValidPython(code: string): void {
  execFileSync('python3', ['-c', 'import ast, sys; ast.parse(sys.stdin.read())'], { input: code });
}

describe('computer13ToPython', () => {
  it.each([
    [{ action_type: 'MOVE_TO', x: 10, y: 20 }, 'pyautogui.moveTo(10, 20, duration=0.5)'],
    [{ action_type: 'CLICK' }, 'pyautogui.click(button="left", clicks=1)'],
    [
      { action_type: 'CLICK', x: 5, y: 6, button: 'right', num_clicks: 2 },
      'pyautogui.click(5, 6, button="right", clicks=2)',
    ],
    [{ action_type: 'RIGHT_CLICK', x: 1, y: 2 }, 'pyautogui.rightClick(1, 2)'],
    [{ action_type: 'DOUBLE_CLICK' }, 'pyautogui.doubleClick()'],
    [{ action_type: 'DRAG_TO', x: 3, y: 4 }, 'pyautogui.dragTo(3, 4, duration=1.0, button="left")'],
    [{ action_type: 'SCROLL', dy: -5, dx: 2 }, 'pyautogui.vscroll(-5)\npyautogui.hscroll(2)'],
    [{ action_type: 'TYPING', text: 'say "hi"\n' }, 'pyautogui.typewrite("say \\"hi\\"\\n")'],
    [{ action_type: 'HOTKEY', keys: ['ctrl', 'c'] }, 'pyautogui.hotkey("ctrl", "c")'],
    [{ action_type: 'PRESS', key: 'enter' }, 'pyautogui.press("enter")'],
    [{ action_type: 'KEY_DOWN', key: 'shift' }, 'pyautogui.keyDown("shift")'],
    [{ action_type: 'MOUSE_UP', button: 'middle' }, 'pyautogui.mouseUp(button="middle")'],
    [{ action_type: 'FAIL' }, 'FAIL'],
  ])('%j → %s', (action, code) => {
    expect(computer13ToPython(action)).toBe(code);
    if (!['FAIL', 'DONE', 'WAIT'].includes(code)) assertValidPython(`import pyautogui\n${code}`);
  });

  it('rejects unknown types and bad parameters with a clear message', () => {
    expect(() => computer13ToPython({ action_type: 'TELEPORT' })).toThrow(
      'unknown action_type "TELEPORT"',
    );
    expect(() => computer13ToPython({ action_type: 'MOVE_TO', x: '1', y: 2 })).toThrow(
      '"x" must be a number',
    );
  });
});

describe('rewriteLessThanKeys', () => {
  it("rewrites press('<') into shift+comma", () => {
    expect(rewriteLessThanKeys("pyautogui.press('<')")).toBe('pyautogui.hotkey("shift", ",")');
    expect(rewriteLessThanKeys('pyautogui.press("<")\npyautogui.press("enter")')).toBe(
      'pyautogui.hotkey("shift", ",")\npyautogui.press("enter")',
    );
    expect(rewriteLessThanKeys("pyautogui.press('\\u003c')")).toBe(
      'pyautogui.hotkey("shift", ",")',
    );
  });

  it('splits typewrite text at every <, keeping the other arguments', () => {
    expect(rewriteLessThanKeys("pyautogui.typewrite('a<b')")).toBe(
      'pyautogui.typewrite(\'a\'); pyautogui.hotkey("shift", ","); pyautogui.typewrite(\'b\')',
    );
    expect(rewriteLessThanKeys('pyautogui.typewrite("<html>", interval=0.05)')).toBe(
      'pyautogui.hotkey("shift", ","); pyautogui.typewrite("html>", interval=0.05)',
    );
    expect(rewriteLessThanKeys("    pyautogui.write('x << y\\n')")).toBe(
      '    pyautogui.write(\'x \'); pyautogui.hotkey("shift", ","); pyautogui.hotkey("shift", ","); pyautogui.write(\' y\\n\')',
    );
  });

  it('understands escaped quotes and leaves other code alone', () => {
    expect(rewriteLessThanKeys("pyautogui.typewrite('it\\'s <b>')")).toBe(
      "pyautogui.typewrite('it\\'s '); pyautogui.hotkey(\"shift\", \",\"); pyautogui.typewrite('b>')",
    );
    const untouched = [
      'if x < 3:\n    pyautogui.press("enter")',
      "pyautogui.press('<', presses=2)",
      'pyautogui.typewrite(text)',
      "pyautogui.typewrite(f'{a}<b')",
      "pyautogui.typewrite(r'\\u003c')",
      "pyautogui.typewrite('no less-than here')",
    ];
    for (const code of untouched) expect(rewriteLessThanKeys(code)).toBe(code);
  });

  it('produces valid Python', () => {
    const rewritten = rewriteLessThanKeys(
      "if True:\n    pyautogui.typewrite('a<b<c', interval=0.05)",
    );
    assertValidPython(`import pyautogui\n${rewritten}`);
  });
});
