import { OsharmError } from '@osharm/task-schema';

const name = 'OsharmSetupStepError';
const marker = `osharm.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * A setup step (task `config` or evaluator `postconfig`) failed or cannot run. The message names the
 * list, the step's 1-based number, its type and the cause, e.g.
 * `config step 3 (googledrive) is not supported by osharm: …`.
 */
export class SetupStepError extends OsharmError {
  private readonly [symbol] = true;
  /** 0-based index of the step in its list. */
  readonly stepIndex: number;
  /** The step's `type` (`download`, `execute`, …). */
  readonly stepType: string;
  /** Which list the step belongs to. */
  readonly phase: 'config' | 'postconfig';
  /** True when the step type cannot run in osharm at all (rather than having failed). */
  readonly unsupported: boolean;
  /** True when running the setup again may succeed (e.g. the guest was unreachable). */
  readonly isRetryable: boolean;

  constructor(options: {
    stepIndex: number;
    stepType: string;
    phase?: 'config' | 'postconfig';
    message: string;
    cause?: unknown;
    unsupported?: boolean;
    isRetryable?: boolean;
  }) {
    const phase = options.phase ?? 'config';
    super({
      name,
      message: `${phase} step ${options.stepIndex + 1} (${options.stepType}) ${options.message}`,
      cause: options.cause,
    });
    this.stepIndex = options.stepIndex;
    this.stepType = options.stepType;
    this.phase = phase;
    this.unsupported = options.unsupported ?? false;
    this.isRetryable = options.isRetryable ?? false;
  }

  static override isInstance(error: unknown): error is SetupStepError {
    return OsharmError.hasMarker(error, marker);
  }
}
