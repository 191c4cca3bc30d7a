// Small helpers of guest-transport.ts: headers, retry-after, error causes.

export function parseRetryAfter(
  headers: Record<string, string | string[] | undefined>,
): number | undefined {
  const milliseconds = Number(headerValue(headers['retry-after-ms']));
  if (
    Number.isFinite(milliseconds) &&
    milliseconds >= 0 &&
    headers['retry-after-ms'] !== undefined
  ) {
    return milliseconds;
  }
  const value = headerValue(headers['retry-after']);
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === 'string' && !cause.message.includes(code)
      ? `${cause.message} (${code})`
      : cause.message;
  }
  return String(cause);
}

export function isConnectionRefused(cause: unknown): boolean {
  for (let error = cause; error instanceof Error; error = error.cause) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ECONNREFUSED' || code === 'ENOENT') return true;
  }
  return false;
}
