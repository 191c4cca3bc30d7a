import { OsharmError } from '@osharm/task-schema';

const name = 'OsharmMetricsInputError';
const marker = `osharm.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * Thrown when a metric gets an argument it cannot use: a count that is negative, not an integer
 * or larger than its total, or a confidence level / probability outside (0, 1). `argument` names
 * the offending parameter.
 */
export class MetricsInputError extends OsharmError {
  private readonly [symbol] = true;
  /** Name of the argument that was rejected, e.g. `successes`. */
  readonly argument: string;

  constructor({ argument, message }: { argument: string; message: string }) {
    super({ name, message });
    this.argument = argument;
  }

  static override isInstance(error: unknown): error is MetricsInputError {
    return OsharmError.hasMarker(error, marker);
  }
}
