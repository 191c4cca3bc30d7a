const name = 'OsharmError';
const marker = `osharm.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * Base class of every error thrown by `@osharm/*` packages.
 *
 * `instanceof` fails when two copies of a package are installed; use the static `isInstance` of the
 * class instead, which checks a `Symbol.for` marker and so survives duplicate package versions.
 */
export class OsharmError extends Error {
  private readonly [symbol] = true;

  constructor({ name, message, cause }: { name: string; message: string; cause?: unknown }) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = name;
  }

  /** True when `error` is an `OsharmError` (or a subclass) from any copy of the package. */
  static isInstance(error: unknown): error is OsharmError {
    return OsharmError.hasMarker(error, marker);
  }

  /** @internal Checks a subclass marker; subclasses call it from their own `isInstance`. */
  protected static hasMarker(error: unknown, markerName: string): boolean {
    return (
      error != null &&
      typeof error === 'object' &&
      Symbol.for(markerName) in error &&
      (error as Record<symbol, unknown>)[Symbol.for(markerName)] === true
    );
  }
}
