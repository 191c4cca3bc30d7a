import { InvalidArgumentError } from 'commander';

// Endpoint resolution (role flag → OSHARM_<ROLE>_BASE_URL → vendor variable), the vendor routing and
// the credential check live in @osharm/models; this file adds what only the command lines need.
export {
  connectionFailure,
  MAX_CONSECUTIVE_CONNECTION_FAILURES,
  redactor,
  unreachableMessage,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_SECONDS,
  describeEndpoint,
  endpointRouting,
  missingCredentials,
  resolveEndpoint,
  ROLE_BASE_URL_ENV,
} from '@osharm/models';
export type { ModelEndpoint, ModelRole } from '@osharm/models';

/** commander parser of `--max-retries`: an integer ≥ 0. */
export function parseRetries(value: string): number {
  const number = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(number))
    throw new InvalidArgumentError('expected an integer >= 0.');
  return number;
}

/** commander parser of `--timeout`: seconds > 0. */
export function parseTimeoutSeconds(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number <= 0)
    throw new InvalidArgumentError('expected a number of seconds > 0.');
  return number;
}

/** commander parser of a base URL flag: an http(s) URL. */
export function parseBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected an http:// or https:// URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidArgumentError('expected an http:// or https:// URL.');
  return value;
}
