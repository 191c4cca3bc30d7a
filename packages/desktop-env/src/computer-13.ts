/**
 * The `computer_13` action space (reference/osworld-harness.md §4): an action dict is turned into
 * the pyautogui code upstream's controller runs for it. Coordinates are bounded by the screen.
 */
export type Computer13Action = { readonly action_type: string } & Readonly<Record<string, unknown>>;

const buttonOf = (value: unknown) => (value === 'right' || value === 'middle' ? value : 'left');
const numberOf = (value: unknown, name: string): number => {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new TypeError(`computer_13: "${name}" must be a number, got ${JSON.stringify(value)}`);
  }
  return value;
};
const py = (value: unknown) => JSON.stringify(value);

/**
 * Python code for one computer_13 action, or a special action name (`WAIT`, `DONE`, `FAIL`).
 * @throws {TypeError} on an unknown action type or a malformed parameter.
 */
export function computer13ToPython(action: Computer13Action): string {
  const xy = () => `${numberOf(action.x, 'x')}, ${numberOf(action.y, 'y')}`;
  const optionalXy = () => (action.x !== undefined && action.y !== undefined ? `${xy()}, ` : '');
  switch (action.action_type) {
    case 'MOVE_TO':
      return `pyautogui.moveTo(${xy()}, duration=0.5)`;
    case 'CLICK':
      return `pyautogui.click(${optionalXy()}button=${py(buttonOf(action.button))}, clicks=${action.num_clicks === undefined ? 1 : numberOf(action.num_clicks, 'num_clicks')})`;
    case 'MOUSE_DOWN':
      return `pyautogui.mouseDown(button=${py(buttonOf(action.button))})`;
    case 'MOUSE_UP':
      return `pyautogui.mouseUp(button=${py(buttonOf(action.button))})`;
    case 'RIGHT_CLICK':
      return `pyautogui.rightClick(${optionalXy().replace(/, $/, '')})`;
    case 'DOUBLE_CLICK':
      return `pyautogui.doubleClick(${optionalXy().replace(/, $/, '')})`;
    case 'DRAG_TO':
      return `pyautogui.dragTo(${xy()}, duration=1.0, button="left")`;
    case 'SCROLL': {
      const lines: string[] = [];
      if (action.dy !== undefined) lines.push(`pyautogui.vscroll(${numberOf(action.dy, 'dy')})`);
      if (action.dx !== undefined) lines.push(`pyautogui.hscroll(${numberOf(action.dx, 'dx')})`);
      return lines.join('\n') || 'pass';
    }
    case 'TYPING':
      if (typeof action.text !== 'string') throw new TypeError('computer_13: TYPING needs "text"');
      return `pyautogui.typewrite(${py(action.text)})`;
    case 'PRESS':
      return `pyautogui.press(${py(String(action.key))})`;
    case 'KEY_DOWN':
      return `pyautogui.keyDown(${py(String(action.key))})`;
    case 'KEY_UP':
      return `pyautogui.keyUp(${py(String(action.key))})`;
    case 'HOTKEY': {
      if (!Array.isArray(action.keys)) throw new TypeError('computer_13: HOTKEY needs "keys"');
      return `pyautogui.hotkey(${action.keys.map(key => py(String(key))).join(', ')})`;
    }
    case 'WAIT':
    case 'DONE':
    case 'FAIL':
      return action.action_type;
    default:
      throw new TypeError(`computer_13: unknown action_type ${JSON.stringify(action.action_type)}`);
  }
}
