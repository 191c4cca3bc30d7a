/**
 * Anthropic computer use → desktop actions: the classic `computer` tool (`computer_20250124`,
 * `computer_20251124`: one `tool_use` named `computer` with `input.action`) and the members of the
 * GA toolset `computer_toolset_20260801` (one `tool_use` per member action, named after the member,
 * `toolset_name: "computer"`).
 */
import { xdotoolCombination } from './keys';
import {
  ActionInputError,
  MAX_KEY_REPEAT,
  isRecord,
  mapWith,
  numberField,
  optionalNumber,
  pairToScreen,
  seconds,
  stringField,
} from './mapped-action';
import type { MappedAction } from './mapped-action';
import type { MouseButton, NativeAction } from './native-action';
import type { Scaling } from './scaling';

/** A `tool_use` block of the computer tool or toolset, as the SDK returns it. */
export interface AnthropicToolUse {
  name: string;
  input: unknown;
  toolset_name?: string;
}

/** The action names of the computer tool and toolset. */
export const ANTHROPIC_ACTIONS = [
  'key',
  'hold_key',
  'type',
  'cursor_position',
  'mouse_move',
  'left_mouse_down',
  'left_mouse_up',
  'left_click',
  'left_click_drag',
  'right_click',
  'middle_click',
  'double_click',
  'triple_click',
  'scroll',
  'wait',
  'screenshot',
  'zoom',
] as const;

const CLICKS: Record<string, { button: MouseButton; clicks: 1 | 2 | 3 }> = {
  left_click: { button: 'left', clicks: 1 },
  right_click: { button: 'right', clicks: 1 },
  middle_click: { button: 'middle', clicks: 1 },
  double_click: { button: 'left', clicks: 2 },
  triple_click: { button: 'left', clicks: 3 },
};

/** Whether a `tool_use` block belongs to the computer tool (classic) or its toolset. */
export function isAnthropicComputerUse(block: AnthropicToolUse): boolean {
  return (
    block.toolset_name === 'computer' ||
    (block.name === 'computer' && block.toolset_name === undefined)
  );
}

function heldKeys(input: Record<string, unknown>): string[] {
  const text = input.text;
  if (text === undefined || text === null || text === '') return [];
  if (typeof text !== 'string') throw new ActionInputError('text must be a key combination');
  return xdotoolCombination(text);
}

/** One computer `tool_use` block → its desktop actions (coordinates scaled to the screen). */
export function mapAnthropicToolUse(block: AnthropicToolUse, scaling: Scaling): MappedAction {
  const classic = block.toolset_name === undefined;
  const input = isRecord(block.input) ? block.input : {};
  const name = classic ? String(input.action ?? '') : block.name;
  return mapWith(name || 'computer', block, (): NativeAction[] => {
    if (!isRecord(block.input)) throw new ActionInputError('input must be an object');
    const at = () =>
      input.coordinate === undefined || input.coordinate === null
        ? undefined
        : pairToScreen(scaling, input.coordinate, 'coordinate');
    const click = CLICKS[name];
    if (click) return [{ kind: 'click', at: at(), ...click, holdKeys: heldKeys(input) }];
    switch (name) {
      case 'key': {
        const repeat = optionalNumber(input, 'repeat', 1);
        if (!(Number.isInteger(repeat) && repeat >= 1 && repeat <= MAX_KEY_REPEAT))
          throw new ActionInputError(
            `repeat must be an integer 1–${MAX_KEY_REPEAT}, got ${repeat}`,
          );
        return [{ kind: 'key', keys: xdotoolCombination(stringField(input, 'text')), repeat }];
      }
      case 'hold_key':
        return [
          {
            kind: 'hold_key',
            keys: xdotoolCombination(stringField(input, 'text')),
            seconds: seconds(numberField(input, 'duration'), 'duration'),
          },
        ];
      case 'type':
        return [{ kind: 'type', text: stringField(input, 'text') }];
      case 'cursor_position':
        return [{ kind: 'cursor_position' }];
      case 'mouse_move':
        return [
          {
            kind: 'move',
            to: pairToScreen(scaling, input.coordinate, 'coordinate'),
            holdKeys: heldKeys(input),
          },
        ];
      case 'left_mouse_down':
        return [{ kind: 'mouse_down', button: 'left' }];
      case 'left_mouse_up':
        return [{ kind: 'mouse_up', button: 'left' }];
      case 'left_click_drag':
        return [
          {
            kind: 'drag',
            path: [
              pairToScreen(scaling, input.start_coordinate, 'start_coordinate'),
              pairToScreen(scaling, input.coordinate, 'coordinate'),
            ],
            holdKeys: heldKeys(input),
          },
        ];
      case 'scroll': {
        const amount = numberField(input, 'scroll_amount');
        if (!(Number.isInteger(amount) && amount >= 0 && amount <= 100))
          throw new ActionInputError(`scroll_amount must be an integer 0–100, got ${amount}`);
        const direction = input.scroll_direction;
        const vertical = direction === 'up' || direction === 'down';
        if (!vertical && direction !== 'left' && direction !== 'right')
          throw new ActionInputError(
            `scroll_direction must be up, down, left or right, got ${JSON.stringify(direction)}`,
          );
        const sign = direction === 'up' || direction === 'left' ? -1 : 1;
        return [
          {
            kind: 'scroll',
            at: at(),
            down: vertical ? sign * amount : 0,
            right: vertical ? 0 : sign * amount,
            holdKeys: heldKeys(input),
          },
        ];
      }
      case 'wait':
        return [
          { kind: 'wait', seconds: seconds(optionalNumber(input, 'duration', 1), 'duration') },
        ];
      case 'screenshot':
        return [{ kind: 'screenshot' }];
      case 'zoom': {
        const region = input.region;
        if (!Array.isArray(region) || region.length !== 4)
          throw new ActionInputError(
            `region must be [x0, y0, x1, y1], got ${JSON.stringify(region)}`,
          );
        const from = pairToScreen(scaling, region.slice(0, 2), 'region');
        const to = pairToScreen(scaling, region.slice(2, 4), 'region');
        if (!(to.x > from.x && to.y > from.y))
          throw new ActionInputError(
            `region must have x1 > x0 and y1 > y0 on the screen, got ${JSON.stringify(region)}`,
          );
        return [{ kind: 'zoom', region: [from.x, from.y, to.x, to.y] }];
      }
      default:
        throw new ActionInputError(`unknown computer action ${JSON.stringify(name)}`);
    }
  });
}
