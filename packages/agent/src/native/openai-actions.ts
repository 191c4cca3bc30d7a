/**
 * OpenAI computer use (Responses API) → desktop actions: a `computer_call` of the GA `computer`
 * tool carries an `actions[]` batch; one of `computer_use_preview` carries a single `action`.
 * Scroll distances come in pixels of the image the model saw; they become wheel clicks of
 * {@link PIXELS_PER_WHEEL_CLICK} screen pixels.
 */
import { openaiKeys } from './keys';
import { ActionInputError, isRecord, mapWith, numberField, optionalNumber } from './mapped-action';
import type { MappedAction } from './mapped-action';
import type { MouseButton, NativeAction, ScreenPoint } from './native-action';
import { lengthToScreen, toScreen } from './scaling';
import type { Scaling } from './scaling';

/** Screen pixels one wheel click scrolls (about three text lines). */
export const PIXELS_PER_WHEEL_CLICK = 100;
/** How long OpenAI's `wait` action waits, s (the action carries no duration). */
const OPENAI_WAIT_SECONDS = 2;

export const OPENAI_ACTIONS = [
  'click',
  'double_click',
  'drag',
  'keypress',
  'move',
  'screenshot',
  'scroll',
  'type',
  'wait',
] as const;

/** The actions of one `computer_call`: its `actions[]`, or its single `action`. */
export function computerCallActions(call: { action?: unknown; actions?: unknown }): unknown[] {
  if (Array.isArray(call.actions)) return call.actions;
  return call.action === undefined || call.action === null ? [] : [call.action];
}

function keysOf(action: Record<string, unknown>, field = 'keys'): string[] {
  const keys = action[field];
  if (keys === undefined || keys === null) return [];
  if (!Array.isArray(keys) || !keys.every(key => typeof key === 'string'))
    throw new ActionInputError(`${field} must be an array of key names`);
  return keys.length === 0 ? [] : openaiKeys(keys as string[]);
}

function wheelClicks(scaling: Scaling, axis: 'x' | 'y', pixels: number): number {
  if (pixels === 0) return 0;
  const clicks = Math.round(
    Math.abs(lengthToScreen(scaling, axis, pixels)) / PIXELS_PER_WHEEL_CLICK,
  );
  return Math.sign(pixels) * Math.min(Math.max(clicks, 1), 100);
}

function buttonOf(value: unknown): MouseButton {
  if (value === undefined || value === null || value === 'left') return 'left';
  if (value === 'right') return 'right';
  if (value === 'wheel' || value === 'middle') return 'middle';
  throw new ActionInputError(`button ${JSON.stringify(value)} is not available on this desktop`);
}

/** One action of a `computer_call` → its desktop actions (coordinates scaled to the screen). */
export function mapOpenaiAction(action: unknown, scaling: Scaling): MappedAction {
  const name = isRecord(action) && typeof action.type === 'string' ? action.type : 'unknown';
  return mapWith(name, action, (): NativeAction[] => {
    if (!isRecord(action)) throw new ActionInputError('an action must be an object');
    const at = (): ScreenPoint =>
      toScreen(scaling, numberField(action, 'x'), numberField(action, 'y'));
    switch (name) {
      case 'click':
        return [
          {
            kind: 'click',
            at: at(),
            button: buttonOf(action.button),
            clicks: 1,
            holdKeys: keysOf(action),
          },
        ];
      case 'double_click':
        return [{ kind: 'click', at: at(), button: 'left', clicks: 2, holdKeys: keysOf(action) }];
      case 'drag': {
        const path = action.path;
        if (!Array.isArray(path) || path.length < 2)
          throw new ActionInputError('path must hold at least two points');
        return [
          {
            kind: 'drag',
            path: path.map(point => {
              if (!isRecord(point)) throw new ActionInputError('a path point must be {x, y}');
              return toScreen(scaling, numberField(point, 'x'), numberField(point, 'y'));
            }),
            holdKeys: keysOf(action),
          },
        ];
      }
      case 'keypress': {
        const keys = keysOf(action);
        if (keys.length === 0) throw new ActionInputError('keys must name at least one key');
        return [{ kind: 'key', keys, repeat: 1 }];
      }
      case 'move':
        return [{ kind: 'move', to: at(), holdKeys: keysOf(action) }];
      case 'screenshot':
        return [{ kind: 'screenshot' }];
      case 'scroll': {
        const down = wheelClicks(scaling, 'y', optionalNumber(action, 'scroll_y', 0));
        const right = wheelClicks(scaling, 'x', optionalNumber(action, 'scroll_x', 0));
        return [{ kind: 'scroll', at: at(), down, right, holdKeys: keysOf(action) }];
      }
      case 'type':
        if (typeof action.text !== 'string') throw new ActionInputError('text must be a string');
        return [{ kind: 'type', text: action.text }];
      case 'wait':
        return [{ kind: 'wait', seconds: OPENAI_WAIT_SECONDS }];
      default:
        throw new ActionInputError(`unknown computer action ${JSON.stringify(name)}`);
    }
  });
}

/** Every action of a `computer_call`, mapped in order. */
export function mapOpenaiComputerCall(
  call: { action?: unknown; actions?: unknown },
  scaling: Scaling,
): MappedAction[] {
  return computerCallActions(call).map(action => mapOpenaiAction(action, scaling));
}
