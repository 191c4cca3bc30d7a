import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { computer13ToPython, rewriteLessThan } from './computer-13';

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

describe('rewriteLessThan', () => {
  it('turns press("<") into shift+comma', () => {
    expect(rewriteLessThan("pyautogui.press('<')")).toBe("pyautogui.hotkey('shift', ',')");
  });

  it('splits typewrite text around "<", keeping the remaining arguments, as valid Python', () => {
    const code =
      'if True:\n    pyautogui.typewrite(\'a<b<c\', interval=0.05)\npyautogui.write("x<y")';
    const rewritten = rewriteLessThan(code);
    expect(rewritten).toBe(
      "if True:\n    pyautogui.typewrite('a'); pyautogui.hotkey('shift', ','); pyautogui.typewrite('b'); pyautogui.hotkey('shift', ','); pyautogui.typewrite('c', interval=0.05)\n" +
        'pyautogui.write("x"); pyautogui.hotkey(\'shift\', \',\'); pyautogui.write("y")',
    );
    assertValidPython(`import pyautogui\n${rewritten}`);
  });

  it('leaves code without "<" (and "<" outside typing calls) alone', () => {
    const code = "for i in range(3):\n    if i < 2: pyautogui.typewrite('ok; fine')";
    expect(rewriteLessThan(code)).toBe(code);
  });
});
