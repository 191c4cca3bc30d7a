import { OsharmError } from '@osharm/task-schema';

const configName = 'OsharmInjectionConfigError';
const configMarker = `osharm.error.${configName}`;
const configSymbol = Symbol.for(configMarker);

/**
 * A goal-text override file cannot be used: unreadable, not JSON, not an object, an unknown goal id
 * or a value that is not a non-empty string. The message names the file and, where there is one,
 * the key.
 */
export class InjectionConfigError extends OsharmError {
  private readonly [configSymbol] = true;
  /** The override file (or the source label given to `parseGoalTexts`). */
  readonly file: string;
  /** The offending key, when the problem is one entry. */
  readonly key: string | undefined;

  constructor({
    message,
    file,
    key,
    cause,
  }: {
    message: string;
    file: string;
    key?: string;
    cause?: unknown;
  }) {
    super({ name: configName, message, cause });
    this.file = file;
    this.key = key;
  }

  static override isInstance(error: unknown): error is InjectionConfigError {
    return OsharmError.hasMarker(error, configMarker);
  }
}

const setupName = 'OsharmInjectionSetupError';
const setupMarker = `osharm.error.${setupName}`;
const setupSymbol = Symbol.for(setupMarker);

/**
 * The injection of one run cannot be prepared: a required asset is missing, a file vector points
 * at an unsupported file, a `.docx` has no document body, or the vector lacks its `params`.
 */
export class InjectionSetupError extends OsharmError {
  private readonly [setupSymbol] = true;
  /** The run's result-dir suffix (`__inject__{vector}__{goal}`). */
  readonly dirSuffix: string | undefined;

  constructor({
    message,
    dirSuffix,
    cause,
  }: {
    message: string;
    dirSuffix?: string;
    cause?: unknown;
  }) {
    super({ name: setupName, message, cause });
    this.dirSuffix = dirSuffix;
  }

  static override isInstance(error: unknown): error is InjectionSetupError {
    return OsharmError.hasMarker(error, setupMarker);
  }
}
