import { join } from 'node:path';
import {
  betterLogSchema,
  screenshotChecker,
  DEFAULT_FILE_LIMITS,
  fromZodIssues,
  isTrajErrorLine,
  parseJsonText,
  parseTrajJsonl,
  readTrajectoryText,
  TaskValidationError,
  UnsafeFileError,
  type BetterLog,
  type TrajLine,
  type TrajectoryFileLimits,
  type TrajStepLine,
  type ValidationIssue,
} from '@osharm/task-schema';

/** One agent step of a trajectory, with its "before" screenshot resolved on disk. */
export interface TrajectoryStep {
  /** 0-based, as `violation_step` and the judge's step labels count. */
  readonly index: number;
  readonly response: string;
  readonly actions: readonly unknown[];
  readonly a11yTree: string;
  /** Absolute path of the screenshot before the step, or undefined when no file exists. */
  readonly screenshot: string | undefined;
  /**
   * Set when the logged name was wrong (upstream's stale-name quirk), the file is missing, or it
   * was refused (outside the dir, not a regular file, too large, not an image).
   */
  readonly screenshotNote?: string;
}

/** A trajectory dir read for judging. */
export interface Trajectory {
  readonly dir: string;
  readonly betterLog: BetterLog;
  /** Instruction as the agent saw it (jailbreak-wrapped on jailbreak runs, as upstream judges it). */
  readonly instruction: string;
  readonly steps: readonly TrajectoryStep[];
  /** traj.jsonl lines (step lines and `{"Error": …}` lines). */
  readonly trajLines: readonly TrajLine[];
  /** The screenshot of the final state: the last action's screenshot, else step_0.png. */
  readonly finalScreenshot: string | undefined;
  readonly finalScreenshotName: string;
  /** Problems tolerated while reading (bad traj.jsonl lines, missing screenshots, empty instruction). */
  readonly notes: readonly string[];
}

const isStepLine = (line: TrajLine): line is TrajStepLine => !isTrajErrorLine(line);

/**
 * Reads `better_log.json`, `traj.jsonl` and the step screenshots of a trajectory dir. Tolerates
 * what real runs contain — error lines, unparsable lines, a stale screenshot name after a step with
 * no actions, missing images, an empty instruction — and records each as a note.
 *
 * Every file is read through task-schema's trajectory file reader: it must resolve inside `dir`
 * (no `..`, absolute path or symlink), be a regular file (no FIFO or device) under the size caps
 * of `limits`, and a screenshot must be an image by content. A refused screenshot counts as
 * missing, with a note saying why; it is never read.
 * @throws {TaskValidationError} when `better_log.json` is missing or invalid (nothing to judge).
 * @throws {UnsafeFileError} when `better_log.json` is refused (symlink, not a regular file, too large).
 */
export async function loadTrajectory(
  dir: string,
  options: { readonly limits?: TrajectoryFileLimits } = {},
): Promise<Trajectory> {
  const limits = { ...DEFAULT_FILE_LIMITS, ...options.limits };
  const logFile = join(dir, 'better_log.json');
  let text: string;
  try {
    text = await readTrajectoryText('better_log.json', {
      within: dir,
      maxBytes: limits.maxTextBytes,
    });
  } catch (error) {
    if (!UnsafeFileError.isInstance(error) || error.reason !== 'missing') throw error;
    throw new TaskValidationError({
      issues: [
        {
          severity: 'error',
          file: logFile,
          path: '$',
          message: 'file not found: nothing to judge',
        },
      ],
    });
  }
  const json = parseJsonText(text, logFile);
  if (!json.ok) throw new TaskValidationError({ issues: [json.issue] });
  const parsed = betterLogSchema.safeParse(json.value, { reportInput: true });
  if (!parsed.success) {
    throw new TaskValidationError({ issues: fromZodIssues(parsed.error.issues, logFile) });
  }
  const betterLog = json.value as BetterLog;
  const notes: string[] = [];

  const trajFile = join(dir, 'traj.jsonl');
  let trajLines: TrajLine[] = [];
  let trajText: string | undefined;
  try {
    trajText = await readTrajectoryText('traj.jsonl', {
      within: dir,
      maxBytes: limits.maxTextBytes,
    });
  } catch (error) {
    if (!UnsafeFileError.isInstance(error)) throw error;
    notes.push(
      error.reason === 'missing' ? 'traj.jsonl is missing' : `traj.jsonl refused: ${error.message}`,
    );
  }
  if (trajText !== undefined) {
    const result = parseTrajJsonl(trajText, { file: trajFile });
    trajLines = result.lines;
    notes.push(
      ...result.issues.map(
        (issue: ValidationIssue) =>
          `traj.jsonl${issue.line === undefined ? '' : ` line ${issue.line}`}: ${issue.message}`,
      ),
    );
  }
  const stepLines = trajLines.filter(isStepLine);
  // Screenshots: checked once by name (a refusal is noted once), then used by their real path.
  const { check: exists, refused } = screenshotChecker(dir, limits.maxImageBytes, notes);

  const steps = await Promise.all(
    betterLog.steps.map(async (step, index): Promise<TrajectoryStep> => {
      const base = {
        index,
        response: step.response,
        actions: step.actions,
        a11yTree: step.a11y_tree ?? '',
      };
      const logged = await exists(step.screenshot_file);
      if (logged) return { ...base, screenshot: logged };
      const refusal = refused.get(step.screenshot_file);
      if (refusal !== undefined)
        return {
          ...base,
          screenshot: undefined,
          screenshotNote: `screenshot ${step.screenshot_file} was refused (${refusal}), not read`,
        };
      // The "before" screenshot of step i is the one taken after the last action of an earlier step
      // (traj step_num is 1-based: the actions of step i-1 carry step_num i).
      const previous =
        index === 0
          ? 'step_0.png'
          : stepLines.filter(line => line.step_num <= index).at(-1)?.screenshot_file;
      const fixed = await exists(previous ?? (index === 0 ? undefined : 'step_0.png'));
      if (fixed) {
        return {
          ...base,
          screenshot: fixed,
          screenshotNote: `better_log names ${step.screenshot_file}, which does not exist; used ${previous}`,
        };
      }
      return {
        ...base,
        screenshot: undefined,
        screenshotNote: `screenshot ${step.screenshot_file} is missing`,
      };
    }),
  );
  const missing = steps.filter(step => step.screenshot === undefined).length;
  if (missing > 0) notes.push(`${missing} of ${steps.length} step screenshot(s) missing`);
  const stale = steps.filter(step => step.screenshot && step.screenshotNote).length;
  if (stale > 0)
    notes.push(`${stale} stale screenshot name(s) in better_log.json resolved to the real file`);

  const finalScreenshotName = stepLines.at(-1)?.screenshot_file ?? 'step_0.png';
  const finalScreenshot = await exists(finalScreenshotName);
  if (!finalScreenshot) notes.push(`final screenshot ${finalScreenshotName} is missing`);
  if (betterLog.task.instruction.trim() === '') notes.push('the instruction is empty');

  return {
    dir,
    betterLog,
    instruction: betterLog.task.instruction,
    steps,
    trajLines,
    finalScreenshot,
    finalScreenshotName,
    notes,
  };
}
