import { describe, expect, it } from 'vitest';
import {
  isSpecialAction,
  parseActions,
  parseComputer13Response,
  parsePyautoguiResponse,
} from './parse-actions';

describe('parsePyautoguiResponse', () => {
  it('takes a whole response that is a special code', () => {
    expect(parsePyautoguiResponse('DONE')).toEqual(['DONE']);
    expect(parsePyautoguiResponse('  WAIT\n')).toEqual(['WAIT']);
    expect(parsePyautoguiResponse('FAIL')).toEqual(['FAIL']);
  });

  it('extracts fenced blocks with or without a language', () => {
    const response = [
      'The Save button is at the top. I will click it.',
      '```python',
      'import pyautogui',
      'pyautogui.click(70, 40)',
      '```',
      'Then type.',
      '```',
      "pyautogui.typewrite('hello')",
      '```',
    ].join('\n');
    expect(parsePyautoguiResponse(response)).toEqual([
      'import pyautogui\npyautogui.click(70, 40)',
      "pyautogui.typewrite('hello')",
    ]);
  });

  it('takes a block that is a special code', () => {
    expect(parsePyautoguiResponse('The task is complete.\n```\nDONE\n```')).toEqual(['DONE']);
    expect(parsePyautoguiResponse('Cannot be done.\n```FAIL```')).toEqual(['FAIL']);
    expect(parsePyautoguiResponse('Wait.\n```python\nWAIT\n```')).toEqual(['WAIT']);
    // The optional language group takes a lone word followed by a newline.
    expect(parsePyautoguiResponse('```DONE\n```')).toEqual(['DONE']);
  });

  it('splits a block whose last line is a special code into the code and the code', () => {
    expect(
      parsePyautoguiResponse(
        '```python\npyautogui.hotkey("ctrl", "s")\ntime.sleep(0.5)\nDONE\n```',
      ),
    ).toEqual(['pyautogui.hotkey("ctrl", "s")\ntime.sleep(0.5)', 'DONE']);
    expect(parsePyautoguiResponse('```\npyautogui.press("enter")\n  FAIL  \n```')).toEqual([
      'pyautogui.press("enter")',
      'FAIL',
    ]);
  });

  it('keeps semicolons, also inside strings (upstream split on every `;`)', () => {
    const code =
      "pyautogui.typewrite('echo a; echo b'); pyautogui.press('enter')\n" +
      'pyautogui.typewrite("for i in 1 2; do echo $i; done")';
    expect(parsePyautoguiResponse(`Running it.\n\`\`\`python\n${code}\n\`\`\``)).toEqual([code]);
    // Upstream would have turned the first line into "pyautogui.typewrite('echo a\necho b')\n…".
  });

  it('keeps indentation', () => {
    const code = 'for name in ["a", "b"]:\n    pyautogui.typewrite(name)\n    time.sleep(0.5)';
    expect(parsePyautoguiResponse(`\`\`\`python\n${code}\n\`\`\``)).toEqual([code]);
  });

  it('gives no action for prose, an empty response or an empty block', () => {
    expect(parsePyautoguiResponse('I am not sure what to do.')).toEqual([]);
    expect(parsePyautoguiResponse('')).toEqual([]);
    expect(parsePyautoguiResponse('```\n\n```')).toEqual([]);
  });

  it('does not treat a special code inside prose as the whole response', () => {
    expect(parsePyautoguiResponse('I am DONE')).toEqual([]);
  });
});

describe('parseComputer13Response', () => {
  it('parses json blocks', () => {
    expect(
      parseComputer13Response(
        'Click it.\n```json\n{"action_type": "CLICK", "x": 10, "y": 20}\n```\n```json\n{"action_type": "TYPING", "text": "a;b"}\n```',
      ),
    ).toEqual([
      { action_type: 'CLICK', x: 10, y: 20 },
      { action_type: 'TYPING', text: 'a;b' },
    ]);
  });

  it('falls back to plain blocks, then to the whole response', () => {
    expect(parseComputer13Response('```\n{"action_type": "DONE"}\n```')).toEqual([
      { action_type: 'DONE' },
    ]);
    expect(parseComputer13Response('{"action_type": "PRESS", "key": "enter"}')).toEqual([
      { action_type: 'PRESS', key: 'enter' },
    ]);
    expect(parseComputer13Response('DONE')).toEqual(['DONE']);
    expect(parseComputer13Response('Stop.\n```\nFAIL\n```')).toEqual(['FAIL']);
  });

  it('gives null when nothing parses', () => {
    expect(parseComputer13Response('click the button')).toBeNull();
    expect(parseComputer13Response('```json\n{"action_type": "CLICK",}\n```')).toBeNull();
    expect(parseComputer13Response('```json\n[1, 2]\n```')).toBeNull();
  });
});

describe('parseActions', () => {
  it('dispatches on the action space', () => {
    expect(parseActions('```\npyautogui.click(1, 2)\n```', 'pyautogui')).toEqual([
      'pyautogui.click(1, 2)',
    ]);
    expect(parseActions('nothing', 'computer_13')).toBeNull();
    expect(isSpecialAction('WAIT')).toBe(true);
    expect(isSpecialAction('wait')).toBe(false);
  });
});
