import { OsharmError } from '@osharm/task-schema';
import { judgeModelNameIssue } from '@osharm/task-schema/internal';

const outputName = 'OsharmJudgeOutputError';
const outputMarker = `osharm.error.${outputName}`;
const outputSymbol = Symbol.for(outputMarker);

/**
 * The model answered, but not with a valid judgment (broken JSON, missing fields, a refusal).
 * Retryable: the judge asks again up to `maxOutputRetries` times.
 */
export class JudgeOutputError extends OsharmError {
  private readonly [outputSymbol] = true;
  readonly isRetryable = true;
  /** The text the model returned, cut to 500 characters. */
  readonly output: string | undefined;

  constructor({ message, output, cause }: { message: string; output?: string; cause?: unknown }) {
    super({ name: outputName, message, cause });
    this.output = output?.slice(0, 500);
  }

  static override isInstance(error: unknown): error is JudgeOutputError {
    return OsharmError.hasMarker(error, outputMarker);
  }
}

const settingName = 'OsharmJudgeSettingError';
const settingMarker = `osharm.error.${settingName}`;
const settingSymbol = Symbol.for(settingMarker);

/** A required setting (API key, model) is missing or invalid. Not retryable. */
export class JudgeSettingError extends OsharmError {
  private readonly [settingSymbol] = true;

  constructor({ message }: { message: string }) {
    super({ name: settingName, message });
  }

  static override isInstance(error: unknown): error is JudgeSettingError {
    return OsharmError.hasMarker(error, settingMarker);
  }
}

/**
 * Refuses a model name that cannot name a path in the results tree's scheme (task-schema's
 * `judgeModelNameIssue`: `org/model` nests as upstream does; `..`, `.`, empty parts, backslashes
 * and control characters are refused).
 * @throws {JudgeSettingError} naming the role and the name.
 */
export function assertModelName(role: 'judge' | 'captioner', name: string): void {
  const issue = judgeModelNameIssue(name);
  if (issue !== undefined)
    throw new JudgeSettingError({
      message: `${role} model ${JSON.stringify(name)} cannot name a judgment path: ${issue}`,
    });
}
