import { pyautoguiCode } from './native-action';
import type { NativeAction, ScreenPoint } from './native-action';
import { UnknownKeyError } from './keys';
import { toScreen } from './scaling';
import type { Scaling } from './scaling';

/** One vendor action, mapped: the desktop actions it stands for, or why it cannot run. */
export type MappedAction =
  | {
      /** The vendor's name for the action (`left_click`, `click`, `click_at`, …). */
      name: string;
      /** The vendor's action as it came, kept for the record. */
      raw: unknown;
      actions: NativeAction[];
      /** The equivalent pyautogui code (`null`: observation only, nothing goes to the guest). */
      code: string | null;
    }
  | { name: string; raw: unknown; error: string };

/** Longest wait or key hold a model may ask for, s. */
const MAX_WAIT_SECONDS = 60;
/** Most repeats of one key press. */
export const MAX_KEY_REPEAT = 100;

/** A bad vendor input: becomes the action's `error`. */
export class ActionInputError extends Error {}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function numberField(input: Record<string, unknown>, field: string): number {
  const value = input[field];
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new ActionInputError(`${field} must be a finite number, got ${JSON.stringify(value)}`);
  return value;
}

export function optionalNumber(
  input: Record<string, unknown>,
  field: string,
  fallback: number,
): number {
  return input[field] === undefined || input[field] === null ? fallback : numberField(input, field);
}

export function stringField(input: Record<string, unknown>, field: string): string {
  const value = input[field];
  if (typeof value !== 'string')
    throw new ActionInputError(`${field} must be a string, got ${JSON.stringify(value)}`);
  return value;
}

export function seconds(value: number, field: string): number {
  if (!(value >= 0 && value <= MAX_WAIT_SECONDS))
    throw new ActionInputError(
      `${field} must be between 0 and ${MAX_WAIT_SECONDS} s, got ${value}`,
    );
  return value;
}

/** An `[x, y]` array in model coordinates → screen pixels. */
export function pairToScreen(scaling: Scaling, value: unknown, field: string): ScreenPoint {
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    !value.every(item => typeof item === 'number' && Number.isFinite(item))
  )
    throw new ActionInputError(`${field} must be [x, y], got ${JSON.stringify(value)}`);
  return toScreen(scaling, value[0] as number, value[1] as number);
}

/** Maps with `build`; a bad input or an unknown key becomes the action's error. */
export function mapWith(name: string, raw: unknown, build: () => NativeAction[]): MappedAction {
  try {
    const actions = build();
    const codes = actions.map(pyautoguiCode).filter((code): code is string => code !== null);
    return { name, raw, actions, code: codes.length > 0 ? codes.join('; ') : null };
  } catch (error) {
    if (
      error instanceof ActionInputError ||
      error instanceof UnknownKeyError ||
      error instanceof RangeError
    )
      return { name, raw, error: `${name}: ${error.message}` };
    throw error;
  }
}
