/**
 * One vendor-neutral desktop action, in screen pixels, and the pyautogui code the guest runs for
 * it (the same action path as the prompt agent: a code string sent to the guest's `/execute`).
 */

export type MouseButton = 'left' | 'right' | 'middle';

/** A point on the screen, in screen pixels. */
export interface ScreenPoint {
  x: number;
  y: number;
}

export type NativeAction =
  /** Click `clicks` times at `at` (or where the pointer is), holding `holdKeys` (pyautogui names). */
  | { kind: 'click'; at?: ScreenPoint; button: MouseButton; clicks: 1 | 2 | 3; holdKeys: string[] }
  | { kind: 'move'; to: ScreenPoint; holdKeys: string[] }
  /** Press the left button at `path[0]`, move through the rest, release at the last point. */
  | { kind: 'drag'; path: ScreenPoint[]; holdKeys: string[] }
  | { kind: 'mouse_down'; button: MouseButton }
  | { kind: 'mouse_up'; button: MouseButton }
  /** Scroll by wheel clicks at `at`: `down` > 0 scrolls down, `right` > 0 scrolls right. */
  | { kind: 'scroll'; at?: ScreenPoint; down: number; right: number; holdKeys: string[] }
  | { kind: 'type'; text: string }
  /** Press a key combination (pyautogui names) `repeat` times. */
  | { kind: 'key'; keys: string[]; repeat: number }
  | { kind: 'hold_key'; keys: string[]; seconds: number }
  /** Press (`key_down`) or release (`key_up`) keys and leave them so (Gemini's desktop environment). */
  | { kind: 'key_down' | 'key_up'; keys: string[] }
  | { kind: 'wait'; seconds: number }
  /** Observation only: the next screenshot is the answer. */
  | { kind: 'screenshot' }
  /** Observation only: answered with the pointer position. */
  | { kind: 'cursor_position' }
  /** Observation only: a screenshot of `region` (screen pixels, x0 y0 x1 y1). */
  | { kind: 'zoom'; region: [number, number, number, number] };

/** Characters per `pyautogui.write` call (PAUSE is 0 on the guest: no call waits between keys). */
export const TYPE_CHUNK = 200;

/** Wheel clicks are sent as pyautogui `scroll` / `hscroll` units. */
const py = (value: string): string => JSON.stringify(value);

function withHeldKeys(holdKeys: readonly string[], body: string[]): string[] {
  if (holdKeys.length === 0) return body;
  return [
    ...holdKeys.map(key => `pyautogui.keyDown(${py(key)})`),
    ...body,
    ...[...holdKeys].reverse().map(key => `pyautogui.keyUp(${py(key)})`),
  ];
}

const point = (at: ScreenPoint): string => `${at.x}, ${at.y}`;

/** Splits text into pieces of at most `size` characters (code points, never half a pair). */
export function chunkText(text: string, size = TYPE_CHUNK): string[] {
  const characters = [...text];
  const chunks: string[] = [];
  for (let start = 0; start < characters.length; start += size)
    chunks.push(characters.slice(start, start + size).join(''));
  return chunks;
}

/**
 * The pyautogui code for an action, one statement per line joined with `; ` (the form upstream's
 * trajectories hold), or `null` for the observation-only actions (screenshot, cursor position,
 * zoom), which send nothing to the guest.
 */
export function pyautoguiCode(action: NativeAction): string | null {
  let lines: string[];
  switch (action.kind) {
    case 'click': {
      const where = action.at ? `${point(action.at)}, ` : '';
      lines = withHeldKeys(action.holdKeys, [
        `pyautogui.click(${where}clicks=${action.clicks}, interval=0.1, button=${py(action.button)})`,
      ]);
      break;
    }
    case 'move':
      lines = withHeldKeys(action.holdKeys, [`pyautogui.moveTo(${point(action.to)})`]);
      break;
    case 'drag': {
      const [first, ...rest] = action.path;
      if (!first || rest.length === 0) throw new RangeError('a drag needs at least two points');
      lines = withHeldKeys(action.holdKeys, [
        `pyautogui.moveTo(${point(first)})`,
        `pyautogui.mouseDown(button="left")`,
        ...rest.map(to => `pyautogui.moveTo(${point(to)}, duration=0.2)`),
        `pyautogui.mouseUp(button="left")`,
      ]);
      break;
    }
    case 'mouse_down':
      lines = [`pyautogui.mouseDown(button=${py(action.button)})`];
      break;
    case 'mouse_up':
      lines = [`pyautogui.mouseUp(button=${py(action.button)})`];
      break;
    case 'scroll': {
      const where = action.at ? `, x=${action.at.x}, y=${action.at.y}` : '';
      const body: string[] = [];
      // pyautogui: a positive scroll goes up, a positive hscroll goes right.
      if (action.down !== 0) body.push(`pyautogui.scroll(${-action.down}${where})`);
      if (action.right !== 0) body.push(`pyautogui.hscroll(${action.right}${where})`);
      lines = withHeldKeys(action.holdKeys, body);
      break;
    }
    case 'type':
      lines = chunkText(action.text).map(chunk => `pyautogui.write(${py(chunk)}, interval=0)`);
      break;
    case 'key': {
      const call =
        action.keys.length === 1
          ? `pyautogui.press(${py(action.keys[0]!)})`
          : `pyautogui.hotkey(${action.keys.map(py).join(', ')})`;
      lines = Array.from({ length: action.repeat }, () => call);
      break;
    }
    case 'hold_key':
      lines = [
        ...action.keys.map(key => `pyautogui.keyDown(${py(key)})`),
        `time.sleep(${action.seconds})`,
        ...[...action.keys].reverse().map(key => `pyautogui.keyUp(${py(key)})`),
      ];
      break;
    case 'key_down':
      lines = action.keys.map(key => `pyautogui.keyDown(${py(key)})`);
      break;
    case 'key_up':
      lines = action.keys.map(key => `pyautogui.keyUp(${py(key)})`);
      break;
    case 'wait':
      lines = [`time.sleep(${action.seconds})`];
      break;
    case 'screenshot':
    case 'cursor_position':
    case 'zoom':
      return null;
  }
  return lines.join('; ');
}
