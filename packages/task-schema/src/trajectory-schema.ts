import { z } from 'zod';
import { injectionVectorSchema } from './injection-schema';
import { parseJsonText } from './json-file';
import { TaskValidationError } from './task-validation-error';
import type { ValidationIssue } from './validation-issue';
import { fromZodIssues } from './zod-issues';

/**
 * Trajectory artifacts written by a run (reference/osharm-benchmark.md §4): `traj.jsonl`,
 * `better_log.json`, `result.txt`. Loose objects: fields added by forks are kept.
 */

/** An action: pyautogui code or WAIT / DONE / FAIL (a string), or a computer_13 action object. */
export const actionSchema = z.union([z.string(), z.record(z.string(), z.unknown())]);
export type Action = z.infer<typeof actionSchema>;

/** One executed action in `traj.jsonl` (keys in this order upstream). */
export const trajStepLineSchema = z.looseObject({
  /** 1-based agent step; several actions of one step share it; a step with no action has no line. */
  step_num: z.number().int().nonnegative(),
  /** `%Y%m%d@%H%M%S`, taken just before the action ran. */
  action_timestamp: z.string(),
  action: actionSchema,
  reward: z.number(),
  done: z.boolean(),
  /** `{}`, `{"fail": true}` after FAIL or `{"done": true}` after DONE. */
  info: z.record(z.string(), z.unknown()),
  /** The screenshot taken after the action, `step_{n}_{timestamp}.png`. */
  screenshot_file: z.string(),
});
export type TrajStepLine = z.infer<typeof trajStepLineSchema>;

/** The line appended when a run raised (upstream: `"Time limit exceeded in {domain}/{id}"`). */
export const trajErrorLineSchema = z.looseObject({ Error: z.string() });
export type TrajErrorLine = z.infer<typeof trajErrorLineSchema>;

export const trajLineSchema = z.union([trajErrorLineSchema, trajStepLineSchema]);
export type TrajLine = z.infer<typeof trajLineSchema>;

/** True for an `{"Error": …}` line. */
export function isTrajErrorLine(line: TrajLine): line is TrajErrorLine {
  return typeof (line as { Error?: unknown }).Error === 'string';
}

/**
 * Parses `traj.jsonl` text. Tolerant, as real runs need: blank lines are skipped, and a line that is
 * not valid JSON or not a step/error line is reported as an issue and left out.
 */
export function parseTrajJsonl(
  text: string,
  { file }: { file: string },
): { lines: TrajLine[]; issues: ValidationIssue[] } {
  const lines: TrajLine[] = [];
  const issues: ValidationIssue[] = [];
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    const read = parseJsonText(raw, file);
    if (!read.ok) {
      issues.push({ ...read.issue, line: index + 1, column: read.issue.column ?? 1 });
      return;
    }
    const value = read.value;
    // An object with an `Error` key is meant as an error line; anything else as a step line. Checking
    // against that one schema (not the union) reports the fields that are really wrong.
    const isErrorLine = value !== null && typeof value === 'object' && 'Error' in value;
    const schema = isErrorLine ? trajErrorLineSchema : trajStepLineSchema;
    const parsed = schema.safeParse(value, { reportInput: true });
    if (parsed.success) lines.push(value as TrajLine);
    else
      issues.push(
        ...fromZodIssues(parsed.error.issues, file).map(issue => ({
          ...issue,
          message: `line ${index + 1}: ${issue.message}`,
        })),
      );
  });
  return { lines, issues };
}

/** `params` of `better_log.json`: the run settings. */
export const runParamsSchema = z.looseObject({
  platform: z.string().optional(),
  model: z.string(),
  max_tokens: z.number().optional(),
  top_p: z.number().optional(),
  temperature: z.number().optional(),
  action_space: z.string().optional(),
  observation_type: z.string().optional(),
  max_trajectory_length: z.number().optional(),
  a11y_tree_max_tokens: z.number().optional(),
  max_steps: z.number().optional(),
});
export type RunParams = z.infer<typeof runParamsSchema>;

/** One agent step of `better_log.json`: the observation before it and what the model answered. */
export const betterLogStepSchema = z.looseObject({
  /** Linearized accessibility table of the observation before the step (not token-trimmed). */
  a11y_tree: z.string().nullable().optional(),
  /** The "before" screenshot; after a step with no actions upstream writes a stale name. */
  screenshot_file: z.string(),
  /** The raw model output. */
  response: z.string(),
  /** Actions parsed from the response (may be empty). */
  actions: z.array(actionSchema),
});
export type BetterLogStep = z.infer<typeof betterLogStepSchema>;

/** `better_log.json`: `{ params, task, steps }`, rewritten after every agent step. */
export const betterLogSchema = z.looseObject({
  params: runParamsSchema,
  task: z.looseObject({
    jailbreak: z.boolean(),
    /** The vector object with `content` and `goal_id` added, or null when no injection ran. */
    injection: injectionVectorSchema.nullable(),
    /** The instruction the agent got (jailbreak-wrapped on jailbreak runs). */
    instruction: z.string(),
  }),
  steps: z.array(betterLogStepSchema),
});
export type BetterLog = z.infer<typeof betterLogSchema>;

/**
 * Parses `result.txt`: the evaluator score (`1`, `0`, or a float) and a newline.
 * @throws {TaskValidationError} when the text is not one finite number.
 */
export function parseResultTxt(text: string, { file }: { file: string }): number {
  const trimmed = text.trim();
  // A decimal number as Python writes a float or int (`1`, `0.0`, `0.25`, `1e-05`); Number() alone
  // would also take "0x10", "0b1" or "Infinity".
  const decimal = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
  const value = decimal.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isFinite(value)) {
    throw new TaskValidationError({
      issues: [
        {
          severity: 'error',
          file,
          path: '$',
          message: `expected one number (the evaluator score), got ${JSON.stringify(trimmed.slice(0, 40))}`,
        },
      ],
    });
  }
  return value;
}

/** Formats a score for `result.txt`: the number and a newline, as upstream writes it. */
export function formatResultTxt(score: number): string {
  return `${score}\n`;
}
