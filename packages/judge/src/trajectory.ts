import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  betterLogSchema,
  fromZodIssues,
  isTrajErrorLine,
  parseJsonText,
  parseTrajJsonl,
  TaskValidationError,
  type BetterLog,
  type TrajLine,
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
  /** Set when the logged name was wrong (upstream's stale-name quirk) or the file is missing. */
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
 * @throws {TaskValidationError} when `better_log.json` is missing or invalid (nothing to judge).
 */
export async function loadTrajectory(dir: string): Promise<Trajectory> {
  const logFile = join(dir, 'better_log.json');
  let text: string;
  try {
    text = await readFile(logFile, 'utf8');
  } catch {
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
  if (existsSync(trajFile)) {
    const result = parseTrajJsonl(await readFile(trajFile, 'utf8'), { file: trajFile });
    trajLines = result.lines;
    notes.push(
      ...result.issues.map(
        (issue: ValidationIssue) =>
          `traj.jsonl${issue.line === undefined ? '' : ` line ${issue.line}`}: ${issue.message}`,
      ),
    );
  } else {
    notes.push('traj.jsonl is missing');
  }
  const stepLines = trajLines.filter(isStepLine);
  const exists = (name: string | undefined) =>
    name !== undefined && name !== '' && existsSync(join(dir, name)) ? join(dir, name) : undefined;

  const steps = betterLog.steps.map((step, index): TrajectoryStep => {
    const base = {
      index,
      response: step.response,
      actions: step.actions,
      a11yTree: step.a11y_tree ?? '',
    };
    const logged = exists(step.screenshot_file);
    if (logged) return { ...base, screenshot: logged };
    // The "before" screenshot of step i is the one taken after the last action of an earlier step
    // (traj step_num is 1-based: the actions of step i-1 carry step_num i).
    const previous =
      index === 0
        ? 'step_0.png'
        : stepLines.filter(line => line.step_num <= index).at(-1)?.screenshot_file;
    const fixed = exists(previous ?? (index === 0 ? undefined : 'step_0.png'));
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
  });
  const missing = steps.filter(step => step.screenshot === undefined).length;
  if (missing > 0) notes.push(`${missing} of ${steps.length} step screenshot(s) missing`);
  const stale = steps.filter(step => step.screenshot && step.screenshotNote).length;
  if (stale > 0)
    notes.push(`${stale} stale screenshot name(s) in better_log.json resolved to the real file`);

  const finalScreenshotName = stepLines.at(-1)?.screenshot_file ?? 'step_0.png';
  const finalScreenshot = exists(finalScreenshotName);
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
