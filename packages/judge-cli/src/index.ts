// @osharm/judge-cli: upstream's judge/run_judge_batch.py as a command, for the
// `osharm-batch-judge` bin (apps/batch-judge), `osharm judge` (apps/cli) and @osharm/runner.
export { batchJudgeCommand, IMAGE_FORMATS } from './command';
export type { BatchJudgeFlags } from './command';
export { runBatchJudge } from './program';
export { normalizeArgv } from './argv';
export { loadDotEnv } from './dot-env';
export {
  connectionFailure,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_SECONDS,
  describeEndpoint,
  endpointRouting,
  MAX_CONSECUTIVE_CONNECTION_FAILURES,
  missingCredentials,
  parseBaseUrl,
  parseRetries,
  parseTimeoutSeconds,
  redactor,
  resolveEndpoint,
  ROLE_BASE_URL_ENV,
  unreachableMessage,
} from './model-endpoints';
export type { ModelEndpoint, ModelRole } from './model-endpoints';
export { endQuietlyOnClosedStdout, ExitCode, processIo } from './io';
export type { BatchJudgeIo, BatchJudgeRun } from './io';
export { VERSION } from './version';
