/**
 * The scripted native baseline: a computer-use "session" that replays native tool calls from a
 * file, whatever the screen shows — for demos and tests, with no model and no network. The calls
 * are in the vendor's own shape and go through the same mapping as a live model's.
 *
 * ```json
 * { "vendor": "anthropic",
 *   "turns": [
 *     { "text": "Opening a terminal.", "calls": [{ "name": "key", "input": { "text": "ctrl+alt+t" }, "toolset_name": "computer" }] },
 *     { "text": "Done." } ] }
 * ```
 * A turn with no calls is the final answer; `"refusal": "…"` marks a refusal; `"safety_checks"`
 * on a call (or OpenAI `pending_safety_checks`, Gemini `safety_decision`) makes it pending a
 * confirmation. Turns past the end answer as a final answer with no text.
 */
import type {
  CallOutcome,
  ComputerUseCall,
  ComputerUseSession,
  ComputerUseTurn,
  ComputerUseVendor,
  SafetyCheck,
} from '@osharm/models';
import { readFileSync } from 'node:fs';
import { TaskValidationError } from '@osharm/task-schema';
import {
  fromZodIssues,
  parseJsonText,
  readJsonFile,
  type JsonFileResult,
} from '@osharm/task-schema/internal';
import { z } from 'zod';

const safetyCheck = z.object({
  id: z.string(),
  code: z.string().optional(),
  message: z.string().optional(),
});

const scriptSchema = z.object({
  vendor: z.enum(['anthropic', 'openai', 'gemini']),
  turns: z.array(
    z.object({
      text: z.string().optional(),
      reasoning: z.string().optional(),
      refusal: z.string().optional(),
      calls: z.array(z.record(z.string(), z.unknown())).optional(),
    }),
  ),
});

export type NativeScript = z.infer<typeof scriptSchema>;

function checkScript(file: JsonFileResult, path: string): NativeScript {
  if (!file.ok) throw new TaskValidationError({ issues: [file.issue] });
  const parsed = scriptSchema.safeParse(file.value);
  if (!parsed.success)
    throw new TaskValidationError({ issues: fromZodIssues(parsed.error.issues, path) });
  return parsed.data;
}

/** Reads and checks a script file; a bad one is a `TaskValidationError` naming file and field. */
export async function readNativeScript(path: string): Promise<NativeScript> {
  return checkScript(await readJsonFile(path), path);
}

/** {@link readNativeScript}, synchronously (agent construction is synchronous). */
export function readNativeScriptSync(path: string): NativeScript {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new TaskValidationError({
      issues: [
        {
          severity: 'error',
          file: path,
          path: '$',
          message: `cannot read: ${(error as Error).message}`,
        },
      ],
    });
  }
  return checkScript(parseJsonText(text, path), path);
}

function checksOf(
  vendor: ComputerUseVendor,
  id: string,
  raw: Record<string, unknown>,
): SafetyCheck[] {
  const listed = z.array(safetyCheck).safeParse(raw.safety_checks ?? raw.pending_safety_checks);
  if (listed.success) return listed.data as SafetyCheck[];
  const args = (raw.args ?? {}) as {
    safety_decision?: { decision?: unknown; explanation?: unknown };
  };
  if (vendor === 'gemini' && args.safety_decision?.decision === 'require_confirmation')
    return [
      {
        id,
        code: 'require_confirmation',
        ...(typeof args.safety_decision.explanation === 'string' && {
          message: args.safety_decision.explanation,
        }),
      },
    ];
  return [];
}

/** A session replaying `script` (the model id recorded is `scripted-native-baseline`). */
export function createScriptedSession(
  script: NativeScript,
  toolVersion = 'scripted',
): ComputerUseSession & {
  /** The outcomes the replay was answered with, turn by turn (for tests and demos). */
  readonly answered: CallOutcome[][];
} {
  let index = 0;
  const answered: CallOutcome[][] = [];
  const modelId = 'scripted-native-baseline';
  const turn = (): ComputerUseTurn => {
    const scripted = script.turns[index];
    index += 1;
    const calls: ComputerUseCall[] = (scripted?.calls ?? []).map((raw, position) => {
      const id =
        typeof raw.id === 'string'
          ? raw.id
          : typeof raw.call_id === 'string'
            ? raw.call_id
            : `scripted-${index}-${position}`;
      return {
        id,
        raw: { ...raw, ...(script.vendor === 'openai' ? { call_id: id } : { id }) },
        safetyChecks: checksOf(script.vendor, id, raw),
      };
    });
    return {
      calls,
      text: scripted?.text ?? '',
      ...(scripted?.reasoning !== undefined && { reasoning: scripted.reasoning }),
      ...(scripted?.refusal !== undefined && { refusal: scripted.refusal }),
      finishReason:
        scripted?.refusal !== undefined ? 'refusal' : calls.length > 0 ? 'tool_use' : 'end_turn',
      usage: { inputTokens: 0, outputTokens: 0, modelId },
      modelId,
      raw: { scripted_turn: index - 1 },
    };
  };
  return {
    vendor: script.vendor,
    modelId,
    toolVersion,
    answered,
    start: async () => turn(),
    next: async outcomes => {
      answered.push([...outcomes]);
      return turn();
    },
  };
}
