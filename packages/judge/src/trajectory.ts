import { join } from 'node:path';
import { TaskValidationError } from '@osharm/task-schema';
import {
  readTrajectory,
  type BetterLog,
  type TrajectoryFileLimits,
  type TrajectoryRead,
  type TrajectoryStep,
} from '@osharm/task-schema/trajectory';

export type { TrajectoryStep };

/** A trajectory dir read for judging: task-schema's reader, with a valid `better_log.json`. */
export interface Trajectory extends TrajectoryRead {
  readonly betterLog: BetterLog;
  /** The screenshot of the final state: the last action's screenshot, else step_0.png. */
  readonly finalScreenshot: string | undefined;
}

/**
 * Reads a trajectory dir for judging through task-schema's trajectory reader (the report reads
 * through the same one), which tolerates what real runs contain — error lines, unparsable lines, a
 * stale screenshot name after a step with no actions, missing images, an empty instruction — and
 * records each as a note. Every file must resolve inside `dir`, be a regular file under the caps
 * of `limits`, and a screenshot must be an image by content; a refused screenshot counts as
 * missing, with a note saying why, and is never read.
 * @throws {TaskValidationError} when `better_log.json` is missing or invalid (nothing to judge).
 * @throws {UnsafeFileError} when `better_log.json` is refused (symlink, not a regular file, too large).
 */
export async function loadTrajectory(
  dir: string,
  options: { readonly limits?: TrajectoryFileLimits } = {},
): Promise<Trajectory> {
  const read = await readTrajectory(dir, options);
  const problem = read.betterLogProblem;
  if (problem?.reason === 'refused') throw problem.error;
  if (problem || !read.betterLog) {
    throw new TaskValidationError({
      issues:
        problem && problem.reason !== 'missing'
          ? [...problem.issues]
          : [
              {
                severity: 'error',
                file: join(dir, 'better_log.json'),
                path: '$',
                message: 'file not found: nothing to judge',
              },
            ],
    });
  }
  const notes = [...read.notes];
  if (read.missingScreenshots > 0)
    notes.push(`${read.missingScreenshots} of ${read.steps.length} step screenshot(s) missing`);
  if (read.staleScreenshots > 0)
    notes.push(
      `${read.staleScreenshots} stale screenshot name(s) in better_log.json resolved to the real file`,
    );
  if (!read.finalScreenshot) notes.push(`final screenshot ${read.finalScreenshotName} is missing`);
  return {
    ...read,
    betterLog: read.betterLog,
    finalScreenshot: read.finalScreenshot,
    notes,
  };
}
