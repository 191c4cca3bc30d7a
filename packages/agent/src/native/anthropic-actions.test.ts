import { describe, expect, it } from 'vitest';
import {
  ANTHROPIC_ACTIONS,
  isAnthropicComputerUse,
  mapAnthropicToolUse,
} from './anthropic-actions';
import type { AnthropicToolUse } from './anthropic-actions';
import { ANTHROPIC_IMAGE_LIMITS, scalingFor } from './scaling';

const same = scalingFor({ width: 1280, height: 720 }, ANTHROPIC_IMAGE_LIMITS); // image = screen
const hd = scalingFor({ width: 1920, height: 1080 }, ANTHROPIC_IMAGE_LIMITS); // 1429×804

/** Each action as the classic tool and as a toolset member, with the code expected. */
const cases: Array<[string, Record<string, unknown>, string | null]> = [
  ['key', { text: 'ctrl+s' }, 'pyautogui.hotkey("ctrl", "s")'],
  ['key', { text: 'Return', repeat: 2 }, 'pyautogui.press("enter"); pyautogui.press("enter")'],
  [
    'hold_key',
    { text: 'shift', duration: 1.5 },
    'pyautogui.keyDown("shift"); time.sleep(1.5); pyautogui.keyUp("shift")',
  ],
  ['type', { text: 'ls -la\n' }, 'pyautogui.write("ls -la\\n", interval=0)'],
  ['cursor_position', {}, null],
  ['mouse_move', { coordinate: [100, 200] }, 'pyautogui.moveTo(100, 200)'],
  ['left_mouse_down', {}, 'pyautogui.mouseDown(button="left")'],
  ['left_mouse_up', {}, 'pyautogui.mouseUp(button="left")'],
  [
    'left_click',
    { coordinate: [10, 20] },
    'pyautogui.click(10, 20, clicks=1, interval=0.1, button="left")',
  ],
  ['left_click', {}, 'pyautogui.click(clicks=1, interval=0.1, button="left")'],
  [
    'left_click',
    { coordinate: [10, 20], text: 'ctrl+shift' },
    'pyautogui.keyDown("ctrl"); pyautogui.keyDown("shift"); pyautogui.click(10, 20, clicks=1, interval=0.1, button="left"); pyautogui.keyUp("shift"); pyautogui.keyUp("ctrl")',
  ],
  [
    'left_click_drag',
    { start_coordinate: [1, 2], coordinate: [300, 400] },
    'pyautogui.moveTo(1, 2); pyautogui.mouseDown(button="left"); pyautogui.moveTo(300, 400, duration=0.2); pyautogui.mouseUp(button="left")',
  ],
  [
    'right_click',
    { coordinate: [5, 6] },
    'pyautogui.click(5, 6, clicks=1, interval=0.1, button="right")',
  ],
  [
    'middle_click',
    { coordinate: [5, 6] },
    'pyautogui.click(5, 6, clicks=1, interval=0.1, button="middle")',
  ],
  [
    'double_click',
    { coordinate: [5, 6] },
    'pyautogui.click(5, 6, clicks=2, interval=0.1, button="left")',
  ],
  [
    'triple_click',
    { coordinate: [5, 6] },
    'pyautogui.click(5, 6, clicks=3, interval=0.1, button="left")',
  ],
  [
    'scroll',
    { coordinate: [640, 360], scroll_direction: 'down', scroll_amount: 3 },
    'pyautogui.scroll(-3, x=640, y=360)',
  ],
  ['scroll', { scroll_direction: 'up', scroll_amount: 2 }, 'pyautogui.scroll(2)'],
  [
    'scroll',
    { coordinate: [1, 1], scroll_direction: 'left', scroll_amount: 4 },
    'pyautogui.hscroll(-4, x=1, y=1)',
  ],
  [
    'scroll',
    { coordinate: [1, 1], scroll_direction: 'right', scroll_amount: 1, text: 'shift' },
    'pyautogui.keyDown("shift"); pyautogui.hscroll(1, x=1, y=1); pyautogui.keyUp("shift")',
  ],
  ['wait', { duration: 2 }, 'time.sleep(2)'],
  ['screenshot', {}, null],
  ['zoom', { region: [0, 0, 640, 360] }, null],
];

describe('Anthropic computer actions → pyautogui', () => {
  it('covers every action of the tool', () => {
    expect(new Set(cases.map(([name]) => name))).toEqual(new Set(ANTHROPIC_ACTIONS));
  });

  it.each(cases)('classic %s %j', (action, input, code) => {
    const mapped = mapAnthropicToolUse({ name: 'computer', input: { action, ...input } }, same);
    expect(mapped).toMatchObject({ name: action, code });
  });

  it.each(cases)('toolset member %s %j', (name, input, code) => {
    const block: AnthropicToolUse = { name, input, toolset_name: 'computer' };
    expect(isAnthropicComputerUse(block)).toBe(true);
    expect(mapAnthropicToolUse(block, same)).toMatchObject({ name, code, raw: block });
  });

  it('scales coordinates from the 1429×804 image back to a 1920×1080 screen', () => {
    const click = mapAnthropicToolUse(
      { name: 'left_click', input: { coordinate: [1429, 804] }, toolset_name: 'computer' },
      hd,
    );
    expect(click).toMatchObject({
      code: 'pyautogui.click(1919, 1079, clicks=1, interval=0.1, button="left")',
    });
    const zoom = mapAnthropicToolUse(
      { name: 'zoom', input: { region: [0, 0, 714.5, 402] }, toolset_name: 'computer' },
      hd,
    );
    expect(zoom).toMatchObject({ actions: [{ kind: 'zoom', region: [0, 0, 960, 540] }] });
  });

  it.each([
    [{ action: 'left_click', coordinate: [1] }, /coordinate must be \[x, y\]/],
    [{ action: 'key', text: 'ctrl+Hyper' }, /unknown key name "Hyper"/],
    [{ action: 'key', text: 'a', repeat: 1000 }, /repeat must be an integer/],
    [{ action: 'scroll', scroll_direction: 'sideways', scroll_amount: 1 }, /scroll_direction/],
    [{ action: 'wait', duration: 3600 }, /duration must be between 0 and 60/],
    [{ action: 'type' }, /text must be a string/],
    [{ action: 'navigate', url: 'x' }, /unknown computer action "navigate"/],
    [{ action: 'zoom', region: [50, 50, 10, 80] }, /region must have x1 > x0 and y1 > y0/],
    [{ action: 'zoom', region: [0, 0, 10] }, /region must be \[x0, y0, x1, y1\]/],
  ])('maps a bad input %j to an error, not an action', (input, message) => {
    const mapped = mapAnthropicToolUse({ name: 'computer', input }, same);
    expect('error' in mapped && mapped.error).toMatch(message);
  });

  it('tells the computer tool from other tools', () => {
    expect(isAnthropicComputerUse({ name: 'computer', input: {} })).toBe(true);
    expect(isAnthropicComputerUse({ name: 'bash', input: {} })).toBe(false);
    expect(isAnthropicComputerUse({ name: 'left_click', input: {}, toolset_name: 'browser' })).toBe(
      false,
    );
  });
});
