import { join } from 'node:path';
import { parseJsonText } from '../json-file';
import {
  DEFAULT_FILE_LIMITS,
  readTrajectoryRegion,
  screenshotChecker,
  UnsafeFileError,
  type TrajectoryFileLimits,
} from '../trajectory-file';
import {
  betterLogSchema,
  isTrajErrorLine,
  parseTrajJsonl,
  type BetterLog,
  type TrajLine,
  type TrajStepLine,
} from '../trajectory-schema';
import type { ValidationIssue } from '../validation-issue';
import { fromZodIssues } from '../zod-issues';

/** One action that ran (a `traj.jsonl` step line). */
export interface ExecutedAction {
  /** The action: pyautogui code, `WAIT` / `DONE` / `FAIL`, or a computer_13 object. */
  readonly action: unknown;
  /** `%Y%m%d@%H%M%S`, taken just before the action ran. */
  readonly timestamp: string;
  /** Real path of the screenshot taken after the action; undefined when missing or refused. */
  readonly screenshot?: string;
  /** The name `traj.jsonl` gives for that screenshot. */
  readonly screenshotName: string;
}

/** One agent step (`better_log.json` `steps[index]`), its "before" screenshot resolved on disk. */
export interface TrajectoryStep {
  /** 0-based, as `violation_step` and the judge's step labels count. */
  readonly index: number;
  /** The raw model output (reasoning and code). */
  readonly response: string;
  /** Actions parsed from the response. */
  readonly actions: readonly unknown[];
  /** The linearized accessibility tree the agent saw ('' when none). */
  readonly a11yTree: string;
  /** The name `better_log.json` gives for the "before" screenshot (may be stale upstream). */
  readonly screenshotName: string;
  /** Real path of the screenshot before the step; undefined when no usable file exists. */
  readonly screenshot: string | undefined;
  /**
   * Set when the logged name was stale (upstream's quirk; the real file is used), the file is
   * missing, or it was refused (outside the dir, not a regular file, too large, not an image).
   */
  readonly screenshotNote?: string;
  /** The actions of this step that ran (`traj.jsonl` lines with `step_num` = index + 1). */
  readonly executed: readonly ExecutedAction[];
}

/** Why `better_log.json` gave no log. */
export type BetterLogProblem =
  | { readonly reason: 'missing' }
  | { readonly reason: 'refused'; readonly error: UnsafeFileError }
  | { readonly reason: 'not-json'; readonly issues: readonly ValidationIssue[] }
  | { readonly reason: 'invalid'; readonly issues: readonly ValidationIssue[] };

/** A trajectory dir as read by {@link readTrajectory}: what the judge and the report work from. */
export interface TrajectoryRead {
  readonly dir: string;
  /** The validated log; undefined when it could not be read (see `betterLogProblem`). */
  readonly betterLog?: BetterLog;
  readonly betterLogProblem?: BetterLogProblem;
  /** Instruction as the agent saw it (jailbreak-wrapped on jailbreak runs); '' without a log. */
  readonly instruction: string;
  /** traj.jsonl lines (step lines and `{"Error": …}` lines); empty when the file is missing. */
  readonly trajLines: readonly TrajLine[];
  readonly stepLines: readonly TrajStepLine[];
  /** The messages of the `{"Error": …}` lines (time limit, exceptions). */
  readonly errors: readonly string[];
  /** True when traj.jsonl was read (it may still be empty). */
  readonly hasTraj: boolean;
  readonly steps: readonly TrajectoryStep[];
  /** Steps without a usable "before" screenshot. */
  readonly missingScreenshots: number;
  /** Steps whose logged screenshot name was stale and resolved to the real file. */
  readonly staleScreenshots: number;
  /** The name of the final state's screenshot: the last action's, else `step_0.png`. */
  readonly finalScreenshotName: string;
  /** Its real path, when the file is usable. */
  readonly finalScreenshot?: string;
  /** Problems tolerated while reading (refused files, bad lines, an empty instruction). */
  readonly notes: readonly string[];
  /** Latest modification time (ms) of the text files read, for live views; 0 when none. */
  readonly updatedMs: number;
}

/** Options of {@link readTrajectory} and {@link readCappedText}. */
export interface ReadTrajectoryOptions {
  /** Size caps; the defaults are {@link DEFAULT_FILE_LIMITS}. */
  readonly limits?: TrajectoryFileLimits;
}

/**
 * A text file of a trajectory dir, read through the trajectory file reader (inside the dir, a
 * regular file, under `maxBytes`): undefined when missing; a refusal is pushed to `notes` (and the
 * file is not read). The file's mtime is pushed to `mtimes`.
 */
export async function readCappedText(
  dir: string,
  name: string,
  maxBytes: number,
  mtimes: number[],
  notes: string[],
): Promise<string | undefined> {
  const read = await readCapped(dir, name, maxBytes, mtimes);
  if (read.refusal) notes.push(`${name} refused (not read): ${read.refusal.message}`);
  return read.text;
}

/** {@link readCappedText} without notes: the text, or the refusal (neither when missing). */
async function readCapped(
  dir: string,
  name: string,
  maxBytes: number,
  mtimes: number[],
): Promise<{ text?: string; refusal?: UnsafeFileError }> {
  try {
    const read = readTrajectoryRegion(name, { within: dir, maxBytes }, { length: maxBytes });
    mtimes.push(read.mtimeMs);
    return { text: read.text };
  } catch (error) {
    if (!UnsafeFileError.isInstance(error)) throw error;
    return error.reason === 'missing' ? {} : { refusal: error };
  }
}

async function readBetterLog(
  dir: string,
  maxBytes: number,
  mtimes: number[],
  notes: string[],
): Promise<{ betterLog?: BetterLog; problem?: BetterLogProblem }> {
  const file = join(dir, 'better_log.json');
  const { text, refusal } = await readCapped(dir, 'better_log.json', maxBytes, mtimes);
  if (refusal) {
    notes.push(`better_log.json refused (not read): ${refusal.message}`);
    return { problem: { reason: 'refused', error: refusal } };
  }
  if (text === undefined) return { problem: { reason: 'missing' } };
  const json = parseJsonText(text, file);
  if (!json.ok) return { problem: { reason: 'not-json', issues: [json.issue] } };
  const parsed = betterLogSchema.safeParse(json.value, { reportInput: true });
  if (!parsed.success)
    return { problem: { reason: 'invalid', issues: fromZodIssues(parsed.error.issues, file) } };
  return { betterLog: json.value as BetterLog };
}

/**
 * Reads a trajectory dir — `better_log.json`, `traj.jsonl` and the step screenshots — the one
 * reader of the judge and the report. It tolerates what real runs contain and records each as a
 * note: `{"Error": …}` lines, unparsable lines, upstream's stale screenshot name after a step with
 * no actions (the real "before" screenshot is the one after the last action of an earlier step),
 * missing images, a missing traj.jsonl, an empty instruction. It never throws for the content of
 * the dir: a `better_log.json` that is missing, refused or invalid is returned as
 * `betterLogProblem` (the judge turns it into an error, the report into a note).
 *
 * Every file is read through the trajectory file reader: it must resolve inside `dir` (no `..`,
 * absolute path or symlink), be a regular file (no FIFO or device) under the size caps, and a
 * screenshot must be an image by content. A refused screenshot counts as missing and is never
 * replaced by a guess.
 */
export async function readTrajectory(
  dir: string,
  options: ReadTrajectoryOptions = {},
): Promise<TrajectoryRead> {
  const limits = { ...DEFAULT_FILE_LIMITS, ...options.limits };
  const notes: string[] = [];
  const mtimes: number[] = [];
  const { betterLog, problem } = await readBetterLog(dir, limits.maxTextBytes, mtimes, notes);

  let trajLines: TrajLine[] = [];
  const trajText = await readCappedText(dir, 'traj.jsonl', limits.maxTextBytes, mtimes, notes);
  if (trajText === undefined) notes.push('traj.jsonl is missing');
  else {
    const parsed = parseTrajJsonl(trajText, { file: join(dir, 'traj.jsonl') });
    trajLines = parsed.lines;
    for (const issue of parsed.issues)
      notes.push(
        `traj.jsonl${issue.line === undefined ? '' : ` line ${issue.line}`}: ${issue.message}`,
      );
  }
  const stepLines = trajLines.filter((line): line is TrajStepLine => !isTrajErrorLine(line));
  const errors = trajLines.filter(isTrajErrorLine).map(line => line.Error);

  // Screenshots: each name checked once (a refusal is noted once), then used by its real path.
  const { check, refused } = screenshotChecker(dir, limits.maxImageBytes, notes);
  const executedOf = (index: number): Promise<ExecutedAction[]> =>
    Promise.all(
      stepLines
        .filter(line => line.step_num === index + 1)
        .map(async line => {
          const screenshot = await check(line.screenshot_file);
          return {
            action: line.action,
            timestamp: line.action_timestamp,
            screenshotName: line.screenshot_file,
            ...(screenshot && { screenshot }),
          };
        }),
    );

  const steps = await Promise.all(
    (betterLog?.steps ?? []).map(async (step, index): Promise<TrajectoryStep> => {
      const base = {
        index,
        response: step.response,
        actions: step.actions,
        a11yTree: step.a11y_tree ?? '',
        screenshotName: step.screenshot_file,
        executed: await executedOf(index),
      };
      const logged = await check(step.screenshot_file);
      if (logged) return { ...base, screenshot: logged };
      const refusal = refused.get(step.screenshot_file);
      if (refusal !== undefined)
        return {
          ...base,
          screenshot: undefined,
          screenshotNote: `screenshot ${step.screenshot_file} was refused (${refusal}), not read`,
        };
      // Upstream quirk: the "before" screenshot of step i is the one taken after the last action
      // of an earlier step (traj step_num is 1-based: the actions of step i-1 carry step_num i).
      const previous =
        index === 0
          ? 'step_0.png'
          : (stepLines.filter(line => line.step_num <= index).at(-1)?.screenshot_file ??
            'step_0.png');
      const fixed = previous !== step.screenshot_file ? await check(previous) : undefined;
      if (fixed)
        return {
          ...base,
          screenshot: fixed,
          screenshotNote: `better_log.json names ${step.screenshot_file}, which does not exist; showing ${previous}`,
        };
      return {
        ...base,
        screenshot: undefined,
        screenshotNote: `screenshot ${step.screenshot_file} is missing`,
      };
    }),
  );
  const finalScreenshotName = stepLines.at(-1)?.screenshot_file ?? 'step_0.png';
  const finalScreenshot = await check(finalScreenshotName);
  const instruction = betterLog?.task.instruction ?? '';
  if (betterLog && instruction.trim() === '') notes.push('the instruction is empty');

  return {
    dir,
    ...(betterLog && { betterLog }),
    ...(problem && { betterLogProblem: problem }),
    instruction,
    trajLines,
    stepLines,
    errors,
    hasTraj: trajText !== undefined,
    steps,
    missingScreenshots: steps.filter(step => step.screenshot === undefined).length,
    staleScreenshots: steps.filter(step => step.screenshot && step.screenshotNote).length,
    finalScreenshotName,
    ...(finalScreenshot && { finalScreenshot }),
    notes,
    updatedMs: Math.max(0, ...mtimes),
  };
}
