import type { ActionSpace, SpecialAction } from '@osharm/task-schema';
import type { Action } from '@osharm/task-schema/trajectory';

const SPECIAL: ReadonlySet<string> = new Set<SpecialAction>(['WAIT', 'DONE', 'FAIL']);

/** True for `WAIT`, `DONE` and `FAIL`. */
export function isSpecialAction(value: unknown): value is SpecialAction {
  return typeof value === 'string' && SPECIAL.has(value);
}

/**
 * The code actions of a pyautogui response, as upstream's `parse_code_from_string`, without its
 * bug:
 * - a whole response that is `WAIT`, `DONE` or `FAIL` (surrounding whitespace aside) is that action;
 * - otherwise every fenced block (```` ```(?:\w+\s+)?(.*?)``` ````, across lines) gives, once
 *   trimmed: its special code if it is one; the code before it and then the special code if its
 *   last line is one; itself otherwise. Blocks that are empty are skipped (upstream sent them to the
 *   VM as empty programs).
 *
 * Upstream first splits the whole response on every `;` and joins the pieces with newlines, which
 * breaks `;` inside string literals (`typewrite('a; b')`) and strips each piece's indentation.
 * osharm does not split: Python runs `a; b` as two statements anyway.
 */
export function parsePyautoguiResponse(response: string): string[] {
  const whole = response.trim();
  if (SPECIAL.has(whole)) return [whole];
  const actions: string[] = [];
  for (const match of response.matchAll(/```(?:(\w+)\s+)?([\s\S]*?)```/g)) {
    const language = match[1];
    const block = match[2]!.trim();
    if (block === '') {
      // ```` ```DONE\n``` ````: the regex takes the code for a language name.
      if (language !== undefined && SPECIAL.has(language)) actions.push(language);
      continue;
    }
    if (SPECIAL.has(block)) {
      actions.push(block);
      continue;
    }
    const lines = block.split('\n');
    const last = lines[lines.length - 1]!.trim();
    if (lines.length > 1 && SPECIAL.has(last)) {
      const code = lines.slice(0, -1).join('\n').trimEnd();
      if (code !== '') actions.push(code);
      actions.push(last);
    } else actions.push(block);
  }
  return actions;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A special code as a block body or a whole answer, else the JSON value (`undefined` if none). */
function actionOf(text: string): Action | undefined {
  const trimmed = text.trim();
  if (SPECIAL.has(trimmed)) return trimmed;
  const value = parseJson(trimmed);
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Every block must parse: one bad block makes the response unusable, as upstream. */
function allOf(blocks: readonly string[]): Action[] | null {
  const actions: Action[] = [];
  for (const block of blocks) {
    const action = actionOf(block);
    if (action === undefined) return null;
    actions.push(action);
  }
  return actions;
}

/**
 * The actions of a computer_13 response, as upstream's `parse_actions_from_string`: a whole
 * response that is a special code; else every ```` ```json ```` block; else every other fenced
 * block; else the whole response as JSON. `null` when nothing parses (upstream raised, or returned
 * an error *string* as the actions when a block was bad JSON). A block that is a special code counts
 * as that action. Actions are JSON objects (`{"action_type": "CLICK", "x": …}`) or special codes.
 */
export function parseComputer13Response(response: string): Action[] | null {
  const whole = response.trim();
  if (SPECIAL.has(whole)) return [whole];
  const json = [...response.matchAll(/```json\s*([\s\S]*?)\s*```/g)].map(match => match[1]!);
  if (json.length > 0) return allOf(json);
  const plain = [...response.matchAll(/```(?:\w+)?\s*([\s\S]*?)\s*```/g)].map(match => match[1]!);
  if (plain.length > 0) return allOf(plain);
  const action = actionOf(whole);
  return action === undefined ? null : [action];
}

/**
 * Parses a model response into actions for an action space: pyautogui code strings and special
 * codes (never null: a response without a code block gives `[]`, a step with no action), or
 * computer_13 action objects (null when the response cannot be parsed).
 */
export function parseActions(response: string, actionSpace: ActionSpace): Action[] | null {
  return actionSpace === 'pyautogui'
    ? parsePyautoguiResponse(response)
    : parseComputer13Response(response);
}
