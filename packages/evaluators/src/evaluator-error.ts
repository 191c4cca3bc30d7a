import { OsharmError } from '@osharm/task-schema';

const name = 'OsharmEvaluationError';
const marker = `osharm.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * A task's evaluator is misconfigured: an unknown getter or metric name, an option a metric does not
 * take, a match rule with an unknown method, a regex that cannot be compiled. Upstream would crash
 * on these (`AttributeError`, `TypeError`, `NotImplementedError`); here they fail loudly too, so a
 * broken task is never silently scored 0.
 *
 * A getter that finds nothing (a missing file, a failed command) is not a configuration bug: it
 * yields `null` and the metric scores 0.
 */
export class EvaluationError extends OsharmError {
  private readonly [symbol] = true;
  /** The getter type or metric name the error is about, when there is one. */
  readonly subject: string | undefined;

  constructor(options: { message: string; subject?: string; cause?: unknown }) {
    super({ name, message: options.message, cause: options.cause });
    this.subject = options.subject;
  }

  static override isInstance(error: unknown): error is EvaluationError {
    return OsharmError.hasMarker(error, marker);
  }
}
