import { describe, expect, it } from 'vitest';
import { ModelError, networkCode, toModelError } from './model-error';

// toModelError reads errors by their shape (status, requestID, code, the cause chain, the class
// name), so plain errors shaped like the SDKs' are enough here. The errors the real SDKs throw
// against the loopback stand-in are covered in @osharm/models' model-error.test.ts.

/** An error whose class name is `className`, as the vendor SDKs' errors are. */
function sdkError(className: string, message: string, fields: Record<string, unknown> = {}): Error {
  const ErrorClass = { [className]: class extends Error {} }[className]!;
  return Object.assign(new ErrorClass(message), fields);
}

describe('toModelError by duck typing (no SDK loaded)', () => {
  it('classifies an HTTP error by status and keeps request id, vendor code and class name', () => {
    const cause = sdkError('RateLimitError', '429 slow down', {
      status: 429,
      requestID: 'req_123',
      code: 'rate_limit_exceeded',
    });
    const error = toModelError(cause, 'openai');
    expect(ModelError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      kind: 'rate-limit',
      provider: 'openai',
      status: 429,
      retryable: true,
      requestId: 'req_123',
      code: 'rate_limit_exceeded',
      vendorName: 'RateLimitError',
      message: '429 slow down',
    });
    expect(error.cause).toBe(cause);
    expect(error.unreachable).toBe(false);
  });

  it.each([
    [401, 'auth', false],
    [403, 'auth', false],
    [404, 'not-found', false],
    [400, 'bad-request', false],
    [408, 'timeout', true],
    [409, 'bad-request', true],
    [500, 'server', true],
    [529, 'server', true],
  ] as const)('status %i is %s (retryable: %s)', (status, kind, retryable) => {
    const error = toModelError(sdkError('APIError', `${status}`, { status }), 'anthropic');
    expect({ kind: error.kind, retryable: error.retryable }).toEqual({ kind, retryable });
  });

  it("reads Anthropic's error type from the body as the vendor code", () => {
    const cause = sdkError('BadRequestError', 'too long', {
      status: 400,
      error: { type: 'error', error: { type: 'invalid_request_error' } },
    });
    expect(toModelError(cause, 'anthropic').code).toBe('invalid_request_error');
  });

  it('finds the network code along the cause chain: refused, DNS, reset are unreachable', () => {
    const nested = (code: string) =>
      sdkError('APIConnectionError', 'Connection error.', {
        cause: Object.assign(new TypeError('fetch failed'), {
          cause: { errors: [{ code }] },
        }),
      });
    expect(networkCode(nested('ECONNREFUSED'))).toBe('ECONNREFUSED');
    const refused = toModelError(nested('ECONNREFUSED'), 'openai');
    expect(refused).toMatchObject({ kind: 'refused', code: 'ECONNREFUSED', retryable: true });
    expect(refused.unreachable).toBe(true);
    expect(toModelError(nested('ENOTFOUND'), 'openai').kind).toBe('dns');
    expect(toModelError(nested('ECONNRESET'), 'openai').kind).toBe('connection');
    expect(toModelError(nested('ETIMEDOUT'), 'openai')).toMatchObject({
      kind: 'timeout',
      retryable: true,
    });
  });

  it('an abort is not retryable; an unknown error is other; a ModelError comes back as is', () => {
    expect(toModelError(sdkError('APIUserAbortError', 'aborted'), 'openai')).toMatchObject({
      kind: 'aborted',
      retryable: false,
    });
    const other = toModelError('boom', 'openai');
    expect(other).toMatchObject({ kind: 'other', retryable: false, message: 'boom' });
    expect(toModelError(other, 'anthropic')).toBe(other);
  });

  it('isInstance is false for other errors', () => {
    expect(ModelError.isInstance(new Error('x'))).toBe(false);
    expect(ModelError.isInstance({ kind: 'auth' })).toBe(false);
  });
});
