/**
 * Gemini computer use → desktop actions. The model calls the computer-use tool's predefined
 * functions with coordinates on a normalized 0–999 grid. Two sets:
 * - the Gemini 2.5 computer-use preview's (browser environment only): `click_at`, `type_text_at`,
 *   … — the browser-only ones ({@link GEMINI_BROWSER_ONLY}) are excluded from the tool and refused
 *   here, and desktop actions the tool lacks are offered as custom functions
 *   ({@link GEMINI_DESKTOP_FUNCTIONS});
 * - the desktop environment's of later models (`ENVIRONMENT_DESKTOP`): `click`, `type`, `hotkey`,
 *   `scroll`, … ({@link GEMINI_DESKTOP_ACTIONS}), each with an `intent` (kept in the raw call).
 * A call's `safety_decision` argument is the loop's business and is ignored here.
 */
import { playwrightCombination, pyautoguiKey } from './keys';
import {
  ActionInputError,
  isRecord,
  mapWith,
  numberField,
  optionalNumber,
  seconds,
  stringField,
} from './mapped-action';
import type { MappedAction } from './mapped-action';
import type { NativeAction, ScreenPoint } from './native-action';
import { PIXELS_PER_WHEEL_CLICK } from './openai-actions';
import { GEMINI_GRID, lengthToScreen, toScreen } from './scaling';
import type { Scaling } from './scaling';

/** Predefined functions that only make sense in a browser: excluded from the tool. */
export const GEMINI_BROWSER_ONLY = [
  'open_web_browser',
  'navigate',
  'search',
  'go_back',
  'go_forward',
] as const;

/** The predefined functions kept for the desktop. */
export const GEMINI_PREDEFINED = [
  'click_at',
  'hover_at',
  'type_text_at',
  'key_combination',
  'scroll_document',
  'scroll_at',
  'drag_and_drop',
  'wait_5_seconds',
] as const;

/** The predefined functions of the desktop environment (`ENVIRONMENT_DESKTOP`, Gemini 3.x). */
export const GEMINI_DESKTOP_ACTIONS = [
  'click',
  'double_click',
  'triple_click',
  'middle_click',
  'right_click',
  'mouse_down',
  'mouse_up',
  'move',
  'type',
  'drag_and_drop',
  'wait',
  'press_key',
  'key_down',
  'key_up',
  'hotkey',
  'take_screenshot',
  'scroll',
] as const;

/** `scroll`'s default magnitude (desktop environment), taken on the grid like `scroll_at`'s. */
const GEMINI_DEFAULT_SCROLL_MAGNITUDE = 300;

const point = {
  x: { type: 'integer', description: 'x on the 0–999 grid' },
  y: { type: 'integer', description: 'y on the 0–999 grid' },
};

/** Desktop actions the tool lacks, declared as custom functions (JSON schema parameters). */
export const GEMINI_DESKTOP_FUNCTIONS = [
  {
    name: 'double_click_at',
    description: 'Double-click at a point.',
    parametersJsonSchema: { type: 'object', properties: point, required: ['x', 'y'] },
  },
  {
    name: 'triple_click_at',
    description: 'Triple-click at a point (selects a line).',
    parametersJsonSchema: { type: 'object', properties: point, required: ['x', 'y'] },
  },
  {
    name: 'right_click_at',
    description: 'Right-click at a point (opens a context menu).',
    parametersJsonSchema: { type: 'object', properties: point, required: ['x', 'y'] },
  },
  {
    name: 'type_text',
    description: 'Type text where the keyboard focus is, without clicking first.',
    parametersJsonSchema: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    },
  },
] as const;

/** Wheel clicks Gemini's `scroll_document` scrolls. */
const GEMINI_DOCUMENT_SCROLL_CLICKS = 10;
/** `scroll_at`'s default magnitude on the grid. */
const GEMINI_DEFAULT_MAGNITUDE = 800;

function directionOf(args: Record<string, unknown>): { down: number; right: number } {
  switch (args.direction) {
    case 'up':
      return { down: -1, right: 0 };
    case 'down':
      return { down: 1, right: 0 };
    case 'left':
      return { down: 0, right: -1 };
    case 'right':
      return { down: 0, right: 1 };
    default:
      throw new ActionInputError(
        `direction must be up, down, left or right, got ${JSON.stringify(args.direction)}`,
      );
  }
}

/** Wheel clicks for a scroll of `magnitude` grid units along the scroll's axis. */
function wheelClicks(scaling: Scaling, down: number, magnitude: number): number {
  if (!(magnitude >= 0 && magnitude < GEMINI_GRID))
    throw new ActionInputError(`magnitude must be on the 0–999 grid, got ${magnitude}`);
  const axis = down !== 0 ? 'y' : 'x';
  return Math.max(1, Math.round(lengthToScreen(scaling, axis, magnitude) / PIXELS_PER_WHEEL_CLICK));
}

/** One key name of Gemini's desktop actions (`Enter`, `Control`, `a`) → pyautogui's. */
function keysOf(args: Record<string, unknown>, field: 'key' | 'keys'): string[] {
  if (field === 'key') return playwrightCombination(stringField(args, 'key'));
  const keys = args.keys;
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every(key => typeof key === 'string'))
    throw new ActionInputError(`keys must be a list of key names, got ${JSON.stringify(keys)}`);
  return keys.map(key => pyautoguiKey(key as string));
}

/** One Gemini function call → its desktop actions (grid coordinates scaled to the screen). */
export function mapGeminiCall(
  call: { name?: unknown; args?: unknown },
  scaling: Scaling,
): MappedAction {
  const name = typeof call.name === 'string' ? call.name : 'unknown';
  return mapWith(name, call, (): NativeAction[] => {
    const args = isRecord(call.args) ? call.args : {};
    const at = (xField = 'x', yField = 'y'): ScreenPoint =>
      toScreen(scaling, numberField(args, xField), numberField(args, yField));
    switch (name) {
      case 'click_at':
        return [{ kind: 'click', at: at(), button: 'left', clicks: 1, holdKeys: [] }];
      case 'double_click_at':
        return [{ kind: 'click', at: at(), button: 'left', clicks: 2, holdKeys: [] }];
      case 'triple_click_at':
        return [{ kind: 'click', at: at(), button: 'left', clicks: 3, holdKeys: [] }];
      case 'right_click_at':
        return [{ kind: 'click', at: at(), button: 'right', clicks: 1, holdKeys: [] }];
      case 'hover_at':
        return [{ kind: 'move', to: at(), holdKeys: [] }];
      case 'type_text':
        return [{ kind: 'type', text: stringField(args, 'text') }];
      case 'type_text_at': {
        const actions: NativeAction[] = [
          { kind: 'click', at: at(), button: 'left', clicks: 1, holdKeys: [] },
        ];
        if (args.clear_before_typing !== false)
          actions.push(
            { kind: 'key', keys: ['ctrl', 'a'], repeat: 1 },
            { kind: 'key', keys: ['backspace'], repeat: 1 },
          );
        actions.push({ kind: 'type', text: stringField(args, 'text') });
        if (args.press_enter !== false) actions.push({ kind: 'key', keys: ['enter'], repeat: 1 });
        return actions;
      }
      case 'key_combination':
        return [{ kind: 'key', keys: playwrightCombination(stringField(args, 'keys')), repeat: 1 }];
      case 'scroll_document': {
        const { down, right } = directionOf(args);
        const centre = {
          x: Math.floor(scaling.screen.width / 2),
          y: Math.floor(scaling.screen.height / 2),
        };
        return [
          {
            kind: 'scroll',
            at: centre,
            down: down * GEMINI_DOCUMENT_SCROLL_CLICKS,
            right: right * GEMINI_DOCUMENT_SCROLL_CLICKS,
            holdKeys: [],
          },
        ];
      }
      case 'scroll_at': {
        const { down, right } = directionOf(args);
        const clicks = wheelClicks(
          scaling,
          down,
          optionalNumber(args, 'magnitude', GEMINI_DEFAULT_MAGNITUDE),
        );
        return [
          { kind: 'scroll', at: at(), down: down * clicks, right: right * clicks, holdKeys: [] },
        ];
      }
      case 'drag_and_drop':
        // desktop environment: start_x … end_y; the 2.5 preview: x, y, destination_x, destination_y
        return [
          {
            kind: 'drag',
            path:
              args.start_x !== undefined
                ? [at('start_x', 'start_y'), at('end_x', 'end_y')]
                : [at(), at('destination_x', 'destination_y')],
            holdKeys: [],
          },
        ];
      // the desktop environment (ENVIRONMENT_DESKTOP)
      case 'click':
        return [{ kind: 'click', at: at(), button: 'left', clicks: 1, holdKeys: [] }];
      case 'double_click':
        return [{ kind: 'click', at: at(), button: 'left', clicks: 2, holdKeys: [] }];
      case 'triple_click':
        return [{ kind: 'click', at: at(), button: 'left', clicks: 3, holdKeys: [] }];
      case 'middle_click':
        return [{ kind: 'click', at: at(), button: 'middle', clicks: 1, holdKeys: [] }];
      case 'right_click':
        return [{ kind: 'click', at: at(), button: 'right', clicks: 1, holdKeys: [] }];
      case 'move':
        return [{ kind: 'move', to: at(), holdKeys: [] }];
      case 'mouse_down':
      case 'mouse_up':
        return [
          { kind: 'move', to: at(), holdKeys: [] },
          { kind: name, button: 'left' },
        ];
      case 'type': {
        const actions: NativeAction[] = [{ kind: 'type', text: stringField(args, 'text') }];
        if (args.press_enter === true) actions.push({ kind: 'key', keys: ['enter'], repeat: 1 });
        return actions;
      }
      case 'wait':
        return [{ kind: 'wait', seconds: seconds(optionalNumber(args, 'seconds', 1), 'seconds') }];
      case 'press_key':
        return [{ kind: 'key', keys: keysOf(args, 'key'), repeat: 1 }];
      case 'key_down':
      case 'key_up':
        return [{ kind: name, keys: keysOf(args, 'key') }];
      case 'hotkey':
        return [{ kind: 'key', keys: keysOf(args, 'keys'), repeat: 1 }];
      case 'take_screenshot':
        return [{ kind: 'screenshot' }];
      case 'scroll': {
        const { down, right } = directionOf(args);
        const clicks = wheelClicks(
          scaling,
          down,
          optionalNumber(args, 'magnitude_in_pixels', GEMINI_DEFAULT_SCROLL_MAGNITUDE),
        );
        return [
          { kind: 'scroll', at: at(), down: down * clicks, right: right * clicks, holdKeys: [] },
        ];
      }
      case 'wait_5_seconds':
        return [{ kind: 'wait', seconds: 5 }];
      default:
        if ((GEMINI_BROWSER_ONLY as readonly string[]).includes(name))
          throw new ActionInputError(
            `${name} is a browser-only action, not available on the desktop`,
          );
        throw new ActionInputError(`unknown computer-use function ${JSON.stringify(name)}`);
    }
  });
}
