import { describe, expect, it } from 'vitest';
import {
  GEMINI_BROWSER_ONLY,
  GEMINI_DESKTOP_ACTIONS,
  GEMINI_DESKTOP_FUNCTIONS,
  GEMINI_PREDEFINED,
  mapGeminiCall,
} from './gemini-actions';
import { GEMINI_IMAGE_LIMITS, scalingFor } from './scaling';

const hd = scalingFor({ width: 1920, height: 1080 }, GEMINI_IMAGE_LIMITS, true);
const small = scalingFor({ width: 1000, height: 1000 }, GEMINI_IMAGE_LIMITS, true); // grid = screen

const cases: Array<[string, Record<string, unknown>, string | null]> = [
  [
    'click_at',
    { x: 500, y: 500 },
    'pyautogui.click(960, 540, clicks=1, interval=0.1, button="left")',
  ],
  ['hover_at', { x: 250, y: 100 }, 'pyautogui.moveTo(480, 108)'],
  [
    'type_text_at',
    { x: 500, y: 500, text: 'ls' },
    'pyautogui.click(960, 540, clicks=1, interval=0.1, button="left"); pyautogui.hotkey("ctrl", "a"); pyautogui.press("backspace"); pyautogui.write("ls", interval=0); pyautogui.press("enter")',
  ],
  [
    'type_text_at',
    { x: 500, y: 500, text: 'ls', press_enter: false, clear_before_typing: false },
    'pyautogui.click(960, 540, clicks=1, interval=0.1, button="left"); pyautogui.write("ls", interval=0)',
  ],
  ['key_combination', { keys: 'Control+C' }, 'pyautogui.hotkey("ctrl", "c")'],
  ['key_combination', { keys: 'Enter' }, 'pyautogui.press("enter")'],
  ['scroll_document', { direction: 'down' }, 'pyautogui.scroll(-10, x=960, y=540)'],
  ['scroll_document', { direction: 'left' }, 'pyautogui.hscroll(-10, x=960, y=540)'],
  [
    'scroll_at',
    { x: 500, y: 500, direction: 'up', magnitude: 200 },
    'pyautogui.scroll(2, x=960, y=540)',
  ],
  ['scroll_at', { x: 500, y: 500, direction: 'right' }, 'pyautogui.hscroll(15, x=960, y=540)'],
  [
    'drag_and_drop',
    { x: 0, y: 0, destination_x: 999, destination_y: 999 },
    'pyautogui.moveTo(0, 0); pyautogui.mouseDown(button="left"); pyautogui.moveTo(1918, 1079, duration=0.2); pyautogui.mouseUp(button="left")',
  ],
  ['wait_5_seconds', {}, 'time.sleep(5)'],
  [
    'double_click_at',
    { x: 500, y: 500 },
    'pyautogui.click(960, 540, clicks=2, interval=0.1, button="left")',
  ],
  [
    'triple_click_at',
    { x: 500, y: 500 },
    'pyautogui.click(960, 540, clicks=3, interval=0.1, button="left")',
  ],
  [
    'right_click_at',
    { x: 500, y: 500 },
    'pyautogui.click(960, 540, clicks=1, interval=0.1, button="right")',
  ],
  ['type_text', { text: 'hello' }, 'pyautogui.write("hello", interval=0)'],
];

/** The desktop environment's actions (ENVIRONMENT_DESKTOP, Gemini 3.5 on), each with an intent. */
const desktopCases: Array<[string, Record<string, unknown>, string | null]> = [
  ['click', { x: 500, y: 500 }, 'pyautogui.click(960, 540, clicks=1, interval=0.1, button="left")'],
  [
    'double_click',
    { x: 500, y: 500 },
    'pyautogui.click(960, 540, clicks=2, interval=0.1, button="left")',
  ],
  [
    'triple_click',
    { x: 500, y: 500 },
    'pyautogui.click(960, 540, clicks=3, interval=0.1, button="left")',
  ],
  [
    'middle_click',
    { x: 500, y: 500 },
    'pyautogui.click(960, 540, clicks=1, interval=0.1, button="middle")',
  ],
  [
    'right_click',
    { x: 500, y: 500 },
    'pyautogui.click(960, 540, clicks=1, interval=0.1, button="right")',
  ],
  [
    'mouse_down',
    { x: 500, y: 500 },
    'pyautogui.moveTo(960, 540); pyautogui.mouseDown(button="left")',
  ],
  ['mouse_up', { x: 250, y: 100 }, 'pyautogui.moveTo(480, 108); pyautogui.mouseUp(button="left")'],
  ['move', { x: 250, y: 100 }, 'pyautogui.moveTo(480, 108)'],
  ['type', { text: 'ls' }, 'pyautogui.write("ls", interval=0)'],
  [
    'type',
    { text: 'ls', press_enter: true },
    'pyautogui.write("ls", interval=0); pyautogui.press("enter")',
  ],
  [
    'drag_and_drop',
    { start_x: 0, start_y: 0, end_x: 500, end_y: 500 },
    'pyautogui.moveTo(0, 0); pyautogui.mouseDown(button="left"); pyautogui.moveTo(960, 540, duration=0.2); pyautogui.mouseUp(button="left")',
  ],
  ['wait', {}, 'time.sleep(1)'],
  ['wait', { seconds: 3 }, 'time.sleep(3)'],
  ['press_key', { key: 'Enter' }, 'pyautogui.press("enter")'],
  ['key_down', { key: 'Shift' }, 'pyautogui.keyDown("shift")'],
  ['key_up', { key: 'Shift' }, 'pyautogui.keyUp("shift")'],
  ['hotkey', { keys: ['Control', 'c'] }, 'pyautogui.hotkey("ctrl", "c")'],
  ['take_screenshot', {}, null],
  // 300 grid units of 1080 px = 324 px = 3 wheel clicks of 100 px
  ['scroll', { x: 500, y: 500, direction: 'down' }, 'pyautogui.scroll(-3, x=960, y=540)'],
  [
    'scroll',
    { x: 500, y: 500, direction: 'right', magnitude_in_pixels: 500 },
    'pyautogui.hscroll(10, x=960, y=540)',
  ],
];

describe('Gemini desktop-environment calls → pyautogui', () => {
  it('covers every action of the desktop environment', () => {
    expect(new Set(desktopCases.map(([name]) => name))).toEqual(new Set(GEMINI_DESKTOP_ACTIONS));
  });

  it.each(desktopCases)(
    '%s %j on a 1920×1080 screen (intent kept in the raw call)',
    (name, args, code) => {
      const call = { name, args: { ...args, intent: 'Because the task needs it.' } };
      expect(mapGeminiCall(call, hd)).toMatchObject({ name, code, raw: call });
    },
  );

  it.each([
    [{ name: 'hotkey', args: { keys: 'Control+C' } }, /keys must be a list of key names/],
    [{ name: 'hotkey', args: { keys: ['Control', 'Warp'] } }, /unknown key name/],
    [{ name: 'wait', args: { seconds: 600 } }, /seconds must be between 0 and 60/],
    [
      { name: 'scroll', args: { x: 1, y: 1, direction: 'down', magnitude_in_pixels: 5000 } },
      /magnitude/,
    ],
    [
      { name: 'drag_and_drop', args: { start_x: 1, start_y: 1, end_x: 2 } },
      /end_y must be a finite number/,
    ],
  ])('maps a bad call %j to an error', (call, message) => {
    const mapped = mapGeminiCall(call, hd);
    expect('error' in mapped && mapped.error).toMatch(message);
  });
});

describe('Gemini computer-use calls → pyautogui', () => {
  it('covers every predefined desktop function and every custom one', () => {
    expect(new Set(cases.map(([name]) => name))).toEqual(
      new Set([...GEMINI_PREDEFINED, ...GEMINI_DESKTOP_FUNCTIONS.map(fn => fn.name)]),
    );
  });

  it.each(cases)('%s %j on a 1920×1080 screen', (name, args, code) => {
    expect(mapGeminiCall({ name, args }, hd)).toMatchObject({ name, code });
  });

  it('ignores the safety_decision argument (the loop handles it)', () => {
    const mapped = mapGeminiCall(
      {
        name: 'click_at',
        args: {
          x: 10,
          y: 10,
          safety_decision: { decision: 'require_confirmation', explanation: 'x' },
        },
      },
      small,
    );
    expect(mapped).toMatchObject({
      code: 'pyautogui.click(10, 10, clicks=1, interval=0.1, button="left")',
    });
  });

  it.each(GEMINI_BROWSER_ONLY.map(name => [name]))('refuses the browser-only %s', name => {
    const mapped = mapGeminiCall({ name, args: { url: 'https://example.com' } }, hd);
    expect('error' in mapped && mapped.error).toMatch(/browser-only action/);
  });

  it.each([
    [{ name: 'click_at', args: { x: 1 } }, /y must be a finite number/],
    [{ name: 'scroll_at', args: { x: 1, y: 1, direction: 'down', magnitude: 5000 } }, /magnitude/],
    [{ name: 'scroll_document', args: { direction: 'diagonal' } }, /direction must be/],
    [{ name: 'key_combination', args: { keys: 'Control+Warp' } }, /unknown key name/],
    [{ name: 'format_disk', args: {} }, /unknown computer-use function/],
  ])('maps a bad call %j to an error', (call, message) => {
    const mapped = mapGeminiCall(call, hd);
    expect('error' in mapped && mapped.error).toMatch(message);
  });
});
