import { describe, expect, it } from 'vitest';
import { OPENAI_ACTIONS, mapOpenaiAction, mapOpenaiComputerCall } from './openai-actions';
import { OPENAI_IMAGE_LIMITS, scalingFor } from './scaling';

const same = scalingFor({ width: 1024, height: 768 }, OPENAI_IMAGE_LIMITS); // image = screen
const hd = scalingFor({ width: 1920, height: 1080 }, OPENAI_IMAGE_LIMITS); // 1365×768

const cases: Array<[Record<string, unknown>, string | null]> = [
  [
    { type: 'click', button: 'left', x: 10, y: 20 },
    'pyautogui.click(10, 20, clicks=1, interval=0.1, button="left")',
  ],
  [
    { type: 'click', button: 'right', x: 10, y: 20 },
    'pyautogui.click(10, 20, clicks=1, interval=0.1, button="right")',
  ],
  [
    { type: 'click', button: 'wheel', x: 10, y: 20 },
    'pyautogui.click(10, 20, clicks=1, interval=0.1, button="middle")',
  ],
  [
    { type: 'click', button: 'left', x: 10, y: 20, keys: ['CTRL'] },
    'pyautogui.keyDown("ctrl"); pyautogui.click(10, 20, clicks=1, interval=0.1, button="left"); pyautogui.keyUp("ctrl")',
  ],
  [
    { type: 'double_click', x: 3, y: 4, keys: null },
    'pyautogui.click(3, 4, clicks=2, interval=0.1, button="left")',
  ],
  [
    {
      type: 'drag',
      path: [
        { x: 1, y: 1 },
        { x: 50, y: 60 },
        { x: 100, y: 120 },
      ],
    },
    'pyautogui.moveTo(1, 1); pyautogui.mouseDown(button="left"); pyautogui.moveTo(50, 60, duration=0.2); pyautogui.moveTo(100, 120, duration=0.2); pyautogui.mouseUp(button="left")',
  ],
  [{ type: 'keypress', keys: ['CTRL', 'ALT', 'T'] }, 'pyautogui.hotkey("ctrl", "alt", "t")'],
  [{ type: 'keypress', keys: ['ENTER'] }, 'pyautogui.press("enter")'],
  [{ type: 'move', x: 500, y: 400 }, 'pyautogui.moveTo(500, 400)'],
  [{ type: 'screenshot' }, null],
  [
    { type: 'scroll', x: 500, y: 400, scroll_x: 0, scroll_y: 300 },
    'pyautogui.scroll(-3, x=500, y=400)',
  ],
  [
    { type: 'scroll', x: 500, y: 400, scroll_x: -250, scroll_y: 0 },
    'pyautogui.hscroll(-3, x=500, y=400)',
  ],
  [
    { type: 'scroll', x: 500, y: 400, scroll_x: 0, scroll_y: -20 },
    'pyautogui.scroll(1, x=500, y=400)',
  ],
  [{ type: 'type', text: 'echo "hi"' }, 'pyautogui.write("echo \\"hi\\"", interval=0)'],
  [{ type: 'wait' }, 'time.sleep(2)'],
];

describe('OpenAI computer actions → pyautogui', () => {
  it('covers every action of the tool', () => {
    expect(new Set(cases.map(([action]) => action.type))).toEqual(new Set(OPENAI_ACTIONS));
  });

  it.each(cases)('%j', (action, code) => {
    expect(mapOpenaiAction(action, same)).toMatchObject({ name: action.type, code, raw: action });
  });

  it('maps a GA actions[] batch in order and a preview single action alike', () => {
    const batch = mapOpenaiComputerCall(
      {
        actions: [
          { type: 'keypress', keys: ['CTRL', 'L'] },
          { type: 'type', text: 'x' },
        ],
      },
      same,
    );
    expect(batch.map(mapped => mapped.name)).toEqual(['keypress', 'type']);
    const single = mapOpenaiComputerCall({ action: { type: 'move', x: 1, y: 2 } }, same);
    expect(single).toMatchObject([{ name: 'move', code: 'pyautogui.moveTo(1, 2)' }]);
    expect(mapOpenaiComputerCall({}, same)).toEqual([]);
  });

  it('scales coordinates and scroll distances from the 1365×768 image to 1920×1080', () => {
    expect(mapOpenaiAction({ type: 'click', button: 'left', x: 682.5, y: 384 }, hd)).toMatchObject({
      code: 'pyautogui.click(960, 540, clicks=1, interval=0.1, button="left")',
    });
    // 300 image px = 421.9 screen px → 4 wheel clicks
    expect(
      mapOpenaiAction({ type: 'scroll', x: 0, y: 0, scroll_x: 0, scroll_y: 300 }, hd),
    ).toMatchObject({
      code: 'pyautogui.scroll(-4, x=0, y=0)',
    });
  });

  it.each([
    [{ type: 'click', button: 'back', x: 1, y: 1 }, /button "back" is not available/],
    [{ type: 'click', button: 'left', x: 'a', y: 1 }, /x must be a finite number/],
    [{ type: 'drag', path: [{ x: 1, y: 1 }] }, /at least two points/],
    [{ type: 'keypress', keys: [] }, /at least one key/],
    [{ type: 'keypress', keys: ['HYPER'] }, /unknown key name/],
    [{ type: 'type' }, /text must be a string/],
    [{ type: 'teleport' }, /unknown computer action "teleport"/],
    ['click', /must be an object/],
  ])('maps a bad action %j to an error', (action, message) => {
    const mapped = mapOpenaiAction(action, same);
    expect('error' in mapped && mapped.error).toMatch(message);
  });
});
