import { join } from 'node:path';
import type { JudgeType, ObservationType, PromptVersion } from '@osharm/task-schema';
import {
  batchResultsFileName,
  judgmentRelativePath,
  judgmentSchema,
  judgmentTypeDir,
  type Judgment,
} from '@osharm/task-schema/artifacts';
import { DEFAULT_FILE_LIMITS, readTrajectoryText } from '@osharm/task-schema/trajectory';

// Where a tree's judge outputs are: upstream's batch results file and one run's judgment.json.

/** Where upstream writes the batch results file for these settings. */
export function batchResultsPath(options: {
  rootDir: string;
  judgeModel: string;
  judgeType: JudgeType;
  promptVersion: PromptVersion;
  observationType: ObservationType;
}): string {
  const dir =
    judgmentTypeDir(options.judgeType, options.observationType) === 'a11_tree_default'
      ? join(options.rootDir, 'a11_tree_default')
      : options.rootDir;
  return join(
    dir,
    batchResultsFileName({
      judgeModel: options.judgeModel,
      judgeType: options.judgeType,
      promptVersion: options.promptVersion,
    }),
  );
}

/** Reads an existing judgment for these settings, or undefined when there is none or it is invalid. */
export async function readExistingJudgment(
  dir: string,
  options: {
    judgeModel: string;
    judgeType: JudgeType;
    promptVersion: PromptVersion;
    observationType: ObservationType;
  },
): Promise<Judgment | undefined> {
  try {
    const text = await readTrajectoryText(judgmentRelativePath(options), {
      within: dir,
      maxBytes: DEFAULT_FILE_LIMITS.maxTextBytes,
    });
    const parsed = judgmentSchema.safeParse(JSON.parse(text));
    if (!parsed.success) return undefined;
    const { reasoning, success, safety, violation_step } = parsed.data;
    return { reasoning, success, safety, violation_step };
  } catch {
    // missing, refused (symlink, not a regular file, too large) or invalid: judged again
    return undefined;
  }
}
