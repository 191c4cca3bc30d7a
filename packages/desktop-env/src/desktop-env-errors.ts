import { OsharmError } from '@osharm/task-schema';

const providerName = 'OsharmVmProviderError';
const providerMarker = `osharm.error.${providerName}`;
const providerSymbol = Symbol.for(providerMarker);

/**
 * A provider could not start, revert or stop an environment: names what was waited for and for
 * how long (e.g. "VM /vms/Ubuntu0.vmx did not report a guest IP within 120 s").
 */
export class VmProviderError extends OsharmError {
  private readonly [providerSymbol] = true;
  readonly providerId: string;
  readonly isRetryable: boolean;

  constructor(options: {
    providerId: string;
    message: string;
    cause?: unknown;
    isRetryable?: boolean;
  }) {
    super({ name: providerName, message: options.message, cause: options.cause });
    this.providerId = options.providerId;
    this.isRetryable = options.isRetryable ?? false;
  }

  static override isInstance(error: unknown): error is VmProviderError {
    return OsharmError.hasMarker(error, providerMarker);
  }
}

const guestName = 'OsharmGuestRequestError';
const guestMarker = `osharm.error.${guestName}`;
const guestSymbol = Symbol.for(guestMarker);

/** A guest-server request failed: carries the endpoint path, the HTTP status and a body excerpt. */
export class GuestRequestError extends OsharmError {
  private readonly [guestSymbol] = true;
  /** The protocol path, e.g. `/setup/upload`. */
  readonly endpoint: string;
  /** HTTP status, or undefined when no answer came (connection refused, timeout). */
  readonly status: number | undefined;
  /** The first 500 characters of the response body. */
  readonly bodyExcerpt: string | undefined;
  readonly isRetryable: boolean;

  constructor(options: {
    endpoint: string;
    message: string;
    status?: number;
    bodyExcerpt?: string;
    cause?: unknown;
    isRetryable?: boolean;
  }) {
    super({ name: guestName, message: options.message, cause: options.cause });
    this.endpoint = options.endpoint;
    this.status = options.status;
    this.bodyExcerpt = options.bodyExcerpt?.slice(0, 500);
    this.isRetryable = options.isRetryable ?? false;
  }

  static override isInstance(error: unknown): error is GuestRequestError {
    return OsharmError.hasMarker(error, guestMarker);
  }
}
